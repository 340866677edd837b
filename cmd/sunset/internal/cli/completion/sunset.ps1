# PowerShell completion for sunset. Load it in your profile:
#   sunset completion powershell | Out-String | Invoke-Expression
# It asks sunset itself (sunset __complete WORDS... WORD) what completes the word.

Register-ArgumentCompleter -CommandName 'sunset' -ScriptBlock {
    param($WordToComplete, $CommandAst, $CursorPosition)

    # The words before the cursor; the one being completed is passed last, empty after a space.
    $words = @($CommandAst.CommandElements |
        Where-Object { $_.Extent.StartOffset -lt $CursorPosition } |
        ForEach-Object { $_.Extent.Text })
    if ($WordToComplete -ne '' -and $words.Count -gt 0) {
        $words = @($words[0..($words.Count - 2)])
    }
    $program = $words[0]
    $rest = @()
    if ($words.Count -gt 1) { $rest = @($words[1..($words.Count - 1)]) }
    # Before 7.3 (and in its Legacy mode) PowerShell drops an empty argument to a program
    # unless it is written "".
    $word = $WordToComplete
    if ($word -eq '' -and ($PSVersionTable.PSVersion -lt [version]'7.3' -or $PSNativeCommandArgumentPassing -eq 'Legacy')) {
        $word = '""'
    }
    $out = @(& $program __complete @rest $word 2>$null)
    if ($out.Count -eq 0) { return }

    $directive = [int]($out[-1].TrimStart(':'))
    $lines = @()
    if ($out.Count -gt 1) { $lines = @($out[0..($out.Count - 2)]) }
    if (($directive -band 16) -ne 0 -or ($lines.Count -eq 0 -and ($directive -band 4) -eq 0)) {
        return  # PowerShell completes file and directory names itself
    }
    foreach ($line in $lines) {
        $value, $desc = $line -split "`t", 2
        if (-not $desc) { $desc = $value }
        $text = $value
        if ($value -match '[\s{}();,''"`$|&<>@#]') { $text = "'" + ($value -replace "'", "''") + "'" }
        [System.Management.Automation.CompletionResult]::new($text, $value, 'ParameterValue', $desc)
    }
}

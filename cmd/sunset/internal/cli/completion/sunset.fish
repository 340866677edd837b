# fish completion for sunset. Load it:  sunset completion fish | source
# or save it as ~/.config/fish/completions/sunset.fish. It asks sunset itself
# (sunset __complete WORDS... WORD) what completes the word.

function __sunset_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l out ($words[1] __complete $words[2..-1] $cur 2>/dev/null)
    or return
    set -l directive (string replace -r '^:' '' -- $out[-1])
    set -e out[-1]
    if test (math "bitand($directive, 16)") -ne 0
        __fish_complete_directories $cur
        return
    end
    if test (count $out) -eq 0
        if test (math "bitand($directive, 4)") -eq 0
            __fish_complete_path $cur
        end
        return
    end
    printf '%s\n' $out
end

complete -c sunset -f -a '(__sunset_complete)'

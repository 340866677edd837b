#compdef sunset
# zsh completion for sunset. Load it in ~/.zshrc (after compinit):  source <(sunset completion zsh)
# or save it as _sunset in a directory of $fpath. It asks sunset itself
# (sunset __complete WORDS... WORD) what completes the word.

_sunset() {
    local out directive line value desc
    local -a lines cands
    out=$("${words[1]}" __complete "${(@)words[2,CURRENT-1]}" "${words[CURRENT]}" 2>/dev/null) || return 1
    lines=("${(@f)out}")
    directive=${lines[-1]#:}
    lines=("${(@)lines[1,-2]}")
    [[ $directive == <-> ]] || return 1

    if (( directive & 16 )); then
        _files -/
        return
    fi
    for line in "${lines[@]}"; do
        [[ -n $line ]] || continue
        value=${line%%$'\t'*}
        desc=""
        [[ $line == *$'\t'* ]] && desc=${line#*$'\t'}
        cands+=("${value//:/\\:}${desc:+:$desc}")
    done
    if (( ${#cands} == 0 )); then
        (( directive & 4 )) || _files
        return
    fi
    if (( directive & 2 )); then
        _describe -t values 'sunset' cands -S ''
    else
        _describe -t values 'sunset' cands
    fi
}

if [[ $funcstack[1] == _sunset ]]; then
    _sunset "$@"
else
    compdef _sunset sunset
fi

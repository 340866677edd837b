# bash completion for sunset. Load it in ~/.bashrc:  source <(sunset completion bash)
# It asks sunset itself (sunset __complete WORDS... WORD) what completes the word.

# __sunset_words sets words and cword from COMP_WORDS, joining back the pieces bash split at
# the characters of COMP_WORDBREAKS (--format=sarif:out.sarif is one word to sunset): a
# piece glued to the one before it on the command line joins it.
__sunset_words() {
    local line=${COMP_LINE:0:COMP_POINT} i w glued
    words=() cword=0
    for ((i = 0; i <= COMP_CWORD && i < ${#COMP_WORDS[@]}; i++)); do
        w=${COMP_WORDS[i]}
        glued=1
        if [[ $line =~ ^[[:space:]]+ ]]; then
            line=${line:${#BASH_REMATCH[0]}}
            glued=0
        fi
        if ((i == 0 || !glued)) || [[ -z ${COMP_LINE+set} ]]; then
            words+=("$w")
        else
            words[${#words[@]} - 1]+=$w
        fi
        line=${line:${#w}}
    done
    cword=$((${#words[@]} - 1))
}

_sunset() {
    local words cword cur out directive line value pre i
    local -a lines
    __sunset_words
    cur=${words[cword]}
    out=$("${words[0]}" __complete "${words[@]:1:cword-1}" "$cur" 2>/dev/null) || return 0
    mapfile -t lines <<<"$out"
    directive=${lines[${#lines[@]} - 1]#:}
    unset 'lines[${#lines[@]}-1]'
    [[ $directive =~ ^[0-9]+$ ]] || return 0

    COMPREPLY=()
    if ((directive & 16)); then
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -d -- "$cur")
        return 0
    fi
    if ((${#lines[@]} == 0)); then
        if ((!(directive & 4))); then
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        fi
        return 0
    fi
    # bash replaces only the piece after the last word break (: or =) of the word: drop what
    # comes before it from each candidate.
    pre=""
    for ((i = ${#cur} - 1; i >= 0; i--)); do
        if [[ $COMP_WORDBREAKS == *"${cur:i:1}"* ]]; then
            pre=${cur:0:i+1}
            break
        fi
    done
    for line in "${lines[@]}"; do
        value=${line%%$'\t'*}
        COMPREPLY+=("${value#"$pre"}")
    done
    if ((directive & 2)); then
        compopt -o nospace 2>/dev/null
    fi
    return 0
}

complete -F _sunset sunset

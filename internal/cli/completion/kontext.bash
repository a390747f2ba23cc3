# bash completion for kontext, printed by `kontext completion bash`.
# kontext itself works out what completes: this asks it, with the words
# before the cursor and the word being typed.

_kontext_complete() {
    local cur=${COMP_WORDS[COMP_CWORD]} line files=
    local -a before=("${COMP_WORDS[@]:1:COMP_CWORD-1}")
    # bash splits --flag=value at the "=" (COMP_WORDBREAKS): right after
    # it, the word is "=" and the flag's value is being typed.
    if [[ $cur == "=" ]]; then
        before+=("=")
        cur=
    fi
    COMPREPLY=()
    while IFS= read -r line; do
        case $line in
            :files) files=f ;;
            :dirs) files=d ;;
            '') ;;
            *) COMPREPLY+=("${line%%$'\t'*}") ;;
        esac
    done < <("${COMP_WORDS[0]}" __complete "--current=$cur" -- "${before[@]}" 2>/dev/null)
    if [[ -n $files ]]; then
        compopt -o filenames 2>/dev/null
        local IFS=$'\n'
        COMPREPLY+=($(compgen -"$files" -- "$cur"))
    fi
    return 0
}

complete -F _kontext_complete kontext

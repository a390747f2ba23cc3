# fish completion for kontext, printed by `kontext completion fish`.
# kontext itself works out what completes: this asks it, with the words
# before the cursor and the word being typed.

function __kontext_complete
    set -l before (commandline -opc)
    set -l cur (commandline -ct)
    set -l program $before[1]
    set -e before[1]
    for line in ($program __complete "--current=$cur" -- $before 2>/dev/null)
        switch $line
            case :files
                __fish_complete_path "$cur"
            case :dirs
                __fish_complete_directories "$cur"
            case '*'
                printf '%s\n' $line
        end
    end
end

complete -c kontext -f -a '(__kontext_complete)'

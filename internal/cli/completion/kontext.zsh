#compdef kontext
# zsh completion for kontext, printed by `kontext completion zsh`.
# kontext itself works out what completes: this asks it, with the words
# before the cursor and the word being typed.

_kontext() {
  local -a described before
  local line files ret=1
  before=("${(@Q)words[2,CURRENT-1]}")
  for line in "${(@f)$(${~words[1]} __complete "--current=${(Q)words[CURRENT]}" -- "${(@)before}" 2>/dev/null)}"; do
    case $line in
      :files) files=f ;;
      :dirs) files=d ;;
      '') ;;
      *$'\t'*) described+=("${${line%%$'\t'*}//:/\\:}:${line#*$'\t'}") ;;
      *) described+=("${line//:/\\:}") ;;
    esac
  done
  (( ${#described} )) && _describe -t values kontext described && ret=0
  if [[ $files == f ]]; then
    _files && ret=0
  elif [[ $files == d ]]; then
    _files -/ && ret=0
  fi
  return ret
}

if [[ $funcstack[1] == _kontext ]]; then
  _kontext "$@"
else
  compdef _kontext kontext
fi

#!/usr/bin/env bash
# gh as the sessions of a step that may publish see it in a job of a workflow `cairn compile` wrote:
# the job holds no token that writes, so `gh issue create`, `gh issue edit`, `gh issue comment` and
# `gh label create` are recorded in $CAIRN_OUTBOX, one JSON file each, in order, and answered as gh
# answers them to a pipe; the job after the step's, which runs no agent, does them with the
# workflow's token. An issue opened here gets a provisional number, 900000001 and on, which that job
# maps to its real one wherever a later call or the step's result names it (#N, .../issues/N); a
# comment's URL here ends in a provisional id that nothing maps. Any other gh command is the real
# gh's, with the job's token ($CAIRN_OUTBOX_TOKEN), which can read alone: gh issue view reads as
# under cairn run, and a write GitHub refuses.
set -euo pipefail

box=${CAIRN_OUTBOX:?} repo=${CAIRN_OUTBOX_REPO:?}
first=900000000

fail() {
  printf '%s\n' "$2" >&2
  exit "$1"
}

# The real gh: the next one on PATH, with the job's token.
real_gh() {
  local dir self
  if [[ -n ${CAIRN_OUTBOX_TOKEN:-} ]]; then export GH_TOKEN=$CAIRN_OUTBOX_TOKEN; fi
  unset CAIRN_OUTBOX_TOKEN
  self=$(cd -- "${BASH_SOURCE[0]%/*}" && pwd -P)
  IFS=: read -ra dirs <<<"$PATH"
  for dir in "${dirs[@]}"; do
    if [[ -n $dir && -x $dir/gh && $(cd -- "$dir" 2>/dev/null && pwd -P) != "$self" ]]; then exec "$dir/gh" "$@"; fi
  done
  fail 127 "gh: command not found"
}

cmd="${1:-} ${2:-}"
case $cmd in
"issue create") takes=" title body body-file label repo " ;;
"issue edit") takes=" title body body-file add-label remove-label repo " ;;
"issue comment") takes=" body body-file repo " ;;
"label create") takes=" color description force repo " ;;
*) real_gh "$@" ;;
esac
shift 2

declare -A short=([t]=title [b]=body [F]=body-file [l]=label [R]=repo [c]=color [d]=description [f]=force)
declare -A one=()
args=() labels=() add=() remove=()
while (($#)); do
  arg=$1 value='' has=0
  shift
  case $arg in
  --) args+=("$@") && break ;;
  --*=*) name=${arg%%=*} name=${name#--} value=${arg#*=} has=1 ;;
  --*) name=${arg#--} ;;
  -?*)
    name=${short[${arg:1:1}]:-}
    [[ -n $name ]] || fail 2 "unknown shorthand flag: '${arg:1:1}' in $arg"
    if ((${#arg} > 2)); then value=${arg:2} value=${value#=} has=1; fi
    ;;
  *) args+=("$arg") && continue ;;
  esac
  if [[ $takes != *" $name "* ]]; then
    list=${takes:1:-1}
    fail 2 "cairn: gh $cmd in a workflow's session is recorded for the job after it, which takes only --${list// /, --}; not --$name"
  fi
  if [[ $name == force ]]; then
    one[force]=true
    continue
  fi
  if ((!has)); then
    (($#)) || fail 2 "flag needs an argument: --$name"
    value=$1
    shift
  fi
  case $name in
  label) labels+=("$value") ;;
  add-label) add+=("$value") ;;
  remove-label) remove+=("$value") ;;
  body-file)
    if [[ $value == - ]]; then
      one[body]=$(cat && printf x) || fail 1 "read stdin: failed"
    else
      one[body]=$(cat -- "$value" 2>/dev/null && printf x) || fail 1 "open $value: no such file or directory"
    fi
    one[body]=${one[body]%x}
    ;;
  *) one[$name]=$value ;;
  esac
done

# Another repository's issues are not this run's to publish.
if [[ -n ${one[repo]:-} ]]; then
  want=${repo#*://} r=${one[repo]#*://}
  want=${want,,} r=${r,,}
  if [[ $r != "$want" && $r != "${want#*/}" ]]; then
    fail 1 "cairn: a workflow's session publishes to its own repository, ${want#*/}, not to ${one[repo]}"
  fi
fi

exec 9>>"$box/.lock"
flock 9
n=1
while [[ -e $box/$(printf '%04d' "$n").json ]]; do n=$((n + 1)); done
file=$box/$(printf '%04d' "$n").json
created=0
if [[ -f $box/.created ]]; then created=$(<"$box/.created"); fi

# json --argjson extra OBJECT: the call's record: its command, its title
# and body when it gives them, and OBJECT.
json() {
  local has_title=false has_body=false
  if [[ -n ${one[title]+set} ]]; then has_title=true; fi
  if [[ -n ${one[body]+set} ]]; then has_body=true; fi
  jq -n -c --arg op "$cmd" --arg title "${one[title]-}" --argjson has_title "$has_title" \
    --arg body "${one[body]-}" --argjson has_body "$has_body" "$@" \
    '{op: $op} + (if $has_title then {title: $title} else {} end) + (if $has_body then {body: $body} else {} end) + $extra'
}

case $cmd in
"issue create")
  ((${#args[@]} == 0)) || fail 1 "unknown argument \"${args[0]}\"; please quote all values that have spaces"
  [[ -n ${one[title]+set} && -n ${one[body]+set} ]] || fail 1 "must provide \`--title\` and \`--body\` when not running interactively"
  [[ -n ${one[title]// /} ]] || fail 1 "title can't be blank"
  number=$((first + created + 1))
  json --argjson extra "$(jq -n -c --argjson number "$number" '{number: $number, labels: $ARGS.positional}' --args "${labels[@]}")" >"$file"
  printf '%s\n' "$((created + 1))" >"$box/.created"
  printf '%s/issues/%s\n' "$repo" "$number"
  ;;
"issue edit" | "issue comment")
  ((${#args[@]} == 1)) || fail 1 "cairn: gh $cmd in a workflow's session takes one issue"
  issue=${args[0]#"$repo/issues/"} issue=${issue#\#}
  [[ $issue =~ ^[1-9][0-9]*$ ]] || fail 1 "invalid issue format: \"${args[0]}\""
  ;;&
"issue comment")
  [[ -n ${one[body]+set} ]] || fail 2 "\`--body\`, \`--body-file\` or \`--web\` required when not running interactively"
  json --argjson extra "$(jq -n -c --argjson issue "$issue" '{issue: $issue}')" >"$file"
  printf '%s/issues/%s#issuecomment-%s\n' "$repo" "$issue" "$((first + n))"
  ;;
"issue edit")
  [[ -n ${one[title]+set}${one[body]+set} ]] || ((${#add[@]} + ${#remove[@]})) || fail 1 "field to edit flag required when not running interactively"
  json --argjson extra "$(jq -n -c --argjson issue "$issue" --argjson add "$(jq -n -c '$ARGS.positional' --args "${add[@]}")" \
    '{issue: $issue, add_labels: $add, remove_labels: $ARGS.positional}' --args "${remove[@]}")" >"$file"
  printf '%s/issues/%s\n' "$repo" "$issue"
  ;;
"label create")
  ((${#args[@]} == 1)) || fail 1 "accepts 1 arg(s), received ${#args[@]}"
  json --argjson extra "$(jq -n -c --arg name "${args[0]}" --arg color "${one[color]-}" --arg description "${one[description]-}" \
    --argjson force "${one[force]:-false}" '{name: $name, color: $color, description: $description, force: $force}')" >"$file"
  ;;
esac

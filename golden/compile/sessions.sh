#!/usr/bin/env bash
# The values the process file gives (scripts, prompts, env values) are data here: single-quoted,
# their $ and backticks expand only in the shell that runs them.
# shellcheck disable=SC2016
# The cairn process 'sessions', compiled by `cairn compile` from 'sessions.toml'.
# It does what `cairn run` does; compile the process again rather than edit this file.
#
# Usage: SCRIPT [--jobs N] [--directive TEXT]
#   --jobs N          run at most N steps of a parallel group at once (default: all, or $CAIRN_JOBS)
#   --directive TEXT  a directive every session's prompt carries, and commands see as $CAIRN_DIRECTIVE
#
# It works on the git repository holding the current directory, keeps its run in
# ${CAIRN_HOME:-~/.cairn}/runs/PROCESS_TIMESTAMP as cairn run does (run.json, events.jsonl, log,
# results/STEP.md, traces/, shells/, worktrees/NAME.patch), so that cairn status, show and gc read it,
# prints the last stage's results, and exits 0 (succeeded, or skipped: another pass is running),
# 1 (failed) or 130 (interrupted). Ctrl-C or SIGTERM stops the running steps (SIGTERM, then SIGKILL
# after a grace period, or at once on a second signal). What a step leaves running ends with it,
# even in a session of its own: it carries $CAIRN_STEP_TOKEN, which the script looks for in /proc.
# It needs bash 5.1 or later, git, coreutils, util-linux (flock, setsid) and jq, 'claude', 'codex', 'gemini', 'opencode'.
set -euo pipefail
# What the script keeps (its run folder, the activity log, locks, scratch files) is its owner's alone
# whatever the umask: files 0600, folders 0700. What it does for the user (steps, git, the notify
# command) has the umask the script was started with.
user_umask=$(umask)
umask 077

# The process, as `cairn compile` resolved it.
process='sessions'
process_file='sessions.toml'
process_description='One session on each built-in harness, in parallel, each in its own worktree; a judge reads their results'
step_names=('tests' 'hunt-claude' 'hunt-codex' 'hunt-gemini' 'hunt-opencode' 'judge')
step_optional=(0 0 0 0 0 0 )
step_worktrees=('judge' 'claude' 'codex' 'gemini' 'opencode' 'judge' )
step_kinds=('command' 'session' 'session' 'session' 'session' 'session' )
step_harnesses=('' 'claude' 'codex' 'gemini' 'opencode' 'claude' )
step_models=('' 'opus' 'gpt-5-codex' 'gemini-2.5-pro' 'anthropic/claude-sonnet-4-5' 'sonnet' )
step_efforts=('' 'high' 'max' '' 'low' 'medium' )
step_details=('command, worktree judge' 'session, claude opus high, worktree claude' 'session, codex gpt-5-codex max, worktree codex' 'session, gemini gemini-2.5-pro, worktree gemini' 'session, opencode anthropic/claude-sonnet-4-5 low, worktree opencode' 'session, claude sonnet medium, worktree judge' )
worktree_names=('claude' 'codex' 'gemini' 'opencode' 'judge' )
worktree_kinds=('throwaway' 'throwaway' 'throwaway' 'throwaway' 'throwaway' )
worktree_bases=('main' 'main' 'main' 'main' 'main' )
harness_names=('claude' 'codex' 'gemini' 'opencode' )
harness_bins=('claude' 'codex' 'gemini' 'opencode' )
last_stage=(5 )
notify_argv=()
notify_on=()
notify_on_set=0
cairn_excludes=('/.cairn/skills/' '/.cairn-issue.md' '/.cairn/runs/*/.*' '/.cairn/runs/*/events.jsonl')
# The run record (run.json) as cairn run keeps it: the process file (in the repository when its path is
# relative) and its hash, the steps as a run begins them, and how long after its end a run that
# succeeded, or ended otherwise, expires (in microseconds, or never).
record_file='sessions.toml'
process_sha256='7ff36831ade20ecc9754ebfd2795609c64edbff7494a3f7c4a48b914d7b607fa'
run_expiry='2592000000000'
failed_run_expiry='7776000000000'
record_steps='[{"name":"tests","worktree":"judge","parallel":"","optional":false,"outcome":"pending","start":null,"end":null,"actions":[{"kind":"command","harness":"","model":"","effort":"","exit_code":0,"cause":""}],"exit_code":0,"cause":"","result":"","trace":"","git_ref":""},{"name":"hunt-claude","worktree":"claude","parallel":"hunt","optional":false,"outcome":"pending","start":null,"end":null,"actions":[{"kind":"session","harness":"claude","model":"opus","effort":"high","exit_code":0,"cause":""}],"exit_code":0,"cause":"","result":"","trace":"","git_ref":""},{"name":"hunt-codex","worktree":"codex","parallel":"hunt","optional":false,"outcome":"pending","start":null,"end":null,"actions":[{"kind":"session","harness":"codex","model":"gpt-5-codex","effort":"max","exit_code":0,"cause":""}],"exit_code":0,"cause":"","result":"","trace":"","git_ref":""},{"name":"hunt-gemini","worktree":"gemini","parallel":"hunt","optional":false,"outcome":"pending","start":null,"end":null,"actions":[{"kind":"session","harness":"gemini","model":"gemini-2.5-pro","effort":"","exit_code":0,"cause":""}],"exit_code":0,"cause":"","result":"","trace":"","git_ref":""},{"name":"hunt-opencode","worktree":"opencode","parallel":"hunt","optional":false,"outcome":"pending","start":null,"end":null,"actions":[{"kind":"session","harness":"opencode","model":"anthropic/claude-sonnet-4-5","effort":"low","exit_code":0,"cause":""}],"exit_code":0,"cause":"","result":"","trace":"","git_ref":""},{"name":"judge","worktree":"judge","parallel":"","optional":false,"outcome":"pending","start":null,"end":null,"actions":[{"kind":"session","harness":"claude","model":"sonnet","effort":"medium","exit_code":0,"cause":""}],"exit_code":0,"cause":"","result":"","trace":"","git_ref":""}]'
skill_1=$'---\nname: bug-hunt\ndescription: Hunt for real bugs in this repository, or in the part of it the prompt names, and report each one with its file:line, the evidence that it is a bug, and a severity. Read-only - makes no edits. Use for an independent bug sweep whose findings a later step will judge or fix.\n---\n\n# Hunt for bugs\n\nFind bugs that a user of this code would actually hit, prove each one, and report it so that someone who has\nnever seen this session can check it in minutes. You make **no edits**: you do not change, create or delete\nfiles in this repository, and you do not commit. (Scratch files for an experiment go under a temporary\nfolder outside the repository, such as one made by `mktemp -d`, and are deleted afterwards.)\n\n## Scope\n\nHunt where the prompt points: a change, a package, a feature, an issue. With no scope, start where bugs are\nmost likely and most costly: recently changed code (`git log --stat -20`), code that parses input, handles\nerrors, touches files, money, auth or concurrency, and code with few tests.\n\n## How to hunt\n\nRead the code as its callers use it. For each function that matters, ask what happens when:\n\n- an input is empty, zero, negative, huge, not UTF-8, or contains the separator, a quote or `..`;\n- a call fails: is the error checked, passed on with its context, or silently dropped? is cleanup still done?\n- a loop or slice is at its edges: off-by-one, an empty collection, the last element;\n- a value is nil or missing: maps, pointers, optional fields, a key absent from a config;\n- two things run at once: shared state without a lock, check-then-act races, a goroutine or task that never\n  ends, a channel that is never closed;\n- resources are opened: files, processes, connections, locks - are they closed on every path?\n- untrusted data reaches a shell, a query, a path or a template: injection, path traversal;\n- the code and its documentation or tests disagree: which one is right?\n\nFollow a suspicious value from where it enters to where it is used. Read the callers before you call a\nfunction wrong: a check may already happen one level up.\n\n## Prove it\n\nA finding needs evidence, not a hunch:\n\n- the exact input or sequence of calls that triggers it;\n- the code path it takes (file:line for each hop that matters);\n- what happens, and what should happen instead.\n\nWhere you can, confirm it: run an existing test, run the program on a crafted input, or write a throwaway\ntest **outside** the repository. Mark each finding `confirmed` (you saw it happen) or `likely` (you traced it\nby reading). Drop anything you cannot support.\n\n## What is not a finding\n\nStyle, naming, formatting, missing comments, "could be faster" without a measured problem, "consider adding a\ntest", and hypothetical failures with no path from a real input. Report a design concern only when it leads\nto a concrete wrong result.\n\n## Severity\n\n- **critical**: data loss or corruption, a security hole, or a crash on a common path.\n- **high**: a wrong result or crash that users will hit in normal use.\n- **medium**: a wrong result or crash under unusual but realistic inputs or timing.\n- **low**: a real but minor defect: a misleading error message, a leak in a short-lived process.\n\n## Report\n\nYour final message is the report, most severe first, in this form:\n\n```\n## 1. <what goes wrong, in one line>\n- Location: path/to/file.go:123 (other places involved: path/to/other.go:45)\n- Severity: high\n- Confidence: confirmed\n- Evidence: <the triggering input, the path through the code, what happens vs. what should happen>\n- Reproduce: <a command or a test, when you have one>\n- Fix direction: <one sentence; do not write the patch>\n```\n\nAfter the findings, one short paragraph on what you covered and what you did not, so a reader knows where\nelse to look. If you found no bugs, say "No bugs found." and describe what you covered.\n'
skill_2=$'---\nname: triage\ndescription: Sort the inbox into bugs, questions and noise.\n---\nRead every file in inbox/ and sort it: a bug (with a reproduction), a question\n(with the answer if you know it), or noise. Write the result to triage.md.\n'

# How long a stopped step has between SIGTERM and SIGKILL, in seconds.
grace=5
# The exit status with which a precheck shell skips its step.
check_skip=77

usage() {
  printf 'usage: %s [--jobs N] [--directive TEXT]\n' "${0##*/}"
  printf 'runs the cairn process "%s" of %s\n' "$process" "$process_file"
  if [[ -n $process_description ]]; then printf '%s\n' "$process_description"; fi
}

# fail MESSAGE: the script cannot go on; nothing of the process ran.
fail() {
  printf 'cairn: error: %s\n' "$1" >&2
  exit 1
}

# usage_error MESSAGE: a command line the script cannot take (exit 2).
usage_error() {
  printf 'cairn: error: %s\n' "$1" >&2
  usage >&2
  exit 2
}

jobs=${CAIRN_JOBS:-0}
directive=
while (($#)); do
  case $1 in
  --jobs | --directive)
    (($# >= 2)) || usage_error "$1 needs a value"
    if [[ $1 == --jobs ]]; then jobs=$2; else directive=$2; fi
    shift 2
    ;;
  --jobs=*) jobs=${1#*=} && shift ;;
  --directive=*) directive=${1#*=} && shift ;;
  -h | --help) usage && exit 0 ;;
  *) usage_error "unexpected argument \"$1\"" ;;
  esac
done
[[ $jobs =~ ^[0-9]+$ ]] || usage_error "--jobs $jobs: want 0 (all at once) or more"
jobs=$((10#$jobs))

if ((BASH_VERSINFO[0] < 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] < 1))); then
  fail "bash $BASH_VERSION is too old: the script needs bash 5.1 or later"
fi
for tool in git jq flock setsid timeout env sha256sum mktemp mkfifo tee; do
  command -v "$tool" >/dev/null || fail "\"$tool\" not found on PATH: the script needs git, coreutils, util-linux and jq"
done
bash_bin=$(command -v bash)
env_bin=$(command -v env)
setsid_bin=$(command -v setsid)
timeout_bin=$(command -v timeout)
# Every agent CLI the process calls must be there before the first step.
for i in "${!harness_names[@]}"; do
  command -v "${harness_bins[i]}" >/dev/null ||
    fail "harness \"${harness_names[i]}\" cannot start: \"${harness_bins[i]}\" not found on PATH"
done

# directive_trim is the directive as a session's prompt carries it, without
# the blank space around it.
directive_trim=$directive
while [[ $directive_trim == [$' \t\n\v\f\r']* ]]; do directive_trim=${directive_trim:1}; done
while [[ $directive_trim == *[$' \t\n\v\f\r'] ]]; do directive_trim=${directive_trim::-1}; done

# now_us sets now to the time in microseconds.
now_us() {
  now=${EPOCHREALTIME//[!0-9]/}
}

# iso_time US sets REPLY to the time US (microseconds since the epoch) as
# the run record writes a time: RFC 3339 in UTC.
iso_time() {
  local us
  printf -v us '%06d' "$(($1 % 1000000))"
  TZ=UTC printf -v REPLY '%(%Y-%m-%dT%H:%M:%S)T.%sZ' "$(($1 / 1000000))" "$us"
}

# say MESSAGE: one line of progress on stderr.
say() {
  printf '%(%H:%M:%S)T %s\n' -1 "$1" >&2
}

# warn MESSAGE: a problem that does not change how the run ends.
warn() {
  say "cairn: warning: $1"
}

# duration US sets REPLY to US microseconds as cairn shows a duration: 12ms,
# 1.2s, 45s, 1m30s.
duration() {
  local us=$1 ms ds s m h
  if ((us <= 0)); then
    REPLY=0s
  elif ((us < 1000000)); then
    ms=$(((us + 500) / 1000))
    if ((ms >= 1000)); then REPLY=1s; elif ((ms == 0)); then REPLY=0s; else REPLY=${ms}ms; fi
  elif ((us < 10000000)); then
    ds=$(((us + 50000) / 100000))
    if ((ds % 10)); then REPLY=$((ds / 10)).$((ds % 10))s; else REPLY=$((ds / 10))s; fi
  else
    s=$(((us + 500000) / 1000000))
    h=$((s / 3600)) m=$((s % 3600 / 60)) s=$((s % 60))
    if ((h)); then REPLY=${h}h${m}m${s}s; elif ((m)); then REPLY=${m}m${s}s; else REPLY=${s}s; fi
  fi
}

# go_quote VALUE sets REPLY to VALUE in double quotes, escaped as Go's %q
# escapes it.
go_quote() {
  local v=$1 out='' c i
  v=${v//\\/\\\\}
  v=${v//\"/\\\"}
  v=${v//$'\n'/\\n}
  v=${v//$'\t'/\\t}
  v=${v//$'\r'/\\r}
  v=${v//$'\a'/\\a}
  v=${v//$'\b'/\\b}
  v=${v//$'\f'/\\f}
  v=${v//$'\v'/\\v}
  if [[ $v == *[[:cntrl:]]* ]]; then
    for ((i = 0; i < ${#v}; i++)); do
      c=${v:i:1}
      if [[ $c == [[:cntrl:]] ]]; then printf -v c '\\x%02x' "'$c"; fi
      out+=$c
    done
    v=$out
  fi
  REPLY=\"$v\"
}

# logfmt KEY VALUE...: sets REPLY to the pairs as a logfmt line: "-" for an
# empty value, a value with a blank, a quote, an "=" or a control character
# quoted.
logfmt() {
  local line='' v
  while (($# >= 2)); do
    v=$2
    if [[ -z $v ]]; then
      v=-
    elif [[ $v == *[\ \"=\\[:cntrl:]]* ]]; then
      go_quote "$v"
      v=$REPLY
    fi
    line+=${line:+ }$1=$v
    shift 2
  done
  REPLY=$line
}

# activity FIELD...: one line of $CAIRN_HOME/activity.log, as cairn writes it.
activity() {
  local -a kv=()
  local f
  for f in "$@"; do kv+=("${f%%=*}" "${f#*=}"); done
  logfmt "${kv[@]}"
  TZ=UTC printf '%(%Y-%m-%dT%H:%M:%SZ)T %s\n' -1 "$REPLY" >>"$home/activity.log" 2>/dev/null ||
    warn "cannot write the activity log $home/activity.log"
}

# record_failed WHAT: a write to the run record failed; a run whose record
# may lack part of what happened does not end succeeded.
record_failed() {
  warn "$1 failed"
  : >"$tmp/record.failed"
}

# record_write JQ_ARG...: run.json made anew by jq (from the record so far,
# on stdin, when it reads one), through a file renamed over it: a reader
# sees the old record or the new one, never part.
record_write() {
  local new=$run/.run.json.new
  if jq "$@" >"$new" && mv -f -- "$new" "$run/run.json"; then return 0; fi
  rm -f -- "$new"
  record_failed "write the run record $run/run.json"
  return 1
}

# record_event JSON: one line of events.jsonl, appended whole under the
# file's lock: the steps of a parallel group end at once.
record_event() {
  { flock 9 && printf '%s\n' "$1" >&9; } 9>>"$run/events.jsonl" || record_failed "write the run's events"
}

# A step's event, {time, step}: its pending record (steps.json) with how it
# stands now; the exit code and cause of each action that ran come in pairs
# as the positional arguments.
jq_step='
{time: $time, step: ($steps[0][$i]
  + {outcome: $outcome, start: $start, "end": $ended, exit_code: $exit, cause: $cause, result: $result, trace: $trace}
  | .actions |= [to_entries[] | .key as $k | .value
      + (if 2 * $k + 1 < ($ARGS.positional | length)
         then {exit_code: ($ARGS.positional[2 * $k] | tonumber), cause: $ARGS.positional[2 * $k + 1]}
         else {} end)]
  | if $vstatus == "" then .
    else .validate = ({status: $vstatus} + (if $verror == "" then {} else {error: $verror} end) + {judges: 0, retries: 0}) end
  | if $shells == [] then . else .shells = $shells end)}'

# step_record INDEX OUTCOME START END EXIT CAUSE TRACE VSTATUS VERROR [EXIT CAUSE]...:
# the step's record as it stands, as an event: its outcome, start and end
# (in microseconds; empty for none), exit code, cause and trace, its result
# once one was written, its validate phase's status (pass or fail; empty
# when it did not run) and first failure, the precheck and validate shells
# it ran, and the exit code and cause of each action that ran.
step_record() {
  local i=$1 start=null end=null result='' line shells=$tmp/shells.${step_names[$1]}
  if [[ -n $3 ]]; then iso_time "$3" && start=\"$REPLY\"; fi
  if [[ -n $4 ]]; then iso_time "$4" && end=\"$REPLY\"; fi
  if [[ -e $tmp/wrote.${step_names[i]} ]]; then result=results/${step_names[i]}.md; fi
  if [[ ! -e $shells ]]; then shells=/dev/null; fi
  now_us
  iso_time "$now"
  if line=$(jq -n -c --slurpfile steps "$tmp/steps.json" --slurpfile shells "$shells" --argjson i "$i" --arg time "$REPLY" \
    --arg outcome "$2" --argjson start "$start" --argjson ended "$end" --argjson exit "$5" --arg cause "$6" \
    --arg result "$result" --arg trace "$7" --arg vstatus "$8" --arg verror "$9" --args "$jq_step" "${@:10}"); then
    record_event "$line"
  else
    record_failed "record step \"${step_names[i]}\""
  fi
}

# step_event END: the record of the step this job runs, ended at END
# (microseconds) or, with none, running.
step_event() {
  step_record "$step_index" "${step_outcome:-running}" "$step_t0" "$1" "$step_rc" "$step_cause" "$record_trace" \
    "$validate_status" "$validate_error" "${action_results[@]}"
}

# record_begin: the run's first record, as cairn run begins it: running,
# every step pending, and no events yet.
record_begin() {
  if [[ $record_file != /* ]]; then record_file=$repo_root/$record_file; fi
  printf '%s\n' "$record_steps" >"$tmp/steps.json"
  : >"$run/events.jsonl"
  iso_time "$run_t0"
  record_write -n --slurpfile steps "$tmp/steps.json" --arg process "$process" --arg file "$record_file" \
    --arg sha256 "$process_sha256" --arg repo "$common_dir" --arg directive "$directive" --argjson jobs "$jobs" \
    --arg host "$HOSTNAME" --argjson pid "$$" --arg start "$REPLY" '{
  version: 1, process: $process, file: $file, sha256: $sha256, repo: $repo, issue: "", directive: $directive,
  flags: {harness: "", model: "", effort: "", access: "", jobs: $jobs, merge: false, repair_cap: 0, protect: [], take_over: false},
  status: "running", cause: "", host: $host, pid: $pid, start: $start, "end": null, expires: "", worktrees: [], steps: $steps[0]}' ||
    true
  record_begun=1
}

# record_worktrees: the run's worktrees as they were opened, in the record.
record_worktrees() {
  local i name
  local -a args=()
  for i in "${!worktree_names[@]}"; do
    name=${worktree_names[i]}
    args+=("$name" "${worktree_kinds[i]}" "${worktree_path[$name]}" "${worktree_base[$name]}")
  done
  record_write --args '.worktrees = [$ARGS.positional as $a | range(0; $a | length; 4)
    | {name: $a[.], kind: $a[. + 1], path: $a[. + 2], base: $a[. + 3]}]' "${args[@]}" <"$run/run.json" || true
}

# record_end STATUS CAUSE: the run's final record: its events applied, its
# status, end and expiry (an RFC 3339 date, or never), why it failed when
# no step says it, and events.jsonl emptied; then the run folder's lock is
# given back.
record_end() {
  local expires=$failed_run_expiry rc=0
  if [[ $1 == succeeded ]]; then expires=$run_expiry; fi
  now_us
  if [[ $expires != never ]]; then TZ=UTC printf -v expires '%(%Y-%m-%dT%H:%M:%SZ)T' "$(((now + expires) / 1000000))"; fi
  iso_time "$now"
  if record_write --slurpfile events "$run/events.jsonl" --arg status "$1" --arg ended "$REPLY" --arg expires "$expires" \
    --arg cause "${2:-}" '
    reduce ($events[] | .step // empty) as $s (.;
      (.steps | map(.name) | index($s.name)) as $j
      | if $j == null then .steps += [$s] else .steps[$j] = $s end)
    | .status = $status | .cause = $cause | ."end" = $ended | .expires = $expires' <"$run/run.json"; then
    : >"$run/events.jsonl" || rc=1
  else
    rc=1
  fi
  record_ended=1
  exec {run_lock_fd}>&-
  return "$rc"
}

# log_step INDEX OUTCOME US CAUSE: the step's line in the run's log.
log_step() {
  local i=$1
  duration "$3"
  logfmt step "${step_names[i]}" kind "${step_kinds[i]}" worktree "${step_worktrees[i]}" \
    harness "${step_harnesses[i]}" model "${step_models[i]}" effort "${step_efforts[i]}" \
    duration "$REPLY" outcome "$2" ${4:+cause "$4"}
  printf '%s\n' "$REPLY" >>"$run/log"
}

# say_end INDEX OUTCOME US CAUSE: the progress line of a step's end, with
# the shell that failed the step shown under it; an optional step's failure
# says it was optional, lest a reader take the run for failed.
say_end() {
  local name=${step_names[$1]} msg
  if [[ $2 == failed ]] && ((step_optional[$1])); then name+=" (optional)"; fi
  case $2 in
  succeeded) duration "$3" && msg="done $name $REPLY" ;;
  *) msg="$2 $name${4:+: $4}" ;;
  esac
  if [[ -e $tmp/shown.${step_names[$1]} && ! -e $tmp/interrupted ]]; then
    shell_json=$(<"$tmp/shown.${step_names[$1]}")
    shell_lines "$msg"
  else
    say "$msg"
  fi
}

# cancel_step INDEX: a step that never started.
cancel_step() {
  log_step "$1" cancelled 0 ""
  say_end "$1" cancelled 0 ""
  step_record "$1" cancelled '' '' 0 '' '' '' ''
}

# git_in DIR ARG...: git in DIR, with the user's umask. Ctrl-C at the
# terminal does not cut it short: the script stops at the next step instead,
# and the worktrees and patches git is making are left whole.
git_in() {
  local dir=$1
  shift
  (
    trap '' INT
    umask "$user_umask"
    exec git -C "$dir" "$@"
  )
}

# exclude_cairn_files DIR: cairn's own files (copied skills, the issue, run
# locks) are excluded from git in the repository or worktree at DIR, so that
# they never make a tree dirty nor get committed.
exclude_cairn_files() {
  local path pattern line missing=()
  path=$(git_in "$1" rev-parse --path-format=absolute --git-path info/exclude) || return 1
  (
    # The exclude file is the repository's: the user's umask.
    umask "$user_umask"
    mkdir -p -- "${path%/*}" || exit 1
    flock 9
    declare -A present=()
    if [[ -f $path ]]; then
      while IFS= read -r line || [[ -n $line ]]; do
        line=${line#"${line%%[![:space:]]*}"}
        line=${line%"${line##*[![:space:]]}"}
        present[$line]=1
      done <"$path"
    fi
    for pattern in "${cairn_excludes[@]}"; do
      [[ -n ${present[$pattern]:-} ]] || missing+=("$pattern")
    done
    ((${#missing[@]})) || exit 0
    local sep=''
    if [[ -s $path && $(tail -c 1 -- "$path") != '' ]]; then sep=$'\n'; fi
    printf '%s%s\n' "$sep" "# cairn's own files: copied skills, the issue, run locks" >>"$path"
    printf '%s\n' "${missing[@]}" >>"$path"
  ) 9>>"$tmp/exclude.lock"
}

# resolve_base NAME BASE: sets base_sha to the commit worktree NAME starts
# from, resolved once and locally (never fetched): a local branch BASE, else
# origin's, else whatever git makes of BASE; HEAD when BASE is empty.
resolve_base() {
  local name=$1 base=$2 c q b
  local -a candidates=(HEAD)
  if [[ -n $base && $base != HEAD ]]; then candidates=("refs/heads/$base" "refs/remotes/origin/$base" "$base"); fi
  for c in "${candidates[@]}"; do
    if base_sha=$(git_in "$repo_root" rev-parse -q --verify "$c^{commit}" 2>/dev/null); then return 0; fi
  done
  go_quote "$name"
  q=$REPLY
  if ! git_in "$repo_root" rev-parse -q --verify 'HEAD^{commit}' >/dev/null 2>&1; then
    open_error="resolve the base of worktree $q: the repository at $repo_root has no commits yet; cairn starts worktrees from a commit, so commit something first"
  else
    go_quote "$base"
    b=$REPLY
    go_quote "origin/$base"
    open_error="resolve the base of worktree $q: branch $b is neither a local branch nor $REPLY (cairn never fetches)"
  fi
  return 1
}

# check_clean NAME: refuses a checkout worktree whose working tree has
# uncommitted changes, tracked or not.
check_clean() {
  local e n=0 list='' more
  exclude_cairn_files "$repo_root" || {
    open_error="checkout worktree \"$1\": cannot exclude cairn's files from git"
    return 1
  }
  git_in "$repo_root" status --porcelain -z --untracked-files=normal >"$tmp/status" || {
    open_error="checkout worktree \"$1\": git status failed"
    return 1
  }
  local skip=0
  while IFS= read -r -d '' e; do
    if ((skip)); then skip=0 && continue; fi
    ((${#e} >= 4)) || continue
    n=$((n + 1))
    if ((n <= 5)); then
      go_quote "${e:3}"
      list+=${list:+, }$REPLY
    fi
    if [[ ${e:0:1} == [RC] ]]; then skip=1; fi
  done <"$tmp/status"
  ((n)) || return 0
  more=''
  if ((n > 5)); then more=" and $((n - 5)) more"; fi
  open_error="checkout worktree \"$1\": the working tree at $repo_root has uncommitted changes ($list$more); commit or stash them first"
  return 1
}

# open_worktrees: the run's worktrees, before the first step: checkouts in
# place (refused when dirty), throwaways detached at their base, added one
# after another under the repository's worktree lock.
open_worktrees() {
  local i name kind sha path
  declare -gA worktree_path=() worktree_base=()
  for i in "${!worktree_names[@]}"; do
    name=${worktree_names[i]} kind=${worktree_kinds[i]}
    if [[ $kind == checkout ]]; then
      sha=$(git_in "$repo_root" rev-parse -q --verify 'HEAD^{commit}' 2>/dev/null) || sha=
      check_clean "$name" || return 1
      worktree_path[$name]=$repo_root
    else
      resolve_base "$name" "${worktree_bases[i]}" || return 1
      sha=$base_sha
    fi
    worktree_base[$name]=$sha
  done
  for i in "${!worktree_names[@]}"; do
    [[ ${worktree_kinds[i]} == throwaway ]] || continue
    if [[ -z $worktree_root ]]; then
      mkdir -p -- "$home/worktrees/$run_name"
      worktree_root=$(cd -- "$home/worktrees/$run_name" && pwd -P)
      exec {worktree_fd}>>"$worktree_lock"
      flock "$worktree_fd"
    fi
    name=${worktree_names[i]}
    path=$worktree_root/$name
    if ! mkdir -m 700 -- "$path" || ! git_in "$repo_root" worktree add --quiet --detach "$path" "${worktree_base[$name]}" 2>"$tmp/git.err"; then
      open_error="create worktree \"$name\": git worktree add: $(head -n 1 "$tmp/git.err" 2>/dev/null)"
      rmdir -- "$path" 2>/dev/null || true
      exec {worktree_fd}>&-
      worktree_fd=
      return 1
    fi
    worktree_path[$name]=$path
    throwaways+=("$name")
  done
  if [[ -n $worktree_fd ]]; then exec {worktree_fd}>&-; fi
  worktree_fd=
}

# save_patch NAME: the changes of throwaway worktree NAME since its base —
# commits, tracked and untracked files, binary ones too — as
# worktrees/NAME.patch in the run folder (no file when nothing changed).
save_patch() {
  local name=$1 path=${worktree_path[$1]} gitdir index=$tmp/index.$1 patch=$tmp/patch.$1
  [[ -e $path ]] || return 0
  gitdir=$(sed -n 's/^gitdir: //p' "$path/.git" 2>/dev/null) || gitdir=
  if [[ -n $gitdir && $gitdir != /* ]]; then gitdir=$path/$gitdir; fi
  rm -f -- "$index"
  if [[ -n $gitdir ]]; then cp -- "$gitdir/index" "$index" 2>/dev/null || true; fi
  GIT_INDEX_FILE=$index git_in "$path" add --all || return 1
  GIT_INDEX_FILE=$index git_in "$path" diff --cached --binary --no-color --no-ext-diff --no-textconv \
    --no-relative --submodule=short --src-prefix=a/ --dst-prefix=b/ "${worktree_base[$name]}" -- >"$patch" || return 1
  if [[ -s $patch ]]; then mv -f -- "$patch" "$run/worktrees/$name.patch"; fi
}

# close_worktrees: the throwaway worktrees end whatever happened: each one's
# changes are saved as a patch, then it is removed. One whose changes could
# not be saved is left in place, and the warning names its path.
close_worktrees() {
  local name fd
  local -a done=()
  ((${#throwaways[@]})) || return 0
  for name in "${throwaways[@]}"; do
    if save_patch "$name"; then
      done+=("$name")
    else
      warn "save the changes of worktree \"$name\" failed; it is left at ${worktree_path[$name]}"
    fi
  done
  throwaways=()
  exec {fd}>>"$worktree_lock"
  flock "$fd"
  for name in "${done[@]}"; do
    git_in "$repo_root" worktree remove --force "${worktree_path[$name]}" 2>/dev/null ||
      rm -rf -- "${worktree_path[$name]}"
  done
  git_in "$repo_root" worktree prune || warn "git worktree prune failed"
  exec {fd}>&-
  rmdir -- "$worktree_root" 2>/dev/null || true
}

# install_skill NAME BODY: a home or built-in skill copied into the step's
# worktree as .cairn/skills/NAME/SKILL.md, excluded from git; sets
# skill_path. A symlink on the way is refused.
install_skill() {
  local dir=$step_dir e tmpf=''
  exclude_cairn_files "$step_dir" || {
    skill_error="install skill \"$1\" in worktree \"${step_worktrees[step_index]}\": cannot exclude cairn's files from git"
    return 1
  }
  for e in .cairn skills "$1"; do
    dir=$dir/$e
    if [[ -L $dir ]]; then
      skill_error="install skill \"$1\" in worktree \"${step_worktrees[step_index]}\": $dir is a symlink; refusing to write through it"
      return 1
    fi
    (umask "$user_umask" && mkdir -p -- "$dir") 2>/dev/null || true
    if [[ ! -d $dir ]]; then
      skill_error="install skill \"$1\" in worktree \"${step_worktrees[step_index]}\": $dir is not a folder"
      return 1
    fi
  done
  if tmpf=$(mktemp "$dir/.SKILL.md-XXXXXX") && printf '%s' "$2" >"$tmpf" && chmod 644 "$tmpf" &&
    mv -fT -- "$tmpf" "$dir/SKILL.md"; then
    skill_path=$dir/SKILL.md
    return 0
  fi
  rm -f -- "$tmpf"
  skill_error="install skill \"$1\" in worktree \"${step_worktrees[step_index]}\": cannot write $dir/SKILL.md"
  return 1
}

# step_start INDEX: what a step's job starts with: its files, its worktree,
# its environment (§7.1).
step_start() {
  step_index=$1
  step=${step_names[step_index]}
  step_dir=${worktree_path[${step_worktrees[step_index]}]:-}
  step_result=$run/results/$step.md
  step_outcome='' step_cause='' step_timeout=0 step_timeout_text=''
  # What the step's record says besides its outcome: its exit code, its
  # trace, its validate phase, and each action's exit code and cause.
  step_rc=0 record_trace='' validate_status='' validate_error=''
  action_results=()
  # How many shells each phase ran, and the record of the last one.
  precheck_shells=0 validate_shells=0 shell_json='' shell_lost=
  now_us
  step_t0=$now
  printf '%s\n' "$step_t0" >"$tmp/start.$step"
  step_env=(
    "CAIRN_RUN=$run" "CAIRN_RESULTS=$run/results" "CAIRN_RESULT=$step_result" "CAIRN_STEP=$step"
    "CAIRN_WORKTREE=$step_dir" "CAIRN_DIRECTIVE=$directive" "CHECK_SKIP=$check_skip"
    "CAIRN_STEP_TOKEN=$run_token-$step_index"
  )
  say "start $step (${step_details[step_index]})"
  step_event ''
  if [[ -z $step_dir ]]; then
    step_outcome=failed step_rc=-1 step_cause="worktree \"${step_worktrees[step_index]}\" was not created"
  fi
}

# action_end EXIT CAUSE: how an action of the step ended, for its record.
action_end() {
  action_results+=("$1" "$2")
}

# step_going: the step has not ended yet.
step_going() {
  [[ -z $step_outcome ]]
}

# run_proc IN OUT ERR ARGV...: ARGV in the step's worktree with the step's
# environment and the user's umask, in a session of its own (stopping its
# process group stops all it started), under the step's timeout; stdin from
# IN, stdout to OUT, stderr to ERR (to OUT when ERR is empty). Whatever it
# leaves running when it ends is ended with it. Sets proc_rc, proc_timed_out,
# proc_cause and proc_exit, its exit code as the run record has it: -1 for
# one its timeout or a stop killed.
run_proc() {
  local in=$1 out=$2 err=$3 pid t0 rc=0
  shift 3
  local -a timer=()
  if ((step_timeout > 0)); then timer=("$timeout_bin" -k "${grace}s" "${step_timeout}s"); fi
  proc_rc=0 proc_timed_out=0 proc_cause='' proc_exit=0
  now_us
  t0=$now
  if [[ -n $err ]]; then
    proc_start "$@" <"$in" >"$out" 2>"$err" {pass_fd}>&- {run_lock_fd}>&- &
  else
    proc_start "$@" <"$in" >"$out" 2>&1 {pass_fd}>&- {run_lock_fd}>&- &
  fi
  pid=$!
  printf '%s\n' "$pid" >"$tmp/pgid.$step"
  # An interrupt that came as it started finds no group to stop: stop it here.
  if [[ -e $tmp/interrupted ]]; then kill -TERM -- "-$pid" 2>/dev/null || true; fi
  # bash would say on stderr that a step it was waiting for was killed: the
  # step's outcome says it.
  { wait "$pid"; } 2>/dev/null || rc=$?
  # Its group outlives it when it left children behind (cmd &): they end
  # now, and so do those that left the group (setsid cmd &).
  kill -KILL -- "-$pid" 2>/dev/null || true
  end_strays "$run_token-$step_index"
  rm -f -- "$tmp/pgid.$step"
  now_us
  proc_rc=$rc proc_exit=$rc
  if ((step_timeout > 0 && (rc == 124 || rc == 137) && now - t0 >= step_timeout * 1000000)); then
    proc_timed_out=1 proc_exit=-1 proc_cause="timed out after $step_timeout_text"
  elif ((rc != 0)) && [[ -e $tmp/interrupted ]]; then
    proc_cause=stopped
    if ((rc > 128)); then proc_exit=-1; fi
  elif ((rc != 0)); then
    proc_cause="exit status $rc"
  fi
}

# proc_start ARGV...: run_proc's job: ARGV in the step's worktree, with the
# signals the step's job ignores back to their defaults.
proc_start() {
  trap - INT TERM
  umask "$user_umask"
  cd -- "$step_dir" || exit 1
  exec "$setsid_bin" -w "${timer[@]}" "$env_bin" -u CAIRN_ISSUE_URL "${step_env[@]}" "$@"
}

# end_strays TOKEN: every process that carries CAIRN_STEP_TOKEN=TOKEN (an
# extended regular expression) in its environment is SIGKILLed: what a step
# started, wherever it went, even to a session of its own. One that cleared
# its environment is out of reach.
end_strays() {
  local f found
  [[ -d /proc/self ]] || return 0
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    found=0
    while IFS= read -r f; do
      f=${f#/proc/}
      kill -KILL "${f%/environ}" 2>/dev/null && found=1
    done < <(grep -lzE -- "^CAIRN_STEP_TOKEN=($1)\$" /proc/[0-9]*/environ 2>/dev/null)
    # Those killed are gone from the next look; one that forked meanwhile is not.
    ((found)) || return 0
  done
  warn "what a step left running still starts processes after 10 rounds of SIGKILL"
}

# run_shell SCRIPT: SCRIPT as `bash -euo pipefail -c SCRIPT`, its stdout and
# stderr together in $tmp/out.STEP.
run_shell() {
  run_proc /dev/null "$tmp/out.$step" '' "$bash_bin" -euo pipefail -c "$1"
}

# The lines that show a failed shell under its step (templates.ShellLines),
# from its record: what failed, the last lines it wrote, where its streams
# are kept.
jq_shell_lines='
("\(.phase) shell \(.shell)" + (if .round > 1 then " (round \(.round))" else "" end)
  + (if (.cause // "") != "" then ": " + .cause else "" end)) as $what
| ((.tail // "") | if . == "" then [] else split("\n") end) as $t
| (if .lines == 0 or ($t | length) == 0 then $what + "; it wrote nothing"
   elif ($t | length) >= .lines then $what + "; its output:"
   else "\($what); the last \($t | length) of its \(.lines) lines of output:" end),
  ($t[] | "| " + .),
  "stdout  " + (if .stdout == "" then "" else $run + "/" + .stdout end),
  "stderr  " + (if .stderr == "" then "" else $run + "/" + .stderr end)'

# shell_lines MESSAGE: MESSAGE on stderr as say writes it, the failed
# shell of shell_json shown under it, in one write.
shell_lines() {
  local line text
  printf -v text '%(%H:%M:%S)T %s\n' -1 "$1"
  if [[ -n $shell_json ]]; then
    while IFS= read -r line; do
      text+="           $line"$'\n'
    done < <(jq -r --arg run "$run" "$jq_shell_lines" <<<"$shell_json")
  fi
  printf '%s' "$text" >&2
}

# The end of a failed shell's output as its record keeps it (cairn run's
# outputTail): its last 10 lines, each what a terminal would show of it
# (the text after its last carriage return, escape sequences and other
# control characters removed, tabs as four spaces, invalid UTF-8 as U+FFFD)
# cut to 200 characters. One pass over each line's characters, which stops
# once 200 are kept (jq's gsub takes quadratic time). jq reads each invalid
# byte as a U+FFFD where Go reads a run of them as one: a run of U+FFFD
# counts as one.
jq_tail='
def printable:
  explode
  | if .[-1] == 13 then .[:-1] else . end
  | ((.[[13]] | last) // -1) as $cr
  | label $done
  | foreach (.[$cr + 1:][], null) as $c ([0, 0, []];
      if $c == null or (.[1] == 65533 and $c == 65533) then .
      elif .[0] == 0 then
        if $c == 27 then [1, $c, .[2]]
        elif $c == 9 then [0, $c, .[2] + [32, 32, 32, 32]]
        elif $c < 32 or ($c >= 127 and $c < 160) then [0, $c, .[2]]
        else [0, $c, .[2] + [$c]] end
      elif .[0] == 1 then [if $c == 91 then 2 elif $c == 93 then 3 else 0 end, $c, .[2]]
      elif .[0] == 2 then [if $c >= 64 and $c <= 126 then 0 else 2 end, $c, .[2]]
      elif .[0] == 3 then [if $c == 7 then 0 elif $c == 27 then 4 else 3 end, $c, .[2]]
      else [if $c == 92 or $c == 7 then 0 elif $c == 27 then 4 else 3 end, $c, .[2]] end;
      if $c == null or (.[2] | length) > 200 then (.[2], break $done) else empty end)
  | if length > 200 then .[:199] + [8230] else . end | implode;
$out | rtrimstr("\n") | if . == "" then "" else split("\n") | .[-10:] | map(printable) | join("\n") end'

# A shell's record ({phase, shell, round, status, exit_code, cause, stdout,
# stderr, lines, tail}), from the arguments kept_shell gives it.
jq_shell='
{phase: $phase, shell: $shell, round: 1, status: $status, exit_code: $exit}
+ (if $cause == "" then {} else {cause: $cause} end)
+ {stdout: $stdout, stderr: $stderr, lines: $lines}
+ (if $status != "fail" then {} else ('"$jq_tail"') as $t | if $t == "" then {} else {tail: $t} end end)'

# count_lines FILE: sets REPLY to how many lines FILE holds, a last one
# without its newline too.
count_lines() {
  REPLY=$(wc -l <"$1")
  if [[ -s $1 && $(tail -c 1 -- "$1" | wc -l) == 0 ]]; then REPLY=$((REPLY + 1)); fi
}

# kept_shell PHASE SCRIPT: a precheck or validate shell, run as run_shell
# runs it (its stdout and stderr together in $tmp/out.STEP), its stdout and
# stderr also kept in the run folder as shells/STEP.PHASE.N.stdout and
# .stderr, N the first number free for both, and its record appended to the
# step's shells. Sets shell_json to the record, shell_lost to why the output
# could not be kept (the shell did not run when its files could not be
# created), and the proc_ variables as run_proc does.
kept_shell() {
  local phase=$1 n=1 base='' out err fo=$tmp/fifo.out.$step fe=$tmp/fifo.err.$step pid_o pid_e rc_o=0 rc_e=0
  local status=fail lines=0 what
  if [[ $phase == precheck ]]; then
    precheck_shells=$((precheck_shells + 1)) && what="precheck shell $precheck_shells"
  else
    validate_shells=$((validate_shells + 1)) && what="validate shell $validate_shells"
  fi
  shell_lost=''
  mkdir -p -- "$run/shells" 2>/dev/null || true
  while [[ -e $run/shells/$step.$phase.$n.stdout || -e $run/shells/$step.$phase.$n.stderr ]]; do n=$((n + 1)); done
  out=$run/shells/$step.$phase.$n.stdout err=$run/shells/$step.$phase.$n.stderr
  : >"$tmp/out.$step"
  if ! { : >"$out" && : >"$err"; } 2>/dev/null; then
    rm -f -- "$out" "$err"
    proc_rc=1 proc_timed_out=0 proc_exit=-1 proc_cause="record the output of $what: cannot create $out"
    shell_lost=$proc_cause
  else
    base=shells/$step.$phase.$n
    rm -f -- "$fo" "$fe"
    mkfifo -- "$fo" "$fe"
    # Each stream to its file and, as cairn run keeps them, to both
    # together, in the order they came.
    tee -a -- "$tmp/out.$step" <"$fo" >"$out" 2>/dev/null &
    pid_o=$!
    tee -a -- "$tmp/out.$step" <"$fe" >"$err" 2>/dev/null &
    pid_e=$!
    run_proc /dev/null "$fo" "$fe" "$bash_bin" -euo pipefail -c "$2"
    # What escaped the step's group and token may hold a stream open: it is
    # read for a second more, as cairn run does, and no longer.
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      kill -0 "$pid_o" 2>/dev/null || kill -0 "$pid_e" 2>/dev/null || break
      sleep 0.1 || true
    done
    kill -KILL "$pid_o" "$pid_e" 2>/dev/null || true
    wait "$pid_o" || rc_o=$?
    wait "$pid_e" || rc_e=$?
    rm -f -- "$fo" "$fe"
    if ((rc_o || rc_e)); then shell_lost="record the output of $what: write $out or $err failed"; fi
    count_lines "$out"
    lines=$REPLY
    count_lines "$err"
    lines=$((lines + REPLY))
    if ((proc_rc == 0)); then status=pass; fi
  fi
  if [[ $phase == precheck ]] && ((proc_rc == check_skip && !proc_timed_out)) && [[ ! -e $tmp/interrupted ]]; then
    status=skip
  fi
  tail -n 10 -- "$tmp/out.$step" >"$tmp/tail.$step" 2>/dev/null || : >"$tmp/tail.$step"
  if shell_json=$(jq -n -c --arg phase "$phase" --argjson shell "${what##* }" --arg status "$status" \
    --argjson exit "$proc_exit" --arg cause "$proc_cause" --arg stdout "${base:+$base.stdout}" \
    --arg stderr "${base:+$base.stderr}" --argjson lines "$lines" --rawfile out "$tmp/tail.$step" "$jq_shell"); then
    printf '%s\n' "$shell_json" >>"$tmp/shells.$step"
  else
    shell_json=''
    record_failed "record $what of step \"$step\""
  fi
}

# show_shell: the shell of shell_json failed the step: it is shown under the
# step's end, unless the run was interrupted.
show_shell() {
  if [[ -n $shell_json && ! -e $tmp/interrupted ]]; then printf '%s\n' "$shell_json" >"$tmp/shown.$step"; fi
}

# precheck SCRIPT WHY...: a precheck shell: exit $CHECK_SKIP skips the step
# (with its whys, else the first line it printed), another non-zero exit
# fails it.
precheck() {
  local line
  kept_shell precheck "$1"
  shift
  if [[ -n $shell_lost ]]; then
    step_outcome=failed step_rc=-1 step_cause="precheck: $shell_lost"
    return 0
  fi
  ((proc_rc != 0)) || return 0
  if ((proc_rc == check_skip && !proc_timed_out)) && [[ ! -e $tmp/interrupted ]]; then
    step_outcome=skipped step_rc=$check_skip
    if (($#)); then
      step_cause=$1
      shift
      while (($#)); do step_cause+="; $1" && shift; done
    else
      step_cause="precheck exited $check_skip"
      while IFS= read -r line || [[ -n $line ]]; do
        line=${line#"${line%%[![:space:]]*}"}
        line=${line%"${line##*[![:space:]]}"}
        if [[ -n $line ]]; then step_cause=$line && break; fi
      done <"$tmp/out.$step"
    fi
    return 0
  fi
  show_shell
  step_outcome=failed step_rc=$proc_exit step_cause="precheck: $proc_cause"
}

# validate SEVERITY SCRIPT: a validate shell: its failure fails the step,
# unless SEVERITY is warn, which only says so. The phase's record holds its
# first failure; a phase the run's interruption cut short has none.
validate() {
  kept_shell validate "$2"
  if [[ -e $tmp/interrupted ]]; then
    validate_status='' validate_error=''
    step_outcome=failed step_rc=-1 step_cause="validate: stopped"
    return 0
  fi
  if [[ -n $shell_lost ]]; then
    validate_status=fail validate_error=$shell_lost
    step_outcome=failed step_rc=-1 step_cause="validate: $shell_lost"
    return 0
  fi
  if ((proc_rc == 0)); then
    validate_status=${validate_status:-pass}
    return 0
  fi
  if [[ $validate_status != fail ]]; then validate_status=fail validate_error=$proc_cause; fi
  if [[ $1 == warn ]]; then
    shell_lines "warning: step $step: validate: $proc_cause"
    return 0
  fi
  show_shell
  step_outcome=failed step_rc=$proc_exit step_cause="validate: $proc_cause"
}

# write_result FILE: the step's result is FILE's text. A result the step
# wrote itself has the step's umask: it becomes the owner's alone.
write_result() {
  if [[ $1 != "$step_result" ]]; then cp -- "$1" "$step_result"; fi
  chmod 600 -- "$step_result"
  : >"$tmp/wrote.$step"
}

# run_command SCRIPT: a command action: its result is what it wrote to
# $CAIRN_RESULT when that is not empty, else its stdout and stderr together.
run_command() {
  rm -f -- "$step_result"
  run_shell "$1"
  if [[ -s $step_result ]]; then
    write_result "$step_result"
  else
    write_result "$tmp/out.$step"
  fi
  step_rc=$proc_exit
  action_end "$proc_exit" "$proc_cause"
  if ((proc_rc != 0)); then step_outcome=failed step_cause=$proc_cause; fi
}

# earlier_results STEP...: sets earlier to those of STEP... (the steps of
# earlier stages, in file order) that left a result.
earlier_results() {
  local s
  earlier=()
  for s in "$@"; do
    if [[ -e $tmp/wrote.$s ]]; then earlier+=("$s"); fi
  done
}

# compose_prompt: sets prompt to a session's prompt (templates/session.md.tmpl
# as `cairn compile` rendered it) with the earlier results listed.
compose_prompt() {
  local i
  if ((${#earlier[@]} == 0)); then
    prompt=$prompt_none
    return
  fi
  prompt=$prompt_head
  for i in "${!earlier[@]}"; do
    if ((i > 0)); then prompt+=$prompt_join; fi
    prompt+=${earlier[i]}$prompt_mid$run/results/${earlier[i]}.md
  done
  prompt+=$prompt_tail
}

# The final message of a session as each harness writes it (harness.Final):
# {m: message, c: cause, f: failed}.
jq_final='
def trimend: sub("[ \t\r\n]+\\z"; "");
def trim: sub("^\\s+"; "") | sub("\\s+\\z"; "");
def blank: test("\\S") | not;
def clip: if length <= 400 then . else .[:399] + "…" end;
def oneline: [splits("\\s+")] | map(select(length > 0)) | join(" ") | clip;
def firstline: [split("\n")[] | trim | select(length > 0)] | first // "";
def lastline: [split("\n")[] | trim | select(length > 0)] | last // "";
def exitcause:
  (if $rc < 0 then "killed by a signal" else "exit status \($rc)" end) as $code
  | ($err | lastline) as $l
  | (if $l != "" then $l else ($out | lastline) end) as $line
  | if $line == "" then $code else "\($code): \($line | oneline)" end;
def unreadable($cli; $want):
  if $rc != 0 then exitcause
  else ($out | firstline) as $first
    | if $first == "" then "\($cli) printed nothing, not \($want)"
      else "\($cli) printed \($first | clip | tojson), not \($want)" end
  end;
def object:
  split("\n") as $lines
  | [range(0; $lines | length) as $i
      | select($lines[$i] | test("^[ \t\r]*\\{"))
      | range($i + 1; ($lines | length) + 1) as $j
      | ($lines[$i:$j] | join("\n")) | try fromjson catch empty
      | select(type == "object")] | .[0];
def events:
  [split("\n")[] | select(trim | startswith("{")) | try fromjson catch empty
   | select(type == "object" and (.type | type) == "string" and .type != "")];
def claude:
  ($out | object) as $r
  | if $r == null or $r.type != "result" then {m: "", c: unreadable("claude"; "its JSON result"), f: true}
    else ($r.result // "") as $res | ($res | trimend) as $msg
      | (($r.subtype // "") | startswith("error")) as $es
      | if ($r.is_error != true) and ($es | not) and $rc == 0 then {m: $msg, c: "", f: false}
        elif ($res | blank | not) then {m: "", c: ($res | oneline), f: true}
        elif (($r.errors // []) | length) > 0 then {m: $msg, c: ($r.errors | join("; ") | oneline), f: true}
        elif $r.subtype == "error_max_turns" then {m: $msg, c: "reached its max turns (error_max_turns)", f: true}
        elif $es then {m: $msg, c: "claude ended with \($r.subtype)", f: true}
        else {m: $msg, c: exitcause, f: true} end
    end;
def codex:
  ($out | events) as $ev
  | ([$ev[] | select(.type == "error") | .message // ""] | last // "") as $lasterror
  | ([$ev[] | select(.type == "turn.failed")] | length > 0) as $failedturn
  | ([$ev[] | select(.type == "turn.failed" and .error != null) | .error.message // ""] | last // "") as $turnfailed
  | ([$ev[] | select(.type == "item.completed" and .item.type? == "agent_message") | .item.text // ""] | last // "") as $agent
  | (if ($last | blank) then $agent else $last end | trimend) as $msg
  | if ($ev | length) == 0 and ($out | blank | not) then {m: $msg, c: unreadable("codex"; "its JSONL events"), f: true}
    elif ($failedturn | not) and $rc == 0 then {m: $msg, c: "", f: false}
    elif ($turnfailed | blank | not) then {m: $msg, c: ($turnfailed | oneline), f: true}
    elif ($lasterror | blank | not) then {m: $msg, c: ($lasterror | oneline), f: true}
    elif $failedturn and $rc == 0 then {m: $msg, c: "codex: the turn failed", f: true}
    else {m: $msg, c: exitcause, f: true} end;
def gemini:
  ($out | object) as $o
  | ($o != null and ($o.response != null or $o.error != null)) as $parsed
  | (if ($parsed | not) or $o.error == null
     then (($err | object) as $e | if $e != null and $e.error != null then $e.error else $o.error? end)
     else $o.error end) as $error
  | (if $o.response? != null then ($o.response | trimend) else "" end) as $msg
  | if $error != null then
      if (($error.message // "") | blank | not) then {m: $msg, c: ($error.message | oneline), f: true}
      elif ($error.type // "") != "" then {m: $msg, c: "gemini: \($error.type) (code \($error.code | tojson))", f: true}
      else {m: $msg, c: exitcause, f: true} end
    elif $rc != 0 then {m: $msg, c: exitcause, f: true}
    elif ($parsed | not) then {m: "", c: unreadable("gemini"; "its JSON output"), f: true}
    else {m: $msg, c: "", f: false} end;
def opencode:
  ($out | events) as $ev
  | ([$ev[] | select(.type == "text" and .part != null) | .part.text // ""] | last // "" | trimend) as $msg
  | ([$ev[] | select(.type == "error")] | length > 0) as $errored
  | ([$ev[] | select(.type == "error" and .error != null) | .error
      | if ((.data.message? // "") | blank | not) then .data.message
        elif ((.message // "") | blank | not) then .message
        else .name // "" end] | last // "") as $cause
  | if ($ev | length) == 0 and ($out | blank | not) then {m: $msg, c: unreadable("opencode"; "its JSON events"), f: true}
    elif $errored and ($cause | blank | not) then {m: $msg, c: ($cause | oneline), f: true}
    elif $errored or $rc != 0 then {m: $msg, c: exitcause, f: true}
    else {m: $msg, c: "", f: false} end;
def custom:
  ($out | trimend) as $msg
  | if $rc == 0 then {m: $msg, c: "", f: false}
    elif ($err | lastline) != "" then {m: $msg, c: ($err | lastline | oneline), f: true}
    else {m: $msg, c: exitcause, f: true} end;
'

# run_session FINAL IN ARGV...: a session action: the harness's CLI in the
# step's worktree with the prompt on stdin (IN) or in ARGV; its output is
# kept as the step's trace (stdout as written, each stderr line as
# {"stderr": LINE}), and its final message, read as harness FINAL reads it,
# is the step's result.
run_session() {
  local final=$1 in=$2 last=/dev/null step_trace=$run/traces/$step.jsonl
  shift 2
  rm -f -- "$last_message"
  run_proc "$in" "$tmp/out.$step" "$tmp/err.$step" "$@"
  record_trace=traces/$step.jsonl
  {
    cat -- "$tmp/out.$step"
    if [[ -s $tmp/out.$step && $(tail -c 1 -- "$tmp/out.$step") != '' ]]; then printf '\n'; fi
    jq -R -c '{stderr: sub("[\r\n]+\\z"; "")}' <"$tmp/err.$step"
  } >>"$step_trace" || warn "write the trace of step \"$step\" failed"
  if [[ -f $last_message ]]; then
    # The CLI wrote it with the user's umask.
    chmod 600 -- "$last_message"
    last=$last_message
  fi
  jq -n -c --rawfile out "$tmp/out.$step" --rawfile err "$tmp/err.$step" --rawfile last "$last" \
    --argjson rc "$proc_rc" "$jq_final $final" >"$tmp/final.$step" ||
    printf '{"m":"","c":"cannot read the output of %s","f":true}\n' "$final" >"$tmp/final.$step"
  jq -j '.m' <"$tmp/final.$step" >"$tmp/message.$step"
  write_result "$tmp/message.$step"
  step_rc=$proc_exit
  if ((proc_timed_out)) || [[ $proc_cause == stopped ]]; then
    step_outcome=failed step_cause=$proc_cause
  elif [[ $(jq -r '.f' <"$tmp/final.$step") == true ]]; then
    step_outcome=failed step_cause=$(jq -r '.c' <"$tmp/final.$step")
  fi
  action_end "$step_rc" "$step_cause"
}

# step_finish: the step's end: its outcome (a failure once the run is
# interrupted is an interruption) and cause, which its stage and the run's
# end read, its log line, its progress line (with the shell that failed it
# under it), and its record. The outcome is kept right after the log line,
# with no command between them: a job killed meanwhile (job_ended) must not
# log its step twice, nor not at all.
step_finish() {
  if [[ -z $step_outcome ]]; then step_outcome=succeeded; fi
  if [[ $step_outcome == failed && -e $tmp/interrupted ]]; then step_outcome=interrupted step_cause=; fi
  now_us
  printf '%s' "$step_cause" >"$tmp/cause.$step"
  log_step "$step_index" "$step_outcome" $((now - step_t0)) "$step_cause"
  printf '%s\n' "$step_outcome" >"$tmp/outcome.$step"
  say_end "$step_index" "$step_outcome" $((now - step_t0)) "$step_cause"
  step_event "$now"
  : >"$tmp/recorded.$step"
}

# step_0: step 'tests'.
step_0() {
  step_start 0
  if step_going; then run_command 'echo tests pass'; fi
  step_finish
}
# step_1: step 'hunt-claude'.
step_1() {
  step_start 1
  if step_going; then session_1_0; fi
  step_finish
}

# session_1_0: the 'claude' session of step 'hunt-claude'.
session_1_0() {
  local prompt prompt_none prompt_head prompt_mid prompt_join prompt_tail today
  local last_message=$run/traces/$step.last-message.md
  # The prompt's date is the day the session starts, as cairn run's is.
  printf -v today '%(%Y-%m-%d)T' -1
  local -a earlier=()
  local skill_path=''
  skill_path=$step_dir/'.agents/skills/bug-hunt/SKILL.md'
  earlier_results 'tests'
  if [[ -n $directive_trim ]]; then
    prompt_none='You are running step `hunt-claude` of the cairn process `sessions`. Today is '"${today}"$'. cairn started this session unattended: nobody will answer a question or approve anything before it ends. When something is unclear, make the most reasonable choice, carry on, and say what you chose in your final message.\n\n## Where you work\n\nYour working directory is `'"${step_dir}"$'`, a throwaway git worktree that cairn made for this run from the base branch. Later steps of this run that share it see what you leave in it. When the run ends cairn removes it and your changes, committed or not, are discarded, saved only as a patch in the run\'s records: nothing you do here reaches the user\'s own checkout or any branch. Keep your changes inside it.\n\n## Your task\n\nRead the skill file `'"${skill_path}"$'` (skill `bug-hunt`) and follow it: it is your task.\n\nThe user started this run with a directive. Follow it wherever it applies; where it conflicts with the task above, the directive wins:\n\n<directive>\n'"${directive_trim}"$'\n</directive>\n\n## Your final message\n\nYour final message is this step\'s result: cairn saves it as `'"${step_result}"$'` and gives its path to the later steps, which may know nothing else of your work. Make it complete on its own, in the form your task asks for: what you did or found (with file:line where it applies), what you could not do, and why. Do not write that file yourself, and do not end with a question.\n'
    prompt_head='You are running step `hunt-claude` of the cairn process `sessions`. Today is '"${today}"$'. cairn started this session unattended: nobody will answer a question or approve anything before it ends. When something is unclear, make the most reasonable choice, carry on, and say what you chose in your final message.\n\n## Where you work\n\nYour working directory is `'"${step_dir}"$'`, a throwaway git worktree that cairn made for this run from the base branch. Later steps of this run that share it see what you leave in it. When the run ends cairn removes it and your changes, committed or not, are discarded, saved only as a patch in the run\'s records: nothing you do here reaches the user\'s own checkout or any branch. Keep your changes inside it.\n\n## Results of the earlier steps\n\nEach earlier step of this run left its result in a file. Read the ones your task needs:\n\n- `'
    prompt_mid='`: `'
    prompt_join=$'`\n- `'
    prompt_tail=$'`\n\n## Your task\n\nRead the skill file `'"${skill_path}"$'` (skill `bug-hunt`) and follow it: it is your task.\n\nThe user started this run with a directive. Follow it wherever it applies; where it conflicts with the task above, the directive wins:\n\n<directive>\n'"${directive_trim}"$'\n</directive>\n\n## Your final message\n\nYour final message is this step\'s result: cairn saves it as `'"${step_result}"$'` and gives its path to the later steps, which may know nothing else of your work. Make it complete on its own, in the form your task asks for: what you did or found (with file:line where it applies), what you could not do, and why. Do not write that file yourself, and do not end with a question.\n'
  else
    prompt_none='You are running step `hunt-claude` of the cairn process `sessions`. Today is '"${today}"$'. cairn started this session unattended: nobody will answer a question or approve anything before it ends. When something is unclear, make the most reasonable choice, carry on, and say what you chose in your final message.\n\n## Where you work\n\nYour working directory is `'"${step_dir}"$'`, a throwaway git worktree that cairn made for this run from the base branch. Later steps of this run that share it see what you leave in it. When the run ends cairn removes it and your changes, committed or not, are discarded, saved only as a patch in the run\'s records: nothing you do here reaches the user\'s own checkout or any branch. Keep your changes inside it.\n\n## Your task\n\nRead the skill file `'"${skill_path}"$'` (skill `bug-hunt`) and follow it: it is your task.\n\n## Your final message\n\nYour final message is this step\'s result: cairn saves it as `'"${step_result}"$'` and gives its path to the later steps, which may know nothing else of your work. Make it complete on its own, in the form your task asks for: what you did or found (with file:line where it applies), what you could not do, and why. Do not write that file yourself, and do not end with a question.\n'
    prompt_head='You are running step `hunt-claude` of the cairn process `sessions`. Today is '"${today}"$'. cairn started this session unattended: nobody will answer a question or approve anything before it ends. When something is unclear, make the most reasonable choice, carry on, and say what you chose in your final message.\n\n## Where you work\n\nYour working directory is `'"${step_dir}"$'`, a throwaway git worktree that cairn made for this run from the base branch. Later steps of this run that share it see what you leave in it. When the run ends cairn removes it and your changes, committed or not, are discarded, saved only as a patch in the run\'s records: nothing you do here reaches the user\'s own checkout or any branch. Keep your changes inside it.\n\n## Results of the earlier steps\n\nEach earlier step of this run left its result in a file. Read the ones your task needs:\n\n- `'
    prompt_mid='`: `'
    prompt_join=$'`\n- `'
    prompt_tail=$'`\n\n## Your task\n\nRead the skill file `'"${skill_path}"$'` (skill `bug-hunt`) and follow it: it is your task.\n\n## Your final message\n\nYour final message is this step\'s result: cairn saves it as `'"${step_result}"$'` and gives its path to the later steps, which may know nothing else of your work. Make it complete on its own, in the form your task asks for: what you did or found (with file:line where it applies), what you could not do, and why. Do not write that file yourself, and do not end with a question.\n'
  fi
  compose_prompt
  printf '%s' "$prompt" >"$tmp/prompt.$step"
  run_session 'claude' "$tmp/prompt.$step" 'claude' '-p' '--output-format' 'json' '--permission-mode' 'acceptEdits' '--model' 'opus' '--effort' 'high' '--max-turns' '30'
}
# step_2: step 'hunt-codex'.
step_2() {
  step_start 2
  if step_going; then session_2_0; fi
  step_finish
}

# session_2_0: the 'codex' session of step 'hunt-codex'.
session_2_0() {
  local prompt prompt_none prompt_head prompt_mid prompt_join prompt_tail today
  local last_message=$run/traces/$step.last-message.md
  # The prompt's date is the day the session starts, as cairn run's is.
  printf -v today '%(%Y-%m-%d)T' -1
  local -a earlier=()
  local skill_path=''
  local skill_error=''
  if ! install_skill 'cairn-bug-hunt' "${skill_1}"; then
    write_result /dev/null
    step_outcome=failed step_rc=-1 step_cause=$skill_error
    action_end -1 "$skill_error"
    return 0
  fi
  earlier_results 'tests'
  if [[ -n $directive_trim ]]; then
    prompt_none='You are running step `hunt-codex` of the cairn process `sessions`. Today is '"${today}"$'. cairn started this session unattended: nobody will answer a question or approve anything before it ends. When something is unclear, make the most reasonable choice, carry on, and say what you chose in your final message.\n\n## Where you work\n\nYour working directory is `'"${step_dir}"$'`, a throwaway git worktree that cairn made for this run from the base branch. Later steps of this run that share it see what you leave in it. When the run ends cairn removes it and your changes, committed or not, are discarded, saved only as a patch in the run\'s records: nothing you do here reaches the user\'s own checkout or any branch. Keep your changes inside it.\n\n## Your task\n\nRead the skill file `'"${skill_path}"$'` (skill `cairn-bug-hunt`) and follow it: it is your task.\n\nThe user started this run with a directive. Follow it wherever it applies; where it conflicts with the task above, the directive wins:\n\n<directive>\n'"${directive_trim}"$'\n</directive>\n\n## Your final message\n\nYour final message is this step\'s result: cairn saves it as `'"${step_result}"$'` and gives its path to the later steps, which may know nothing else of your work. Make it complete on its own, in the form your task asks for: what you did or found (with file:line where it applies), what you could not do, and why. Do not write that file yourself, and do not end with a question.\n'
    prompt_head='You are running step `hunt-codex` of the cairn process `sessions`. Today is '"${today}"$'. cairn started this session unattended: nobody will answer a question or approve anything before it ends. When something is unclear, make the most reasonable choice, carry on, and say what you chose in your final message.\n\n## Where you work\n\nYour working directory is `'"${step_dir}"$'`, a throwaway git worktree that cairn made for this run from the base branch. Later steps of this run that share it see what you leave in it. When the run ends cairn removes it and your changes, committed or not, are discarded, saved only as a patch in the run\'s records: nothing you do here reaches the user\'s own checkout or any branch. Keep your changes inside it.\n\n## Results of the earlier steps\n\nEach earlier step of this run left its result in a file. Read the ones your task needs:\n\n- `'
    prompt_mid='`: `'
    prompt_join=$'`\n- `'
    prompt_tail=$'`\n\n## Your task\n\nRead the skill file `'"${skill_path}"$'` (skill `cairn-bug-hunt`) and follow it: it is your task.\n\nThe user started this run with a directive. Follow it wherever it applies; where it conflicts with the task above, the directive wins:\n\n<directive>\n'"${directive_trim}"$'\n</directive>\n\n## Your final message\n\nYour final message is this step\'s result: cairn saves it as `'"${step_result}"$'` and gives its path to the later steps, which may know nothing else of your work. Make it complete on its own, in the form your task asks for: what you did or found (with file:line where it applies), what you could not do, and why. Do not write that file yourself, and do not end with a question.\n'
  else
    prompt_none='You are running step `hunt-codex` of the cairn process `sessions`. Today is '"${today}"$'. cairn started this session unattended: nobody will answer a question or approve anything before it ends. When something is unclear, make the most reasonable choice, carry on, and say what you chose in your final message.\n\n## Where you work\n\nYour working directory is `'"${step_dir}"$'`, a throwaway git worktree that cairn made for this run from the base branch. Later steps of this run that share it see what you leave in it. When the run ends cairn removes it and your changes, committed or not, are discarded, saved only as a patch in the run\'s records: nothing you do here reaches the user\'s own checkout or any branch. Keep your changes inside it.\n\n## Your task\n\nRead the skill file `'"${skill_path}"$'` (skill `cairn-bug-hunt`) and follow it: it is your task.\n\n## Your final message\n\nYour final message is this step\'s result: cairn saves it as `'"${step_result}"$'` and gives its path to the later steps, which may know nothing else of your work. Make it complete on its own, in the form your task asks for: what you did or found (with file:line where it applies), what you could not do, and why. Do not write that file yourself, and do not end with a question.\n'
    prompt_head='You are running step `hunt-codex` of the cairn process `sessions`. Today is '"${today}"$'. cairn started this session unattended: nobody will answer a question or approve anything before it ends. When something is unclear, make the most reasonable choice, carry on, and say what you chose in your final message.\n\n## Where you work\n\nYour working directory is `'"${step_dir}"$'`, a throwaway git worktree that cairn made for this run from the base branch. Later steps of this run that share it see what you leave in it. When the run ends cairn removes it and your changes, committed or not, are discarded, saved only as a patch in the run\'s records: nothing you do here reaches the user\'s own checkout or any branch. Keep your changes inside it.\n\n## Results of the earlier steps\n\nEach earlier step of this run left its result in a file. Read the ones your task needs:\n\n- `'
    prompt_mid='`: `'
    prompt_join=$'`\n- `'
    prompt_tail=$'`\n\n## Your task\n\nRead the skill file `'"${skill_path}"$'` (skill `cairn-bug-hunt`) and follow it: it is your task.\n\n## Your final message\n\nYour final message is this step\'s result: cairn saves it as `'"${step_result}"$'` and gives its path to the later steps, which may know nothing else of your work. Make it complete on its own, in the form your task asks for: what you did or found (with file:line where it applies), what you could not do, and why. Do not write that file yourself, and do not end with a question.\n'
  fi
  compose_prompt
  printf '%s' "$prompt" >"$tmp/prompt.$step"
  run_session 'codex' "$tmp/prompt.$step" 'codex' 'exec' '--json' '-o' "${last_message}" '--sandbox' 'workspace-write' '-m' 'gpt-5-codex' '-c' 'model_reasoning_effort=xhigh' '-C' "${step_dir}" '-'
}
# step_3: step 'hunt-gemini'.
step_3() {
  step_start 3
  if step_going; then session_3_0; fi
  step_finish
}

# session_3_0: the 'gemini' session of step 'hunt-gemini'.
session_3_0() {
  local prompt prompt_none prompt_head prompt_mid prompt_join prompt_tail today
  local last_message=$run/traces/$step.last-message.md
  # The prompt's date is the day the session starts, as cairn run's is.
  printf -v today '%(%Y-%m-%d)T' -1
  local -a earlier=()
  local skill_path=''
  local skill_error=''
  if ! install_skill 'triage' "${skill_2}"; then
    write_result /dev/null
    step_outcome=failed step_rc=-1 step_cause=$skill_error
    action_end -1 "$skill_error"
    return 0
  fi
  earlier_results 'tests'
  if [[ -n $directive_trim ]]; then
    prompt_none='You are running step `hunt-gemini` of the cairn process `sessions`. Today is '"${today}"$'. cairn started this session unattended: nobody will answer a question or approve anything before it ends. When something is unclear, make the most reasonable choice, carry on, and say what you chose in your final message.\n\n## Where you work\n\nYour working directory is `'"${step_dir}"$'`, a throwaway git worktree that cairn made for this run from the base branch. Later steps of this run that share it see what you leave in it. When the run ends cairn removes it and your changes, committed or not, are discarded, saved only as a patch in the run\'s records: nothing you do here reaches the user\'s own checkout or any branch. Keep your changes inside it.\n\n## Your task\n\nRead the skill file `'"${skill_path}"$'` (skill `triage`) and follow it: it is your task.\n\nThe user started this run with a directive. Follow it wherever it applies; where it conflicts with the task above, the directive wins:\n\n<directive>\n'"${directive_trim}"$'\n</directive>\n\n## Your final message\n\nYour final message is this step\'s result: cairn saves it as `'"${step_result}"$'` and gives its path to the later steps, which may know nothing else of your work. Make it complete on its own, in the form your task asks for: what you did or found (with file:line where it applies), what you could not do, and why. Do not write that file yourself, and do not end with a question.\n'
    prompt_head='You are running step `hunt-gemini` of the cairn process `sessions`. Today is '"${today}"$'. cairn started this session unattended: nobody will answer a question or approve anything before it ends. When something is unclear, make the most reasonable choice, carry on, and say what you chose in your final message.\n\n## Where you work\n\nYour working directory is `'"${step_dir}"$'`, a throwaway git worktree that cairn made for this run from the base branch. Later steps of this run that share it see what you leave in it. When the run ends cairn removes it and your changes, committed or not, are discarded, saved only as a patch in the run\'s records: nothing you do here reaches the user\'s own checkout or any branch. Keep your changes inside it.\n\n## Results of the earlier steps\n\nEach earlier step of this run left its result in a file. Read the ones your task needs:\n\n- `'
    prompt_mid='`: `'
    prompt_join=$'`\n- `'
    prompt_tail=$'`\n\n## Your task\n\nRead the skill file `'"${skill_path}"$'` (skill `triage`) and follow it: it is your task.\n\nThe user started this run with a directive. Follow it wherever it applies; where it conflicts with the task above, the directive wins:\n\n<directive>\n'"${directive_trim}"$'\n</directive>\n\n## Your final message\n\nYour final message is this step\'s result: cairn saves it as `'"${step_result}"$'` and gives its path to the later steps, which may know nothing else of your work. Make it complete on its own, in the form your task asks for: what you did or found (with file:line where it applies), what you could not do, and why. Do not write that file yourself, and do not end with a question.\n'
  else
    prompt_none='You are running step `hunt-gemini` of the cairn process `sessions`. Today is '"${today}"$'. cairn started this session unattended: nobody will answer a question or approve anything before it ends. When something is unclear, make the most reasonable choice, carry on, and say what you chose in your final message.\n\n## Where you work\n\nYour working directory is `'"${step_dir}"$'`, a throwaway git worktree that cairn made for this run from the base branch. Later steps of this run that share it see what you leave in it. When the run ends cairn removes it and your changes, committed or not, are discarded, saved only as a patch in the run\'s records: nothing you do here reaches the user\'s own checkout or any branch. Keep your changes inside it.\n\n## Your task\n\nRead the skill file `'"${skill_path}"$'` (skill `triage`) and follow it: it is your task.\n\n## Your final message\n\nYour final message is this step\'s result: cairn saves it as `'"${step_result}"$'` and gives its path to the later steps, which may know nothing else of your work. Make it complete on its own, in the form your task asks for: what you did or found (with file:line where it applies), what you could not do, and why. Do not write that file yourself, and do not end with a question.\n'
    prompt_head='You are running step `hunt-gemini` of the cairn process `sessions`. Today is '"${today}"$'. cairn started this session unattended: nobody will answer a question or approve anything before it ends. When something is unclear, make the most reasonable choice, carry on, and say what you chose in your final message.\n\n## Where you work\n\nYour working directory is `'"${step_dir}"$'`, a throwaway git worktree that cairn made for this run from the base branch. Later steps of this run that share it see what you leave in it. When the run ends cairn removes it and your changes, committed or not, are discarded, saved only as a patch in the run\'s records: nothing you do here reaches the user\'s own checkout or any branch. Keep your changes inside it.\n\n## Results of the earlier steps\n\nEach earlier step of this run left its result in a file. Read the ones your task needs:\n\n- `'
    prompt_mid='`: `'
    prompt_join=$'`\n- `'
    prompt_tail=$'`\n\n## Your task\n\nRead the skill file `'"${skill_path}"$'` (skill `triage`) and follow it: it is your task.\n\n## Your final message\n\nYour final message is this step\'s result: cairn saves it as `'"${step_result}"$'` and gives its path to the later steps, which may know nothing else of your work. Make it complete on its own, in the form your task asks for: what you did or found (with file:line where it applies), what you could not do, and why. Do not write that file yourself, and do not end with a question.\n'
  fi
  compose_prompt
  printf '%s' "$prompt" >"$tmp/prompt.$step"
  run_session 'gemini' "$tmp/prompt.$step" 'gemini' '-p' '' '-m' 'gemini-2.5-pro' '--output-format' 'json' '--approval-mode' 'auto_edit' '--skip-trust'
}
# step_4: step 'hunt-opencode'.
step_4() {
  step_start 4
  if step_going; then session_4_0; fi
  step_finish
}

# session_4_0: the 'opencode' session of step 'hunt-opencode'.
session_4_0() {
  local prompt prompt_none prompt_head prompt_mid prompt_join prompt_tail today
  local last_message=$run/traces/$step.last-message.md
  # The prompt's date is the day the session starts, as cairn run's is.
  printf -v today '%(%Y-%m-%d)T' -1
  local -a earlier=()
  earlier_results 'tests'
  if [[ -n $directive_trim ]]; then
    prompt_none='You are running step `hunt-opencode` of the cairn process `sessions`. Today is '"${today}"$'. cairn started this session unattended: nobody will answer a question or approve anything before it ends. When something is unclear, make the most reasonable choice, carry on, and say what you chose in your final message.\n\n## Where you work\n\nYour working directory is `'"${step_dir}"$'`, a throwaway git worktree that cairn made for this run from the base branch. Later steps of this run that share it see what you leave in it. When the run ends cairn removes it and your changes, committed or not, are discarded, saved only as a patch in the run\'s records: nothing you do here reaches the user\'s own checkout or any branch. Keep your changes inside it.\n\n## Your task\n\nHunt for bugs in main.go; answer with \'file:line\' and $(nothing else).\n\nThe user started this run with a directive. Follow it wherever it applies; where it conflicts with the task above, the directive wins:\n\n<directive>\n'"${directive_trim}"$'\n</directive>\n\n## Your final message\n\nYour final message is this step\'s result: cairn saves it as `'"${step_result}"$'` and gives its path to the later steps, which may know nothing else of your work. Make it complete on its own, in the form your task asks for: what you did or found (with file:line where it applies), what you could not do, and why. Do not write that file yourself, and do not end with a question.\n'
    prompt_head='You are running step `hunt-opencode` of the cairn process `sessions`. Today is '"${today}"$'. cairn started this session unattended: nobody will answer a question or approve anything before it ends. When something is unclear, make the most reasonable choice, carry on, and say what you chose in your final message.\n\n## Where you work\n\nYour working directory is `'"${step_dir}"$'`, a throwaway git worktree that cairn made for this run from the base branch. Later steps of this run that share it see what you leave in it. When the run ends cairn removes it and your changes, committed or not, are discarded, saved only as a patch in the run\'s records: nothing you do here reaches the user\'s own checkout or any branch. Keep your changes inside it.\n\n## Results of the earlier steps\n\nEach earlier step of this run left its result in a file. Read the ones your task needs:\n\n- `'
    prompt_mid='`: `'
    prompt_join=$'`\n- `'
    prompt_tail=$'`\n\n## Your task\n\nHunt for bugs in main.go; answer with \'file:line\' and $(nothing else).\n\nThe user started this run with a directive. Follow it wherever it applies; where it conflicts with the task above, the directive wins:\n\n<directive>\n'"${directive_trim}"$'\n</directive>\n\n## Your final message\n\nYour final message is this step\'s result: cairn saves it as `'"${step_result}"$'` and gives its path to the later steps, which may know nothing else of your work. Make it complete on its own, in the form your task asks for: what you did or found (with file:line where it applies), what you could not do, and why. Do not write that file yourself, and do not end with a question.\n'
  else
    prompt_none='You are running step `hunt-opencode` of the cairn process `sessions`. Today is '"${today}"$'. cairn started this session unattended: nobody will answer a question or approve anything before it ends. When something is unclear, make the most reasonable choice, carry on, and say what you chose in your final message.\n\n## Where you work\n\nYour working directory is `'"${step_dir}"$'`, a throwaway git worktree that cairn made for this run from the base branch. Later steps of this run that share it see what you leave in it. When the run ends cairn removes it and your changes, committed or not, are discarded, saved only as a patch in the run\'s records: nothing you do here reaches the user\'s own checkout or any branch. Keep your changes inside it.\n\n## Your task\n\nHunt for bugs in main.go; answer with \'file:line\' and $(nothing else).\n\n## Your final message\n\nYour final message is this step\'s result: cairn saves it as `'"${step_result}"$'` and gives its path to the later steps, which may know nothing else of your work. Make it complete on its own, in the form your task asks for: what you did or found (with file:line where it applies), what you could not do, and why. Do not write that file yourself, and do not end with a question.\n'
    prompt_head='You are running step `hunt-opencode` of the cairn process `sessions`. Today is '"${today}"$'. cairn started this session unattended: nobody will answer a question or approve anything before it ends. When something is unclear, make the most reasonable choice, carry on, and say what you chose in your final message.\n\n## Where you work\n\nYour working directory is `'"${step_dir}"$'`, a throwaway git worktree that cairn made for this run from the base branch. Later steps of this run that share it see what you leave in it. When the run ends cairn removes it and your changes, committed or not, are discarded, saved only as a patch in the run\'s records: nothing you do here reaches the user\'s own checkout or any branch. Keep your changes inside it.\n\n## Results of the earlier steps\n\nEach earlier step of this run left its result in a file. Read the ones your task needs:\n\n- `'
    prompt_mid='`: `'
    prompt_join=$'`\n- `'
    prompt_tail=$'`\n\n## Your task\n\nHunt for bugs in main.go; answer with \'file:line\' and $(nothing else).\n\n## Your final message\n\nYour final message is this step\'s result: cairn saves it as `'"${step_result}"$'` and gives its path to the later steps, which may know nothing else of your work. Make it complete on its own, in the form your task asks for: what you did or found (with file:line where it applies), what you could not do, and why. Do not write that file yourself, and do not end with a question.\n'
  fi
  compose_prompt
  run_session 'opencode' /dev/null 'opencode' 'run' "${prompt}" '-m' 'anthropic/claude-sonnet-4-5' '--variant' 'minimal' '--format' 'json' '--dir' "${step_dir}" '--auto'
}
# step_5: step 'judge'.
step_5() {
  step_start 5
  if step_going; then session_5_0; fi
  step_finish
}

# session_5_0: the 'claude' session of step 'judge'.
session_5_0() {
  local prompt prompt_none prompt_head prompt_mid prompt_join prompt_tail today
  local last_message=$run/traces/$step.last-message.md
  # The prompt's date is the day the session starts, as cairn run's is.
  printf -v today '%(%Y-%m-%d)T' -1
  local -a earlier=()
  earlier_results 'tests' 'hunt-claude' 'hunt-codex' 'hunt-gemini' 'hunt-opencode'
  if [[ -n $directive_trim ]]; then
    prompt_none='You are running step `judge` of the cairn process `sessions`. Today is '"${today}"$'. cairn started this session unattended: nobody will answer a question or approve anything before it ends. When something is unclear, make the most reasonable choice, carry on, and say what you chose in your final message.\n\n## Where you work\n\nYour working directory is `'"${step_dir}"$'`, a throwaway git worktree that cairn made for this run from the base branch. Later steps of this run that share it see what you leave in it. When the run ends cairn removes it and your changes, committed or not, are discarded, saved only as a patch in the run\'s records: nothing you do here reaches the user\'s own checkout or any branch. Keep your changes inside it.\n\n## Your task\n\nMerge the four reports into one verdict.\n\nThe user started this run with a directive. Follow it wherever it applies; where it conflicts with the task above, the directive wins:\n\n<directive>\n'"${directive_trim}"$'\n</directive>\n\n## Your final message\n\nYour final message is this step\'s result: cairn saves it as `'"${step_result}"$'` and gives its path to the later steps, which may know nothing else of your work. Make it complete on its own, in the form your task asks for: what you did or found (with file:line where it applies), what you could not do, and why. Do not write that file yourself, and do not end with a question.\n'
    prompt_head='You are running step `judge` of the cairn process `sessions`. Today is '"${today}"$'. cairn started this session unattended: nobody will answer a question or approve anything before it ends. When something is unclear, make the most reasonable choice, carry on, and say what you chose in your final message.\n\n## Where you work\n\nYour working directory is `'"${step_dir}"$'`, a throwaway git worktree that cairn made for this run from the base branch. Later steps of this run that share it see what you leave in it. When the run ends cairn removes it and your changes, committed or not, are discarded, saved only as a patch in the run\'s records: nothing you do here reaches the user\'s own checkout or any branch. Keep your changes inside it.\n\n## Results of the earlier steps\n\nEach earlier step of this run left its result in a file. Read the ones your task needs:\n\n- `'
    prompt_mid='`: `'
    prompt_join=$'`\n- `'
    prompt_tail=$'`\n\n## Your task\n\nMerge the four reports into one verdict.\n\nThe user started this run with a directive. Follow it wherever it applies; where it conflicts with the task above, the directive wins:\n\n<directive>\n'"${directive_trim}"$'\n</directive>\n\n## Your final message\n\nYour final message is this step\'s result: cairn saves it as `'"${step_result}"$'` and gives its path to the later steps, which may know nothing else of your work. Make it complete on its own, in the form your task asks for: what you did or found (with file:line where it applies), what you could not do, and why. Do not write that file yourself, and do not end with a question.\n'
  else
    prompt_none='You are running step `judge` of the cairn process `sessions`. Today is '"${today}"$'. cairn started this session unattended: nobody will answer a question or approve anything before it ends. When something is unclear, make the most reasonable choice, carry on, and say what you chose in your final message.\n\n## Where you work\n\nYour working directory is `'"${step_dir}"$'`, a throwaway git worktree that cairn made for this run from the base branch. Later steps of this run that share it see what you leave in it. When the run ends cairn removes it and your changes, committed or not, are discarded, saved only as a patch in the run\'s records: nothing you do here reaches the user\'s own checkout or any branch. Keep your changes inside it.\n\n## Your task\n\nMerge the four reports into one verdict.\n\n## Your final message\n\nYour final message is this step\'s result: cairn saves it as `'"${step_result}"$'` and gives its path to the later steps, which may know nothing else of your work. Make it complete on its own, in the form your task asks for: what you did or found (with file:line where it applies), what you could not do, and why. Do not write that file yourself, and do not end with a question.\n'
    prompt_head='You are running step `judge` of the cairn process `sessions`. Today is '"${today}"$'. cairn started this session unattended: nobody will answer a question or approve anything before it ends. When something is unclear, make the most reasonable choice, carry on, and say what you chose in your final message.\n\n## Where you work\n\nYour working directory is `'"${step_dir}"$'`, a throwaway git worktree that cairn made for this run from the base branch. Later steps of this run that share it see what you leave in it. When the run ends cairn removes it and your changes, committed or not, are discarded, saved only as a patch in the run\'s records: nothing you do here reaches the user\'s own checkout or any branch. Keep your changes inside it.\n\n## Results of the earlier steps\n\nEach earlier step of this run left its result in a file. Read the ones your task needs:\n\n- `'
    prompt_mid='`: `'
    prompt_join=$'`\n- `'
    prompt_tail=$'`\n\n## Your task\n\nMerge the four reports into one verdict.\n\n## Your final message\n\nYour final message is this step\'s result: cairn saves it as `'"${step_result}"$'` and gives its path to the later steps, which may know nothing else of your work. Make it complete on its own, in the form your task asks for: what you did or found (with file:line where it applies), what you could not do, and why. Do not write that file yourself, and do not end with a question.\n'
  fi
  compose_prompt
  printf '%s' "$prompt" >"$tmp/prompt.$step"
  run_session 'claude' "$tmp/prompt.$step" 'claude' '-p' '--output-format' 'json' '--permission-mode' 'acceptEdits' '--model' 'sonnet' '--effort' 'medium' '--max-turns' '20'
}

# run_step INDEX: step INDEX, in a job of its own. The job ignores SIGINT
# and SIGTERM: Ctrl-C at the terminal reaches the whole foreground group,
# but it is the script that stops the steps, and the job that records how
# each ended.
run_step() {
  trap '' INT TERM
  case $1 in
  0) step_0 ;;
  1) step_1 ;;
  2) step_2 ;;
  3) step_3 ;;
  4) step_4 ;;
  5) step_5 ;;
  esac
}

# stop_steps: every running step's process group gets SIGTERM, and SIGKILL
# when it has not ended after the grace period, or at once after a second
# signal.
stop_steps() {
  local f pg deadline
  for f in "$tmp"/pgid.*; do
    # A step that ends meanwhile takes its file away.
    { read -r pg <"$f"; } 2>/dev/null || continue
    kill -TERM -- "-$pg" 2>/dev/null || true
  done
  now_us
  deadline=$((now + grace * 1000000))
  while compgen -G "$tmp/pgid.*" >/dev/null; do
    now_us
    ((now < deadline && !kill_now)) || break
    # Ctrl-C again at the terminal ends this sleep too.
    sleep 0.1 || true
  done
  for f in "$tmp"/pgid.*; do
    { read -r pg <"$f"; } 2>/dev/null || continue
    kill -KILL -- "-$pg" 2>/dev/null || true
  done
}

# on_signal: SIGINT or SIGTERM: nothing new starts, and the running steps
# are stopped (and recorded interrupted). A second signal (bash runs its
# trap even while the first one's waits out the grace period) SIGKILLs them
# at once; the run then ends as the first signal would have it end.
on_signal() {
  local f pg
  if ((interrupted)); then
    kill_now=1
    for f in "$tmp"/pgid.*; do
      { read -r pg <"$f"; } 2>/dev/null || continue
      kill -KILL -- "-$pg" 2>/dev/null || true
    done
    return 0
  fi
  interrupted=1
  : >"$tmp/interrupted"
  stop_steps
}

# on_exit: whatever ends the script, running steps are stopped, throwaway
# worktrees saved and removed, the pass given back.
on_exit() {
  local rc=$?
  set +e
  trap '' INT TERM
  if ((!finished)); then
    : >"$tmp/interrupted"
    stop_steps
    wait
    close_worktrees
  fi
  if ((record_begun && !record_ended)); then
    if ((interrupted)); then record_end interrupted; else record_end failed; fi
  fi
  end_strays "$run_token-[0-9]+"
  if [[ -n $pass_fd ]]; then
    : >"$pass_lock"
    exec {pass_fd}>&-
  fi
  rm -rf -- "$tmp"
  exit "$rc"
}

# wait_one: waits for a step's job to end.
wait_one() {
  local pid='' rc=0
  wait -n -p pid || rc=$?
  if [[ -n ${pid:-} ]]; then
    job_ended "$pid" "$rc"
  elif ((rc == 127)); then
    # No job is left, yet some never reported their end (they ended while a
    # trap ran): they have all ended, and wait PID still knows how.
    for pid in "${!job_step[@]}"; do
      rc=0
      wait "$pid" 2>/dev/null || rc=$?
      job_ended "$pid" "$rc"
    done
  fi
}

# job_ended PID RC: the job PID ended with exit status RC; when it was a
# step's, the stage counts it, and a required step that failed stops the
# process.
job_ended() {
  local pid=$1 rc=$2 i outcome start='' cause
  [[ -n ${job_step[$pid]:-} ]] || return 0
  i=${job_step[$pid]}
  unset "job_step[$pid]"
  running=$((running - 1))
  outcome=
  if [[ -f $tmp/outcome.${step_names[i]} ]]; then outcome=$(<"$tmp/outcome.${step_names[i]}"); fi
  if [[ -f $tmp/start.${step_names[i]} ]]; then start=$(<"$tmp/start.${step_names[i]}"); fi
  if [[ -n $outcome && ! -e $tmp/recorded.${step_names[i]} ]]; then
    # The job was killed as its step ended, after its log line: the record
    # says the same.
    cause=$(<"$tmp/cause.${step_names[i]}") || cause=
    now_us
    step_record "$i" "$outcome" "$start" "$now" -1 "$cause" '' '' ''
  elif [[ -z $outcome && -e $tmp/interrupted ]]; then
    # A signal to the whole group ended the job before it could ignore it.
    outcome=interrupted
    log_step "$i" interrupted 0 ""
    say_end "$i" interrupted 0 ""
    now_us
    step_record "$i" interrupted "$start" "$now" -1 '' '' '' ''
  elif [[ -z $outcome ]]; then
    # The job itself broke: the step failed.
    outcome=failed
    cause="the script's job ended with exit status $rc"
    log_step "$i" failed 0 "$cause"
    say_end "$i" failed 0 "$cause"
    printf '%s' "$cause" >"$tmp/cause.${step_names[i]}"
    printf '%s\n' failed >"$tmp/outcome.${step_names[i]}"
    now_us
    step_record "$i" failed "$start" "$now" -1 "$cause" '' '' ''
  fi
  if [[ $outcome == failed ]] && ((!step_optional[i])); then stopped=1; fi
}

# run_stage INDEX...: the steps of one stage, in file order, at most $jobs at
# a time; once a required step has failed, or the run is interrupted, those
# not started yet are cancelled and those running finish.
run_stage() {
  local i limit=$jobs
  if ((limit == 0 || limit > $#)); then limit=$#; fi
  declare -gA job_step=()
  running=0
  for i in "$@"; do
    while ((running >= limit)); do wait_one; done
    if ((stopped || interrupted)); then
      cancel_step "$i"
      continue
    fi
    # The job leaves the run folder's lock and the Pass to the script: a
    # script that is killed leaves a crashed run and a free Pass, as cairn
    # run does.
    run_step "$i" {run_lock_fd}>&- {pass_fd}>&- &
    job_step[$!]=$i
    running=$((running + 1))
  done
  while ((running > 0)); do wait_one; done
}

# notify STATUS: the config's [notify] command, when it asks for runs that
# end so.
notify() {
  local class=failure on rc=0 listed=0
  ((${#notify_argv[@]})) || return 0
  if [[ $1 == succeeded ]]; then class=success; fi
  if ((notify_on_set)); then
    for on in "${notify_on[@]}"; do
      if [[ $on == "$class" ]]; then listed=1; fi
    done
    ((listed)) || return 0
  fi
  (
    umask "$user_umask"
    exec "$timeout_bin" -k 1s 30s "$env_bin" "CAIRN_PROCESS=$process" "CAIRN_STATUS=$1" "CAIRN_RUN=$run" "${notify_argv[@]}"
  ) </dev/null >&2 2>&1 {pass_fd}>&- {run_lock_fd}>&- || rc=$?
  if ((rc == 124 || rc == 137)); then
    say "cairn: notify: \"${notify_argv[0]}\" timed out after 30s"
  elif ((rc != 0)); then
    say "cairn: notify: \"${notify_argv[*]}\": exit status $rc"
  fi
}

# The repository, $CAIRN_HOME and the pass.
repo_root=$(git rev-parse --path-format=absolute --show-toplevel 2>/dev/null) ||
  fail "$PWD is not inside a git repository; run the script in one"
common_dir=$(git rev-parse --path-format=absolute --git-common-dir)
common_dir=$(cd -- "$common_dir" && pwd -P)
home=${CAIRN_HOME:-$HOME/.cairn}
mkdir -p -- "$home" "$home/locks" "$home/runs"
home=$(cd -- "$home" && pwd)
repo_hash=$(printf '%s' "$common_dir" | sha256sum)
repo_hash=${repo_hash:0:16}
pass_lock=$home/locks/pass-$repo_hash.lock
pass_fd='' finished=0 interrupted=0 kill_now=0 stopped=0 running=0 status=''
worktree_lock=$home/locks/worktrees-$repo_hash.lock
worktree_fd='' worktree_root=''
run_lock_fd='' record_begun=0 record_ended=0
# run_token marks the environment of every process a step starts (as
# CAIRN_STEP_TOKEN=RUN_TOKEN-STEP_INDEX), so that those a step leaves
# running can be found and ended, even in a session of their own.
printf -v run_token '%08x%08x' "$SRANDOM" "$SRANDOM"
throwaways=()
exec {pass_fd}<>"$pass_lock"
if ! flock -n "$pass_fd"; then
  who=$(jq -n -r 'try (input | if (.run // "") != "" then "run \(.run), pid \(.pid // 0)" else "pid \(.pid // 0)" end) catch "pid 0"' \
    <"$pass_lock" 2>/dev/null) || who="pid 0"
  printf 'cairn: skipped: another pass is running on this repository (%s)\n' "$who" >&2
  activity event=skipped "process=$process" "repo=$common_dir" "reason=another pass is running ($who)"
  exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-$process.XXXXXX")
trap on_exit EXIT
trap on_signal INT TERM

# The run folder, readable by its owner only, locked while the script runs: a
# running record whose lock is free is a crashed run's.
now_us
run_t0=$now
TZ=UTC printf -v stamp '%(%Y-%m-%dT%H%M%SZ)T' "$((run_t0 / 1000000))"
run_name=${process}_$stamp
n=2
until mkdir -m 700 -- "$home/runs/$run_name" 2>/dev/null; do
  [[ -e $home/runs/$run_name ]] || fail "create the run folder \"$run_name\" in $home/runs failed"
  run_name=${process}_$stamp-$n
  n=$((n + 1))
done
run=$home/runs/$run_name
exec {run_lock_fd}>>"$run/.lock"
flock "$run_lock_fd"
mkdir -m 700 -- "$run/results" "$run/traces" "$run/worktrees"
: >"$run/log"
record_begin
TZ=UTC printf '{"pid":%d,"run":"%s","since":"%(%Y-%m-%dT%H:%M:%SZ)T","repo":%s}\n' "$$" "$run_name" -1 \
  "$(jq -n --arg r "$common_dir" '$r')" >"$pass_lock"
activity event=start "run=$run_name" "process=$process" "repo=$common_dir"

# The worktrees, then the stages in order.
open_error=
if open_worktrees; then
  record_worktrees
else
  stopped=1
  for i in "${!step_names[@]}"; do cancel_step "$i"; done
fi
if ((!${#open_error})); then
  if ((stopped || interrupted)); then
    cancel_step 0
  else
    run_stage 0
  fi
fi
if ((!${#open_error})); then
  if ((stopped || interrupted)); then
    cancel_step 1
    cancel_step 2
    cancel_step 3
    cancel_step 4
  else
    run_stage 1 2 3 4
  fi
fi
if ((!${#open_error})); then
  if ((stopped || interrupted)); then
    cancel_step 5
  else
    run_stage 5
  fi
fi

close_worktrees
finished=1
if [[ -n $open_error ]]; then printf 'cairn: error: %s\n' "$open_error" >&2; fi

# The last stage's results, in file order.
for i in "${last_stage[@]}"; do
  f=$run/results/${step_names[i]}.md
  if [[ -s $f ]]; then
    cat -- "$f"
    if [[ $(tail -c 1 -- "$f") != '' ]]; then printf '\n'; fi
  fi
done

status=succeeded
if ((interrupted)); then status=interrupted; elif ((stopped)) || [[ -e $tmp/record.failed ]]; then status=failed; fi
# A run that failed at a step ends with one line that says which, and why:
# its first failed step that is not optional.
if [[ $status == failed && -z $open_error ]]; then
  for i in "${!step_names[@]}"; do
    f=${step_names[i]}
    if ((!step_optional[i])) && [[ -f $tmp/outcome.$f && $(<"$tmp/outcome.$f") == failed ]]; then
      cause=$(<"$tmp/cause.$f") || cause=
      printf 'cairn: failed at step %s%s\n' "$f" "${cause:+: $cause}" >&2
      break
    fi
  done
fi
run_cause=
if ((!interrupted)); then run_cause=$open_error; fi
record_end "$status" "$run_cause" || status=failed
activity event=end "run=$run_name" "process=$process" "repo=$common_dir" "status=$status"
notify "$status"
case $status in
succeeded) exit 0 ;;
interrupted) printf 'cairn: interrupted\n' >&2 && exit 130 ;;
*) exit 1 ;;
esac

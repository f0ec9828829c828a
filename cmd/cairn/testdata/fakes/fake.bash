# fake.bash: what the fake agent CLIs beside it share; each sources it.
#
# Every call is recorded in $FAKE_LOG/NAME.N/ (N counts the calls of NAME
# from 1, --version included): argv (one argument a line), stdin (what the
# CLI read; empty when it reads none), cwd, pid, and env (the CAIRN_*
# variables but the step token, which differs from process to process, and
# the variables cairn sets for an agent's access and retries: IS_SANDBOX,
# CLAUDE_CODE_MAX_RETRIES, CLAUDE_CODE_RETRY_WATCHDOG*, OPENCODE_PERMISSION).
# The Nth session of NAME in a step (STEP is $CAIRN_STEP; N counts from 1,
# and is recorded in $FAKE_LOG/NAME.M/session) answers with the text of
# $FAKE_ANSWERS/NAME.STEP.N, else of $FAKE_ANSWERS/NAME.STEP, else of
# $FAKE_ANSWERS/NAME, else "NAME: done.", in the real CLI's output format;
# $FAKE_ANSWERS/NAME.STEP[.N].do, when there is one, is what it does first,
# and what it writes to the file $FAKE_MESSAGE, when anything, is the
# answer (a URL gh printed, say).
# An answer that starts with "@max-turns" makes fake claude stop at its
# --max-turns as the real one does, with no final message; fake codex and
# opencode, whose CLIs have no turn cap, then call tools forever, printing
# each call's events, until they are killed, and fake gemini answers with an
# empty message. A session
# resumed with an id the fake never gave fails as the real CLI does. FAKE_FAIL (names, separated by blanks or commas) makes
# NAME fail as the real CLI fails without credentials; FAKE_LOGGED_OUT
# (names, likewise) makes NAME's login status command (claude auth status,
# codex login status, opencode auth list) answer as the real one does when
# not logged in; those probes are recorded in $FAKE_LOG/NAME.login, a line
# each, not among the numbered calls. FAKE_SLEEP=SECONDS
# makes a session work that long first. A flag the real CLI does not take
# is refused with exit 2, so the fakes cannot drift from what cairn passes.
# A session reports what it used in its CLI's format, fixed figures for
# each fake (FAKE_COST=USD sets what a claude or opencode session costs);
# claude and codex count a resumed session's usage from its first start,
# as the real ones do (fake_runs). Fake claude given --max-budget-usd below its session's cost stops
# with error_max_budget_usd, as the real one does.

# The tests' PATH may hold only cairn, git and the fakes.
PATH=$PATH:/usr/bin:/bin
fake_name=${0##*/}
fake_dir=
fake_msg=

# fake_record records this call's argv, cwd and environment.
fake_record() {
  [ -n "${FAKE_LOG:-}" ] || return 0
  mkdir -p "$FAKE_LOG" || exit 99
  local n=1
  until mkdir "$FAKE_LOG/$fake_name.$n" 2>/dev/null; do
    [ -e "$FAKE_LOG/$fake_name.$n" ] || { echo "fake $fake_name: cannot write $FAKE_LOG" >&2; exit 99; }
    n=$((n + 1))
  done
  fake_dir=$FAKE_LOG/$fake_name.$n
  if (($#)); then printf '%s\n' "$@"; fi >"$fake_dir/argv"
  pwd >"$fake_dir/cwd"
  echo "$$" >"$fake_dir/pid"
  local v
  for v in $(compgen -e); do
    case $v in
    CAIRN_STEP_TOKEN) ;;
    CAIRN_* | IS_SANDBOX | CLAUDE_CODE_MAX_RETRIES | CLAUDE_CODE_RETRY_WATCHDOG* | OPENCODE_PERMISSION) printf '%s=%s\n' "$v" "${!v}" ;;
    esac
  done >"$fake_dir/env"
  : >"$fake_dir/stdin"
}

# fake_stdin reads all of stdin into fake_input and records it.
fake_stdin() {
  # cat reads a long prompt at once, where read would take it a byte at a
  # time; the x keeps its trailing newlines.
  fake_input=$(cat; echo x)
  fake_input=${fake_input%x}
  if [ -n "$fake_dir" ]; then printf '%s' "$fake_input" >"$fake_dir/stdin"; fi
}

# fake_session sets fake_n to this session's number among NAME's sessions
# of the step (of its item, for a step with for_each), and records it. The
# sessions of one step (or item) run one at a time.
fake_session() {
  fake_n=1
  [ -n "${FAKE_LOG:-}" ] || return 0
  local counter=$FAKE_LOG/.sessions/$fake_name.${CAIRN_STEP:-}${CAIRN_ITEM_INDEX:+.$CAIRN_ITEM_INDEX}
  mkdir -p "${counter%/*}" || exit 99
  if [ -f "$counter" ]; then fake_n=$(($(<"$counter") + 1)); fi
  echo "$fake_n" >"$counter"
  if [ -n "$fake_dir" ]; then echo "$fake_n" >"$fake_dir/session"; fi
}

# fake_answer sets fake_msg to this session's final message, and
# fake_max_turns to 1 when the answer is "@max-turns". When
# $FAKE_ANSWERS/NAME.STEP.N.do or NAME.STEP.do exists, bash runs it first in
# the session's folder: what an agent would do there (edit, commit).
fake_answer() {
  local f
  fake_max_turns=0
  fake_session
  local said=''
  if [ -n "${FAKE_ANSWERS:-}" ]; then
    for f in "$FAKE_ANSWERS/$fake_name.${CAIRN_STEP:-}.$fake_n.do" "$FAKE_ANSWERS/$fake_name.${CAIRN_STEP:-}.do"; do
      if [ -f "$f" ]; then
        said=$(mktemp)
        FAKE_MESSAGE=$said bash "$f" || exit 99
        break
      fi
    done
  fi
  if [ -s "$said" ]; then
    IFS= read -r -d '' fake_msg <"$said" || true
    rm -f -- "$said"
    return
  fi
  if [ -n "$said" ]; then rm -f -- "$said"; fi
  fake_msg="$fake_name: done."
  if [ -n "${FAKE_ANSWERS:-}" ]; then
    for f in "$FAKE_ANSWERS/$fake_name.${CAIRN_STEP:-}.$fake_n" "$FAKE_ANSWERS/$fake_name.${CAIRN_STEP:-}" "$FAKE_ANSWERS/$fake_name"; do
      if [ -f "$f" ]; then
        fake_msg=
        IFS= read -r -d '' fake_msg <"$f" || true
        break
      fi
    done
  fi
  if [[ $fake_msg == @max-turns* ]]; then
    fake_max_turns=1 fake_msg=
  fi
}

# fake_fails reports whether FAKE_FAIL names this CLI.
fake_fails() {
  fake_named "${FAKE_FAIL:-}"
}

# fake_logged_in reports whether this CLI is logged in: FAKE_LOGGED_OUT
# does not name it.
fake_logged_in() {
  ! fake_named "${FAKE_LOGGED_OUT:-}"
}

# fake_named reports whether the list $1 names this CLI.
fake_named() {
  local list=" $1 "
  list=${list//,/ }
  [[ $list == *" $fake_name "* ]]
}

# fake_login records a login probe (its argv, on one line).
fake_login() {
  [ -n "${FAKE_LOG:-}" ] || return 0
  mkdir -p "$FAKE_LOG" || exit 99
  printf '%s\n' "$*" >>"$FAKE_LOG/$fake_name.login"
}

# fake_work spends FAKE_SLEEP seconds, as a real session spends minutes.
fake_work() {
  if [ -n "${FAKE_SLEEP:-}" ]; then sleep "$FAKE_SLEEP"; fi
}

# fake_tool_pace is how long an endless session's fake model takes to ask
# for its next tool call.
fake_tool_pace() {
  sleep 0.05
}

# fake_usage refuses the command line as the real CLI would: the message on
# stderr, exit 2.
fake_usage() {
  printf '%s\n' "$1" >&2
  exit 2
}

# json_str writes $1 as a JSON string.
json_str() {
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\n'/\\n}
  s=${s//$'\r'/\\r}
  s=${s//$'\t'/\\t}
  printf '"%s"' "$s"
}

# one_of reports whether $1 is one of the rest.
one_of() {
  local v=$1 c
  shift
  for c in "$@"; do [ "$v" = "$c" ] && return 0; done
  return 1
}

# fake_times writes the product of the numbers $1 and $2.
fake_times() {
  awk -v a="$1" -v b="$2" 'BEGIN { printf "%.10g", a * b }'
}

# fake_above reports whether the number $1 is above the number $2.
fake_above() {
  awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'
}

# fake_runs sets fake_runs to how many times the CLI has run its session,
# this run included: 1 for a fresh session, one more than the last run's
# for a resumed one. The fakes' sessions all have one id: a step's (an
# item's, for a step with for_each) are counted apart, as the sessions of
# the items of a step run at once.
fake_runs() {
  fake_runs=1
  [ -n "${FAKE_LOG:-}" ] || return 0
  local counter=$FAKE_LOG/.sessions/$fake_name.${CAIRN_STEP:-}${CAIRN_ITEM_INDEX:+.$CAIRN_ITEM_INDEX}.runs
  mkdir -p "${counter%/*}" || exit 99
  if [ -n "$1" ] && [ -f "$counter" ]; then fake_runs=$(($(<"$counter") + 1)); fi
  echo "$fake_runs" >"$counter"
}

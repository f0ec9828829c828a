#!/usr/bin/env bash
# check.sh: the Action's second step. It runs `cairn check` with the args
# input (split as the shell splits words, without expanding anything; none:
# the repository's process files, as the pre-commit hook finds them) in the
# format the format input names: annotations, or a SARIF file. It asks no
# harness whether it can start unless the preflight input is true: a
# runner has no agent CLI.
set -euo pipefail

fail() {
  printf '::error title=cairn::%s\n' "$*"
  exit 1
}

args=()
if [[ -n ${CAIRN_ARGS//[[:space:]]/} ]]; then
  # xargs splits words as a shell does, quotes included, and expands nothing.
  words=$(mktemp "${RUNNER_TEMP:-/tmp}/cairn-args.XXXXXX")
  printf '%s' "$CAIRN_ARGS" | xargs printf '%s\0' >"$words" ||
    fail "args \"$CAIRN_ARGS\" do not split into words (an unclosed quote?)"
  while IFS= read -r -d '' word; do args+=("$word"); done <"$words"
  rm -f -- "$words"
fi

if ((${#args[@]} == 0)); then
  # The repository's process files, as the pre-commit hook finds them.
  while IFS= read -r -d '' f; do
    if [[ $f =~ (^|/)\.cairn/processes/[^/]+\.(toml|hcl|card)$|\.card$ && ! $f =~ \.(stubs|test)\.toml$ ]]; then
      args+=("$f")
    fi
  done < <(git ls-files -z)
  if ((${#args[@]} == 0)); then
    printf '::warning title=cairn::no process files in .cairn/processes/ or cards in this repository; name them in the args input\n'
    exit 0
  fi
fi
flags=()
if [[ ${CAIRN_PREFLIGHT:-false} != true ]]; then flags+=(--no-preflight); fi

status=0
case ${CAIRN_FORMAT:-github} in
github) cairn check --format github "${flags[@]}" "${args[@]}" || status=$? ;;
sarif)
  file=${CAIRN_SARIF_FILE:-cairn.sarif}
  mkdir -p -- "$(dirname -- "$file")" || fail "cannot make the folder of sarif-file \"$file\""
  cairn check --format sarif "${flags[@]}" "${args[@]}" >"$file" || status=$?
  [[ -s $file ]] || fail "cairn check wrote no SARIF to \"$file\""
  printf 'sarif-file=%s\n' "$file" >>"$GITHUB_OUTPUT"
  ;;
*) fail "format \"$CAIRN_FORMAT\" is neither github nor sarif" ;;
esac
if ((status > 1)); then
  exit "$status"
fi
if ((status == 1)) && [[ ${CAIRN_FAIL:-true} != false ]]; then
  exit 1
fi
exit 0

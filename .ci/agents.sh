#!/usr/bin/env bash
# agents.sh DIR: installs the real agent CLIs, at the versions pinned below,
# into DIR (outside the repository) for the real-agent suite (docs/design.md §11):
# DIR/node_modules/.bin then holds claude, gemini, opencode and codex.
# When the npm registry cannot be reached it says so and exits 0, so that CI
# skips the suite rather than fail.
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: agents.sh DIR" >&2
  exit 2
fi
dir=$(realpath -m -- "$1")
repo=$(cd "$(dirname "$0")/.." && pwd -P)
case $dir/ in
"$repo"/*)
  echo "agents: $dir is inside the repository; install the agent CLIs outside it" >&2
  exit 2
  ;;
esac

packages=(
  @anthropic-ai/claude-code@2.1.332
  @google/gemini-cli@0.61.0
  opencode-ai@1.18.33
  @openai/codex@0.171.0
)

# The CLIs are cached by version: a DIR that already holds exactly these
# packages (its stamp says so) and their commands is used as it is.
stamp="$dir/.cairn-agents"
want=$(printf '%s\n' "${packages[@]}")
installed() {
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] || return 1
  for bin in claude gemini opencode codex; do
    [ -x "$dir/node_modules/.bin/$bin" ] || return 1
  done
}
if installed; then
  echo "agents: cached in $dir"
  exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
  echo "agents: npm not found; skipping the real agent CLIs"
  exit 0
fi
if ! npm ping --fetch-retries=0 --fetch-timeout=20000 >/dev/null 2>&1; then
  echo "agents: the npm registry cannot be reached; skipping the real agent CLIs"
  exit 0
fi

mkdir -p "$dir"
# A package.json of its own keeps npm from walking up into a project above DIR.
[ -f "$dir/package.json" ] || echo '{"private": true}' >"$dir/package.json"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "${packages[@]}"
printf '%s\n' "$want" >"$stamp"
for bin in claude gemini opencode codex; do
  printf 'agents: %s %s\n' "$bin" "$("$dir/node_modules/.bin/$bin" --version 2>/dev/null | head -n 1)"
done

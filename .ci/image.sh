#!/usr/bin/env bash
# image.sh: builds the container image (Dockerfile) and runs `cairn doctor`
# in it, which must find git, gh, jq, bash and each agent CLI at the version
# cairn was verified with. Where docker has no daemon it says so and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v docker >/dev/null 2>&1; then
  echo "image: skipped: docker is not installed"
  exit 0
fi
if ! why=$(docker info 2>&1 >/dev/null); then
  echo "image: skipped: docker has no daemon here (${why%%$'\n'*})"
  exit 0
fi
tag=cairn:ci
docker build --quiet --tag "$tag" . >/dev/null
out=$(docker run --rm "$tag" doctor) || {
  printf '%s\n' "$out"
  echo "image: cairn doctor failed in the image" >&2
  exit 1
}
printf '%s\n' "$out"
for cli in git gh jq bash claude codex gemini opencode; do
  if ! grep -Eq "^$cli +ok " <<<"$out"; then
    echo "image: $cli is not ok in the image" >&2
    exit 1
  fi
done
echo "image: ok"

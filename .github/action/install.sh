#!/usr/bin/env bash
# install.sh: the Action's first step. It downloads the release archive of
# cairn for this runner, and the release's checksums.txt, from
# $CAIRN_DOWNLOAD_URL (GitHub's releases of cairn-dev/cairn, or a mirror),
# checks the archive's SHA-256 against it, and puts cairn on the job's PATH.
# The archives are named as .goreleaser.yaml names them:
# cairn_OS_ARCH.tar.gz.
set -euo pipefail

fail() {
  printf '::error title=cairn::%s\n' "$*"
  exit 1
}

version=${CAIRN_VERSION:-latest}
base=${CAIRN_DOWNLOAD_URL%/}
case $version in
latest) url=$base/latest/download ;;
v[0-9]* | [0-9]*)
  [[ $version =~ ^v?[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]] ||
    fail "version \"$version\" is not a release's version; write one such as 1.0.0, or latest"
  url=$base/download/v${version#v}
  ;;
*) fail "version \"$version\" is not a release's version; write one such as 1.0.0, or latest" ;;
esac

case ${RUNNER_OS:-$(uname -s)} in
Linux) os=linux ;;
macOS | Darwin) os=darwin ;;
Windows) os=windows ;;
*) fail "runner OS \"${RUNNER_OS:-}\" has no cairn release" ;;
esac
case ${RUNNER_ARCH:-$(uname -m)} in
X64 | x86_64 | amd64) arch=amd64 ;;
ARM64 | aarch64 | arm64) arch=arm64 ;;
*) fail "runner architecture \"${RUNNER_ARCH:-}\" has no cairn release" ;;
esac
archive=cairn_${os}_${arch}.tar.gz
exe=cairn
if [[ $os == windows ]]; then
  archive=cairn_${os}_${arch}.zip
  exe=cairn.exe
fi

dir=$(mktemp -d "${RUNNER_TEMP:-/tmp}/cairn.XXXXXX")
get() {
  curl --fail --silent --show-error --location --retry 3 --proto '=https,http' -o "$dir/$2" "$url/$1" ||
    fail "download $url/$1 failed"
}
get "$archive" "$archive"
get checksums.txt checksums.txt
want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$dir/checksums.txt")
[[ $want =~ ^[0-9a-f]{64}$ ]] || fail "checksums.txt of $url names no SHA-256 of $archive"
if command -v sha256sum >/dev/null; then
  got=$(sha256sum "$dir/$archive")
else
  got=$(shasum -a 256 "$dir/$archive")
fi
got=${got%% *}
[[ $got == "$want" ]] || fail "$archive from $url has SHA-256 $got, but checksums.txt says $want: not installed"

mkdir "$dir/bin"
if [[ $archive == *.zip ]]; then
  unzip -q -o "$dir/$archive" "$exe" -d "$dir/bin"
else
  tar -xzf "$dir/$archive" -C "$dir/bin" "$exe"
fi
chmod +x "$dir/bin/$exe"
installed=$("$dir/bin/$exe" --version) || fail "the cairn of $archive does not start"
echo "$dir/bin" >>"$GITHUB_PATH"
printf 'version=%s\n' "$installed" >>"$GITHUB_OUTPUT"
printf 'installed %s from %s\n' "$installed" "$url/$archive"

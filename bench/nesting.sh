#!/usr/bin/env bash
# bench/nesting.sh: what refusing a huge file costs, in `cairn check` and in
# `cairn lsp` (issue 26, item 5): under a second and under 100 MB for any
# file up to the 16 MiB cairn reads.
#
# Shapes (bench/out/nesting, each just under 16 MiB, 64 bytes short so that
# the LSP's edits keep it under the limit):
#   hcl-lines   HCL nested 8 million brackets deep, one "[" a line;
#   hcl-line    HCL nested 16 million brackets deep on one line;
#   card-lines  a card's front matter nested the same, one "[" a line;
#   card-line   the same on one line;
#   toml-line   TOML nested on one line (TOML's parser stops at its own limit);
#   hcl-string  HCL that is not deep: a string of 16 MiB, the value of a key
#               check does not know, so that it quotes that line;
#   toml-string the same in TOML.
# Each is run through `cairn check --no-preflight --format F` for F in text,
# json, sarif and github, timed by bench/measure (wall, CPU, peak RSS from
# getrusage), and through `cairn lsp` by bench/lspedit: the document opened,
# then 5 changes of the whole text (the server asks for whole documents),
# each waited for; the wait includes the server's debounce of 200 ms. The
# table gives the median of K runs (default 3) and whether the bars are met
# (on a loaded machine, wall time says more of the load than of cairn; the
# CPU time is printed beside it).
#
# It exits 0 whether or not a bar is met; non-zero only when something broke.
# Environment: K (runs, default 3), CAIRN (a cairn binary to measure instead
# of the one built from this tree, to compare with another commit's).
set -euo pipefail

K=${K:-3}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
out=$root/bench/out
bin=$out/bin
dir=$out/nesting
mkdir -p "$bin"

die() { echo "bench/nesting.sh: $*" >&2; exit 1; }
say() { echo "== $*"; }

say "building cairn, the timer and the LSP driver"
cairn=${CAIRN:-$bin/cairn}
[ -n "${CAIRN:-}" ] || CGO_ENABLED=0 go build -o "$cairn" ./cmd/cairn
go build -o "$bin/measure" ./bench/measure
go build -o "$bin/lspedit" ./bench/lspedit

# --- the shapes ---------------------------------------------------------------
size=$(((16 << 20) - 64))
# repeat TEXT N writes TEXT N times.
repeat() {
	if [ "${#1}" = 1 ]; then
		head -c "$2" /dev/zero | tr '\0' "$1"
	else
		awk -v s="$1" -v n="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s", s }'
	fi
}
# shape NAME HEAD BODY TAIL: NAME is HEAD, BODY repeated to fill the size, TAIL.
shape() {
	local name=$1 head=$2 body=$3 tail=$4
	local n=$(((size - ${#head} - ${#tail}) / ${#body}))
	{ printf '%s' "$head"; repeat "$body" "$n"; printf '%s' "$tail"; } >"$dir/$name"
}
say "generating the shapes into $dir"
rm -rf "$dir"
mkdir -p "$dir"
nl=$'\n'
shape hcl-lines.hcl "version = 1${nl}a = " "[$nl" "$nl"
shape hcl-line.hcl "version = 1${nl}a = " "[" "$nl"
shape card-lines.procedure.card "---${nl}a: " "[$nl" "$nl---$nl"
shape card-line.procedure.card "---${nl}a: " "[" "$nl---$nl"
shape toml-line.toml "version = 1${nl}a = " "[" "$nl"
shape hcl-string.hcl "version = 1${nl}a = \"" "x" "\"$nl"
shape toml-string.toml "version = 1${nl}a = \"" "x" "\"$nl"
(
	cd "$dir"
	export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
	export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
	git -c init.defaultBranch=main init -q .
	git add -A
	git commit -q -m "nesting shapes"
)
shapes=(hcl-lines.hcl hcl-line.hcl card-lines.procedure.card card-line.procedure.card toml-line.toml hcl-string.hcl toml-string.toml)
for f in "${shapes[@]}"; do
	[ "$(wc -c <"$dir/$f")" -le $((16 << 20)) ] || die "$f is larger than 16 MiB"
done

CAIRN_HOME=$(mktemp -d "${TMPDIR:-/tmp}/cairn-bench-home.XXXXXX")
export CAIRN_HOME
trap 'rm -rf "$CAIRN_HOME"' EXIT
unset CAIRN_CONFIG NO_COLOR GOGC GOMEMLIMIT GOMAXPROCS || true

# check FILE FORMAT: one timed `cairn check`, printing "wall-ns cpu-ns rss-KiB";
# check exits 1 on a refused file, as it should.
check() {
	local rc=0
	(cd "$dir" && "$bin/measure" "$cairn" check --no-preflight --format "$2" "$1") 2>"$out/nesting.stderr" || rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 1 ] || { head -c 2000 "$out/nesting.stderr" >&2; die "cairn check --format $2 $1 exited $rc"; }
}
# lsp FILE: one `cairn lsp` session, printing "wall-ns longest-wait-ns cpu-ns rss-KiB diagnostics".
lsp() {
	(cd "$dir" && "$bin/lspedit" -cairn "$cairn" -edits 5 "$1") 2>"$out/nesting.stderr" ||
		{ head -c 2000 "$out/nesting.stderr" >&2; die "cairn lsp on $1 failed"; }
}
# median COLUMN: the median of a column of numbers on stdin.
median() { awk -v c="$1" '{ print $c }' | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

say "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores; $K runs each"
echo
echo "check: the run's wall and CPU time; lsp: the longest wait for a version's diagnostics (200 ms of"
echo "debounce included) and the server's CPU time over the whole session (6 versions)"
printf '%-26s %-7s %10s %10s %10s  %s\n' shape how "wall ms" "CPU ms" "RSS MiB" "bars: < 1 s, < 100 MB"
for f in "${shapes[@]}"; do
	for how in text json sarif github lsp; do
		runs=
		for ((i = 0; i < K; i++)); do
			if [ "$how" = lsp ]; then
				runs+="$(lsp "$f" | awk '{ print $2, $3, $4 }')"$'\n'
			else
				runs+="$(check "$f" "$how")"$'\n'
			fi
		done
		wall=$(printf '%s' "$runs" | median 1)
		cpu=$(printf '%s' "$runs" | median 2)
		rss=$(printf '%s' "$runs" | median 3)
		awk -v f="$f" -v h="$how" -v w="$wall" -v c="$cpu" -v r="$rss" 'BEGIN {
			ok = (w < 1e9 && r * 1024 < 100e6) ? "MET" : "MISSED"
			printf "%-26s %-7s %10.0f %10.0f %10.1f  %s\n", f, h, w / 1e6, c / 1e6, r / 1024, ok
		}'
	done
done
echo
say "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

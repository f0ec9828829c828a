#!/usr/bin/env bash
# bench/check.sh: measures cairn against SPEC §12's check bars.
#
#   1. `cairn check --no-preflight --format json` of 200 process files x 50
#      command steps, against `actionlint -shellcheck= -pyflakes=` of 200
#      GitHub workflow files x 50 run steps of the same scripts: medians of
#      K alternating runs each, and the ratio cairn/actionlint (bar: <= 1.0).
#   2. Peak RSS of `cairn check --no-preflight` of one 10,000-step process
#      (bar: < 100 MiB).
#
# It prints whether each bar is met and exits 0; it exits non-zero only when
# something broke (a build, the corpus, a tool that refuses the corpus).
# Environment: K (runs per tool, default 11), BENCH_NO_HYPERFINE=1 to time
# with a plain loop even when hyperfine is installed.
set -euo pipefail

ACTIONLINT_VERSION=v1.7.12
K=${K:-11}

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
out=$root/bench/out
bin=$out/bin
mkdir -p "$bin"

die() { echo "bench/check.sh: $*" >&2; exit 1; }
say() { echo "== $*"; }

# --- tools -----------------------------------------------------------------
if ! [ -x "$bin/actionlint" ] || [ "$("$bin/actionlint" -version | head -n 1)" != "$ACTIONLINT_VERSION" ]; then
	say "installing actionlint $ACTIONLINT_VERSION into $bin"
	GOBIN=$bin GOFLAGS= go install "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION"
fi
say "building cairn and the corpus generator"
go build -o "$bin/cairn" ./cmd/cairn
go build -o "$bin/gen" ./bench/gen

if ! [ -x /usr/bin/time ] || ! /usr/bin/time -v true >/dev/null 2>&1; then
	say "installing GNU time"
	if [ "$(id -u)" = 0 ]; then
		apt-get install -y -qq time >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
	else
		sudo apt-get install -y -qq time >/dev/null
	fi
fi

# --- corpus, in a git repository made for it --------------------------------
corpus=$out/corpus
rm -rf "$corpus"
say "generating the corpus into $corpus"
"$bin/gen" -out "$corpus" -files 200 -steps 50
"$bin/gen" -out "$corpus/big" -files 1 -steps 10000
(
	cd "$corpus"
	export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
	export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
	git -c init.defaultBranch=main init -q .
	git add -A
	git commit -q -m "benchmark corpus"
)

CAIRN_HOME=$(mktemp -d "${TMPDIR:-/tmp}/cairn-bench-home.XXXXXX")
export CAIRN_HOME
trap 'rm -rf "$CAIRN_HOME"' EXIT
unset CAIRN_CONFIG NO_COLOR || true

cd "$corpus"
procs=(processes/*.toml)
wfs=(.github/workflows/*.yml)
[ "${#procs[@]}" = 200 ] && [ "${#wfs[@]}" = 200 ] || die "expected 200 + 200 corpus files, got ${#procs[@]} + ${#wfs[@]}"
cairn_cmd=("$bin/cairn" check --no-preflight --format json "${procs[@]}")
lint_cmd=("$bin/actionlint" -no-color -shellcheck= -pyflakes= "${wfs[@]}")

# --- both tools must accept the corpus --------------------------------------
say "checking that both tools accept the corpus"
rc=0
"${cairn_cmd[@]}" >"$out/cairn.json" 2>"$out/cairn.stderr" || rc=$?
if [ "$rc" != 0 ]; then
	head -c 4000 "$out/cairn.json" >&2 || true
	head -n 40 "$out/cairn.stderr" >&2 || true
	die "cairn check exited $rc on the corpus (output in $out/cairn.json, $out/cairn.stderr)"
fi
plans=$(grep -o '"process": *"p-[0-9]*"' "$out/cairn.json" | sort -u | wc -l || true)
echo "cairn: exit 0, $plans distinct plans in $(wc -c <"$out/cairn.json") bytes of JSON"
rc=0
"${lint_cmd[@]}" >"$out/actionlint.out" 2>&1 || rc=$?
if [ "$rc" != 0 ] || [ -s "$out/actionlint.out" ]; then
	head -n 40 "$out/actionlint.out" >&2
	die "actionlint exited $rc or reported errors on the corpus"
fi
echo "actionlint: exit 0, no errors"

# --- timing -----------------------------------------------------------------
# time_one NAME CMD... prints the wall time and the CPU time (user + system)
# of one run of CMD, in nanoseconds. CPU time is printed too because this
# machine may be shared: it moves less than wall time when other work runs.
cpu_file=$(mktemp)
if command -v hyperfine >/dev/null && [ -z "${BENCH_NO_HYPERFINE:-}" ]; then
	timer="hyperfine (-N, one run per call, so the two tools alternate)"
	time_one() {
		local name=$1 cmd
		shift
		printf -v cmd '%q ' "$@"
		hyperfine -N --runs 1 --style none -n "$name" --export-csv "$cpu_file" -- "$cmd" >/dev/null
		awk -F, 'NR == 2 { printf "%.0f %.0f\n", $2 * 1e9, ($5 + $6) * 1e9 }' "$cpu_file"
	}
else
	timer="a plain loop with date +%s%N (CPU time from GNU time)"
	time_one() {
		shift
		local t0 t1
		t0=$(date +%s%N)
		/usr/bin/time -f '%U %S' -o "$cpu_file" "$@" >/dev/null 2>&1 || die "command failed while timing: $*"
		t1=$(date +%s%N)
		awk -v wall=$((t1 - t0)) '{ printf "%.0f %.0f\n", wall, ($1 + $2) * 1e9 }' "$cpu_file"
	}
fi

# median COLUMN FILE prints the median of a column of numbers.
median() { awk -v c="$1" '{ print $c }' "$2" | sort -n | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.0f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
ms() { awk -v ns="$1" 'BEGIN { printf "%.1f ms", ns / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

say "timing $K alternating runs each with $timer, after one warm-up each"
say "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
time_one cairn "${cairn_cmd[@]}" >/dev/null
time_one actionlint "${lint_cmd[@]}" >/dev/null
: >"$out/times-cairn.txt"
: >"$out/times-actionlint.txt"
for ((i = 1; i <= K; i++)); do
	time_one cairn "${cairn_cmd[@]}" >>"$out/times-cairn.txt"
	time_one actionlint "${lint_cmd[@]}" >>"$out/times-actionlint.txt"
done
say "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -f "$cpu_file"
cairn_med=$(median 1 "$out/times-cairn.txt")
lint_med=$(median 1 "$out/times-actionlint.txt")
cairn_cpu=$(median 2 "$out/times-cairn.txt")
lint_cpu=$(median 2 "$out/times-actionlint.txt")
wall_ratio=$(ratio "$cairn_med" "$lint_med")
cpu_ratio=$(ratio "$cairn_cpu" "$lint_cpu")
check_ok=$(awk -v a="$cairn_med" -v b="$lint_med" 'BEGIN { print (a <= b) ? "MET" : "MISSED" }')

# --- memory -----------------------------------------------------------------
say "peak RSS of cairn check --no-preflight on the 10,000-step process"
big=big/processes/p-0000.toml
rc=0
/usr/bin/time -v "$bin/cairn" check --no-preflight "$big" >"$out/big.out" 2>"$out/big.time" || rc=$?
if [ "$rc" != 0 ]; then
	grep -v '^\s' "$out/big.time" | head -n 20 >&2 || true
	head -n 20 "$out/big.out" >&2
	die "cairn check exited $rc on $big"
fi
rss_kb=$(awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }' "$out/big.time")
big_wall=$(awk '/Elapsed \(wall clock\)/ { print $NF }' "$out/big.time")
rss_ok=$(awk -v kb="$rss_kb" 'BEGIN { print (kb < 100 * 1024) ? "MET" : "MISSED" }')

# --- report -----------------------------------------------------------------
echo
echo "cairn check, 200 files x 50 steps:     median wall $(ms "$cairn_med"), CPU $(ms "$cairn_cpu") of $K runs"
echo "actionlint, 200 files x 50 run steps:  median wall $(ms "$lint_med"), CPU $(ms "$lint_cpu") of $K runs"
echo "ratio cairn/actionlint: wall $wall_ratio (CPU $cpu_ratio)   bar (wall <= 1.0): $check_ok"
echo "cairn check, 1 file x 10,000 steps: peak RSS $(awk -v kb="$rss_kb" 'BEGIN { printf "%.1f MiB", kb / 1024 }') (wall $big_wall)   bar (< 100 MiB): $rss_ok"
echo "raw times (wall and CPU, ns): $out/times-cairn.txt, $out/times-actionlint.txt; time -v: $out/big.time"

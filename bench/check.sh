#!/usr/bin/env bash
# bench/check.sh: cairn check against actionlint, side by side (docs/design.md §12).
#
# Corpora (bench/corpus; the same scripts in both tools' files):
#   short    200 files x 50 steps of short one-line commands (uniform);
#   scripts  200 files x 50 steps of distinct multi-line scripts, 5-40 lines;
#   one      1 file x 50 steps of the scripts corpus;
#   big      1 file x 10,000 steps of the scripts corpus (memory).
# Each run is `cairn check --no-preflight --format F FILES`, for each format F
# of FORMATS (default: every one: json text sarif github mermaid dot; the big
# file json only), against `actionlint -no-color -shellcheck= -pyflakes=
# FILES`, timed by bench/measure (wall, CPU = user + system, peak RSS from
# getrusage). Rounds rotate the tools' order; the table gives medians and
# cairn/actionlint ratios, a row per format.
# Last, `go test -bench Pipeline ./bench/` gives cairn's allocations per step.
#
# It prints whether each goal is met and exits 0; it exits non-zero only when
# something broke (a build, the corpus, a tool that refuses the corpus).
# Environment: K (rounds, default 11; the big file gets (K+1)/2), FORMATS,
# BENCH_NO_GO_BENCH=1 to skip the Go benchmark.
set -euo pipefail

ACTIONLINT_VERSION=v1.7.12
K=${K:-11}
read -r -a formats <<<"${FORMATS:-json text sarif github mermaid dot}"

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
out=$root/bench/out
bin=$out/bin
mkdir -p "$bin"

die() { echo "bench/check.sh: $*" >&2; exit 1; }
say() { echo "== $*"; }

# --- tools -----------------------------------------------------------------
actionlint=
for c in "$bin/actionlint" "$(command -v actionlint || true)" "$(go env GOPATH)/bin/actionlint"; do
	if [ -n "$c" ] && [ -x "$c" ] && [ "$("$c" -version | head -n 1)" = "$ACTIONLINT_VERSION" ]; then
		actionlint=$c
		break
	fi
done
if [ -z "$actionlint" ]; then
	say "installing actionlint $ACTIONLINT_VERSION into $bin"
	GOBIN=$bin GOFLAGS= go install "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION"
	actionlint=$bin/actionlint
fi
say "building cairn, the corpus generator and the timer"
CGO_ENABLED=0 go build -o "$bin/cairn" ./cmd/cairn   # static: no dynamic loader to pay for at each start
go build -o "$bin/gen" ./bench/gen
go build -o "$bin/measure" ./bench/measure

# --- corpora, each in a git repository made for it --------------------------
corpus() { # NAME KIND FILES STEPS
	local dir=$out/corpus/$1
	rm -rf "$dir"
	"$bin/gen" -kind "$2" -out "$dir" -files "$3" -steps "$4"
	(
		cd "$dir"
		export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
		export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
		git -c init.defaultBranch=main init -q .
		git add -A
		git commit -q -m "benchmark corpus"
	)
}
say "generating the corpora into $out/corpus"
corpus short short 200 50
corpus scripts scripts 200 50
corpus one scripts 1 50
corpus big scripts 1 10000

CAIRN_HOME=$(mktemp -d "${TMPDIR:-/tmp}/cairn-bench-home.XXXXXX")
export CAIRN_HOME
trap 'rm -rf "$CAIRN_HOME"' EXIT
unset CAIRN_CONFIG NO_COLOR GOGC GOMEMLIMIT GOMAXPROCS || true

names=(short scripts one big)
declare -A steps=([short]=10000 [scripts]=10000 [one]=50 [big]=10000)

# tools NAME: the tools timed on corpus NAME: cairn in each format (the big
# file in json only: it measures memory), then actionlint.
tools() {
	if [ "$1" = big ]; then
		echo cairn-json actionlint
	else
		printf 'cairn-%s ' "${formats[@]}"
		echo actionlint
	fi
}

# run TOOL NAME: one timed run of TOOL (cairn-FORMAT or actionlint) on corpus
# NAME, from its folder, appending "wall cpu rss" to its times file.
run() {
	local tool=$1 name=$2
	(
		cd "$out/corpus/$name"
		if [ "$tool" != actionlint ]; then
			exec "$bin/measure" "$bin/cairn" check --no-preflight --format "${tool#cairn-}" processes/*.toml
		fi
		exec "$bin/measure" "$actionlint" -no-color -shellcheck= -pyflakes= .github/workflows/*.yml
	) >>"$out/times-$name-$tool.txt" || die "$tool exited non-zero on corpus $name"
}

# --- both tools must accept every corpus -------------------------------------
say "checking that both tools accept every corpus"
for name in "${names[@]}"; do
	dir=$out/corpus/$name
	for tool in $(tools "$name"); do
		[ "$tool" = actionlint ] && continue
		f=${tool#cairn-}
		rc=0
		(cd "$dir" && "$bin/cairn" check --no-preflight --format "$f" processes/*.toml) >"$out/$name.$f" 2>"$out/$name.stderr" || rc=$?
		[ "$rc" = 0 ] || { head -n 40 "$out/$name.stderr" >&2; die "cairn check --format $f exited $rc on corpus $name"; }
	done
	rc=0
	(cd "$dir" && "$actionlint" -no-color -shellcheck= -pyflakes= .github/workflows/*.yml) >"$out/$name.actionlint" 2>&1 || rc=$?
	if [ "$rc" != 0 ] || [ -s "$out/$name.actionlint" ]; then
		head -n 40 "$out/$name.actionlint" >&2
		die "actionlint exited $rc or reported errors on corpus $name"
	fi
	sizes=
	for tool in $(tools "$name"); do
		[ "$tool" = actionlint ] || sizes+=" ${tool#cairn-} $(wc -c <"$out/$name.${tool#cairn-}")"
	done
	echo "$name: both exit 0, actionlint's output empty; cairn's output in bytes:$sizes"
done

# --- timing ------------------------------------------------------------------
say "$K rounds, rotating the tools' order, after one warm-up each"
say "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
rm -f "$out"/times-*.txt
for name in "${names[@]}"; do
	for tool in $(tools "$name"); do
		run "$tool" "$name"
		: >"$out/times-$name-$tool.txt"
	done
done
for ((i = 1; i <= K; i++)); do
	for name in "${names[@]}"; do
		[ "$name" = big ] && ((i > (K + 1) / 2)) && continue
		read -r -a ts <<<"$(tools "$name")"
		n=${#ts[@]}
		for ((j = 0; j < n; j++)); do
			run "${ts[(i + j) % n]}" "$name"
		done
	done
done
say "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# median COLUMN FILE prints the median of a column of numbers.
median() { awk -v c="$1" '{ print $c }' "$2" | sort -n | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.0f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# --- report -------------------------------------------------------------------
echo
printf '%-8s %-14s %10s %10s %10s %7s %7s %7s\n' corpus tool "wall ms" "CPU ms" "RSS MiB" "wall x" "CPU x" "RSS x"
declare -A wall cpu rss
for name in "${names[@]}"; do
	for tool in $(tools "$name"); do
		f=$out/times-$name-$tool.txt
		wall[$name-$tool]=$(median 1 "$f")
		cpu[$name-$tool]=$(median 2 "$f")
		rss[$name-$tool]=$(median 3 "$f")
	done
	for tool in $(tools "$name"); do
		awk -v n="$name" -v t="${tool/cairn-/cairn }" -v w="${wall[$name-$tool]}" -v c="${cpu[$name-$tool]}" -v r="${rss[$name-$tool]}" \
			-v lw="${wall[$name-actionlint]}" -v lc="${cpu[$name-actionlint]}" -v lr="${rss[$name-actionlint]}" 'BEGIN {
			if (t != "actionlint") printf "%-8s %-14s %10.1f %10.1f %10.1f %7.2f %7.2f %7.2f\n", n, t, w / 1e6, c / 1e6, r / 1024, w / lw, c / lc, r / lr
			else printf "%-8s %-14s %10.1f %10.1f %10.1f\n", n, t, w / 1e6, c / 1e6, r / 1024
		}'
	done
done
echo
goal() { # LABEL VALUE BAR AIM
	awk -v l="$1" -v v="$2" -v bar="$3" -v aim="$4" 'BEGIN {
		printf "%-50s %6.2f  goal <= %.2f (aim %.2f): %s\n", l, v, bar, aim, (v <= bar) ? "MET" : "MISSED"
	}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { print a / b }'; }
for name in short scripts; do
	for tool in $(tools "$name"); do
		[ "$tool" = actionlint ] && continue
		goal "$name: cairn --format ${tool#cairn-}/actionlint wall" "$(ratio "${wall[$name-$tool]}" "${wall[$name-actionlint]}")" 1.0 0.85
		goal "$name: cairn --format ${tool#cairn-}/actionlint CPU" "$(ratio "${cpu[$name-$tool]}" "${cpu[$name-actionlint]}")" 1.0 0.85
	done
done
for tool in $(tools one); do
	[ "$tool" = actionlint ] && continue
	goal "one: cairn --format ${tool#cairn-}/actionlint wall" "$(ratio "${wall[one-$tool]}" "${wall[one-actionlint]}")" 1.5 1.3
done
awk -v kb="${rss[big-cairn-json]}" 'BEGIN { printf "%-50s %6.1f  goal < 50 MiB: %s\n", "big (10,000 steps): cairn peak RSS, MiB", kb / 1024, (kb < 50 * 1024) ? "MET" : "MISSED" }'
echo "raw figures (wall ns, CPU ns, RSS KiB per run): $out/times-*.txt"

# --- allocations per step -------------------------------------------------------
if [ -z "${BENCH_NO_GO_BENCH:-}" ]; then
	echo
	say "cairn's allocations per step (go test -bench Pipeline ./bench/)"
	go test -run '^$' -bench 'Pipeline/' -benchtime 3x ./bench/ |
		awk '/^BenchmarkPipeline/ { name = $1; sub(/^BenchmarkPipeline\//, "", name); sub(/-[0-9]+$/, "", name)
			for (i = 2; i < NF; i++) { if ($(i + 1) == "B/step") b = $i; if ($(i + 1) == "allocs/step") a = $i }
			printf "%-8s %10.0f B/step %8.1f allocs/step\n", name, b, a }'
fi

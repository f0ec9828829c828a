#!/usr/bin/env bash
# bench/run.sh: measures cairn against docs/design.md §12's run bars.
#
#   1. `cairn run` of one process of 500 trivial command steps (`echo step N`),
#      one after the other in one shared throwaway worktree, against a bash
#      loop that spawns `bash -euo pipefail -c CMD` for each of the same 500
#      commands and writes each output to a file, in a git worktree it adds
#      and removes once: medians of K alternating runs each, and the ratio
#      cairn/loop (bar: <= 1.3).
#   2. `cairn run` of one parallel group of 8 steps that each `sleep 1`, each
#      in its own throwaway worktree: median wall time of K runs (bar: < 1.5 s).
#
# It prints whether each bar is met and exits 0; it exits non-zero only when
# something broke (the build, a run that did not succeed, a wrong result).
# Environment: K (runs each, default 7), BENCH_NO_HYPERFINE=1 to time with a
# plain loop even when hyperfine is installed.
set -euo pipefail

K=${K:-7}
STEPS=500
SLEEPERS=8

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
out=$root/bench/out
bin=$out/bin
work=$out/run
mkdir -p "$bin"

die() { echo "bench/run.sh: $*" >&2; exit 1; }
say() { echo "== $*"; }

# --- tools -----------------------------------------------------------------
say "building cairn"
CGO_ENABLED=0 go build -o "$bin/cairn" ./cmd/cairn   # static: no dynamic loader to pay for at each start
cairn=$bin/cairn

# --- a small repository with the two process files ---------------------------
rm -rf "$work"
repo=$work/repo
mkdir -p "$repo/processes" "$repo/src"
say "making the repository $repo"
{
	echo 'version = 1'
	echo 'description = "500 trivial command steps, one after the other, in the implicit default worktree"'
	for ((i = 1; i <= STEPS; i++)); do
		printf '\n[[steps]]\nname = "s-%03d"\ncommand = "echo step %d"\n' "$i" "$i"
	done
} >"$repo/processes/seq.toml"
{
	echo 'version = 1'
	echo "description = \"$SLEEPERS steps that sleep 1 s together, each in its own throwaway worktree\""
	for ((i = 1; i <= SLEEPERS; i++)); do
		printf '\n[worktrees.w%d]\nkind = "throwaway"\n' "$i"
	done
	for ((i = 1; i <= SLEEPERS; i++)); do
		printf '\n[[steps]]\nname = "sleep-%d"\ncommand = "sleep 1"\nworktree = "w%d"\nparallel = "sleepers"\n' "$i" "$i"
	done
} >"$repo/processes/par.toml"
# The loop runs exactly the commands of seq.toml, one a line.
for ((i = 1; i <= STEPS; i++)); do echo "echo step $i"; done >"$work/commands.txt"
printf '# bench\n\nA small repository for bench/run.sh.\n' >"$repo/README.md"
for f in a b c d e; do printf 'package src\n\nconst %s = "%s"\n' "$(tr a-z A-Z <<<"$f")" "$f" >"$repo/src/$f.go"; done
(
	cd "$repo"
	export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
	export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
	git -c init.defaultBranch=main init -q .
	git add -A
	git commit -q -m "bench repository"
)

# The bash loop the 500 steps are measured against: one worktree added and
# removed, like cairn's one throwaway, and each command's output in a file of
# its own, like cairn's results/STEP.md.
cat >"$work/loop.sh" <<'EOF'
#!/usr/bin/env bash
set -euo pipefail
repo=$1 commands=$2 dir=$3
rm -rf "$dir"
mkdir -p "$dir/results"
git -C "$repo" worktree add -q --detach "$dir/wt" HEAD
cd "$dir/wt"
i=0
while IFS= read -r cmd; do
	i=$((i + 1))
	bash -euo pipefail -c "$cmd" >"$dir/results/$i.md" 2>&1
done <"$commands"
cd "$dir"
git -C "$repo" worktree remove --force "$dir/wt"
EOF
chmod +x "$work/loop.sh"

CAIRN_HOME=$(mktemp -d "${TMPDIR:-/tmp}/cairn-bench-home.XXXXXX")
export CAIRN_HOME
trap 'rm -rf "$CAIRN_HOME"' EXIT
unset CAIRN_CONFIG NO_COLOR || true
loop_dir=$CAIRN_HOME/loop

cd "$repo"
seq_cmd=("$cairn" run processes/seq.toml)
par_cmd=("$cairn" run processes/par.toml)
loop_cmd=("$work/loop.sh" "$repo" "$work/commands.txt" "$loop_dir")

# --- both must do what they are timed for -------------------------------------
# verify NAME STEPS LAST checks the latest run of process NAME: succeeded,
# STEPS results, no worktree left behind, and LAST was its stdout.
verify() {
	local name=$1 steps=$2 last=$3 dir
	dir=$(ls -d "$CAIRN_HOME/runs/${name}_"* 2>/dev/null | tail -n 1)
	[ -n "$dir" ] || die "cairn run $name left no run folder"
	grep -q '"status": *"succeeded"' "$dir/run.json" || die "cairn run $name: run.json does not say succeeded ($dir)"
	[ "$(ls "$dir/results" | wc -l)" = "$steps" ] || die "cairn run $name: $(ls "$dir/results" | wc -l) results, want $steps ($dir)"
	[ "$(grep -c 'outcome=succeeded' "$dir/log")" = "$steps" ] || die "cairn run $name: the log has not $steps succeeded steps ($dir/log)"
	[ "$(cat "$out/run-$name.stdout")" = "$last" ] || die "cairn run $name printed $(head -c 200 "$out/run-$name.stdout"), want $last"
	if [ -d "$CAIRN_HOME/worktrees" ] && [ -n "$(find "$CAIRN_HOME/worktrees" -mindepth 2 -maxdepth 2)" ]; then
		die "cairn run $name left worktrees in $CAIRN_HOME/worktrees"
	fi
	[ "$(git -C "$repo" worktree list | wc -l)" = 1 ] || die "cairn run $name left git worktrees: $(git -C "$repo" worktree list)"
}
# once NAME CMD... runs a cairn run once, untimed, and checks it.
once() {
	local name=$1 rc=0
	shift
	"$@" >"$out/run-$name.stdout" 2>"$out/run-$name.stderr" || rc=$?
	if [ "$rc" != 0 ]; then
		head -n 40 "$out/run-$name.stderr" >&2
		die "cairn run $name exited $rc (stderr in $out/run-$name.stderr)"
	fi
}
say "checking that each run succeeds and records what it should"
once seq "${seq_cmd[@]}"
verify seq "$STEPS" "step $STEPS"
once par "${par_cmd[@]}"
verify par "$SLEEPERS" ""
"${loop_cmd[@]}" || die "the bash loop failed"
[ "$(ls "$loop_dir/results" | wc -l)" = "$STEPS" ] && [ "$(cat "$loop_dir/results/$STEPS.md")" = "step $STEPS" ] ||
	die "the bash loop did not write $STEPS results"
[ "$(git -C "$repo" worktree list | wc -l)" = 1 ] || die "the bash loop left a git worktree"
echo "cairn run seq: $STEPS steps succeeded; cairn run par: $SLEEPERS steps succeeded; the loop: $STEPS results"

# --- timing -----------------------------------------------------------------
# time_one NAME CMD... prints the wall time and the CPU time (user + system,
# children included) of one run of CMD, in nanoseconds.
cpu_file=$(mktemp)
if command -v hyperfine >/dev/null && [ -z "${BENCH_NO_HYPERFINE:-}" ]; then
	timer="hyperfine (-N, one run per call, so the two alternate)"
	time_one() {
		local name=$1 cmd
		shift
		printf -v cmd '%q ' "$@"
		hyperfine -N --runs 1 --style none -n "$name" --export-csv "$cpu_file" -- "$cmd" >/dev/null ||
			die "command failed while timing: $*"
		awk -F, 'NR == 2 { printf "%.0f %.0f\n", $2 * 1e9, ($5 + $6) * 1e9 }' "$cpu_file"
	}
else
	timer="a plain loop with date +%s%N"
	have_time=
	[ -x /usr/bin/time ] && /usr/bin/time -f '%U %S' -o "$cpu_file" true 2>/dev/null && have_time=1
	time_one() {
		shift
		local t0 t1
		t0=$(date +%s%N)
		if [ -n "$have_time" ]; then
			/usr/bin/time -f '%U %S' -o "$cpu_file" "$@" >/dev/null 2>&1 || die "command failed while timing: $*"
		else
			"$@" >/dev/null 2>&1 || die "command failed while timing: $*"
			echo "0 0" >"$cpu_file"
		fi
		t1=$(date +%s%N)
		awk -v wall=$((t1 - t0)) '{ printf "%.0f %.0f\n", wall, ($1 + $2) * 1e9 }' "$cpu_file"
	}
fi
# fresh empties CAIRN_HOME's runs between timed runs (untimed), so that
# every run starts from the same home.
fresh() { rm -rf "$CAIRN_HOME/runs" "$CAIRN_HOME/worktrees" "$CAIRN_HOME/activity.log"; }

median() { awk -v c="$1" '{ print $c }' "$2" | sort -n | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.0f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
ms() { awk -v ns="$1" 'BEGIN { printf "%.1f ms", ns / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
per_step() { awk -v a="$1" -v b="$2" -v n="$STEPS" 'BEGIN { printf "%.2f ms", (a - b) / n / 1e6 }'; }

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
say "timing $K runs each with $timer, after one warm-up each"
say "load average before: $load_before on $(nproc) cores"
fresh
time_one cairn "${seq_cmd[@]}" >/dev/null
time_one loop "${loop_cmd[@]}" >/dev/null
time_one cairn "${par_cmd[@]}" >/dev/null
: >"$out/times-run-seq.txt"
: >"$out/times-run-loop.txt"
: >"$out/times-run-par.txt"
for ((i = 1; i <= K; i++)); do
	fresh
	time_one cairn "${seq_cmd[@]}" >>"$out/times-run-seq.txt"
	time_one loop "${loop_cmd[@]}" >>"$out/times-run-loop.txt"
	fresh
	time_one cairn "${par_cmd[@]}" >>"$out/times-run-par.txt"
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
say "load average after: $load_after"
rm -f "$cpu_file"

seq_med=$(median 1 "$out/times-run-seq.txt")
loop_med=$(median 1 "$out/times-run-loop.txt")
par_med=$(median 1 "$out/times-run-par.txt")
seq_cpu=$(median 2 "$out/times-run-seq.txt")
loop_cpu=$(median 2 "$out/times-run-loop.txt")
par_cpu=$(median 2 "$out/times-run-par.txt")
seq_ratio=$(ratio "$seq_med" "$loop_med")
seq_ok=$(awk -v a="$seq_med" -v b="$loop_med" 'BEGIN { print (a <= 1.3 * b) ? "MET" : "MISSED" }')
par_ok=$(awk -v a="$par_med" 'BEGIN { print (a < 1.5e9) ? "MET" : "MISSED" }')

# --- report -----------------------------------------------------------------
echo
echo "cairn run, $STEPS command steps:    median wall $(ms "$seq_med"), CPU $(ms "$seq_cpu") of $K runs"
echo "bash loop, $STEPS commands:         median wall $(ms "$loop_med"), CPU $(ms "$loop_cpu") of $K runs"
echo "ratio cairn/loop: $seq_ratio (cairn's extra: $(per_step "$seq_med" "$loop_med") per step)   bar (<= 1.3): $seq_ok"
echo "cairn run, $SLEEPERS x sleep 1 in parallel, $SLEEPERS throwaway worktrees: median wall $(ms "$par_med"), CPU $(ms "$par_cpu") of $K runs   bar (< 1500 ms): $par_ok"
echo "load average: before $load_before, after $load_after ($(nproc) cores)"
echo "raw times (wall and CPU, ns): $out/times-run-seq.txt, $out/times-run-loop.txt, $out/times-run-par.txt"

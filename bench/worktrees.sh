#!/usr/bin/env bash
# bench/worktrees.sh: measures what cairn's throwaway worktrees cost around
# git's own work (docs/design.md §12).
#
# For each repository size (2 files, and 20,000 files), side by side:
#   - cairn: `cairn run` of N steps that each `sleep 1`, in one parallel
#     group, each in its own throwaway worktree; its overhead is its wall
#     time less the 1 s the steps sleep;
#   - git: `git worktree add --detach` of the same N worktrees one after the
#     other, then `git worktree remove --force` of each (serially, as git's
#     own use permits), with nothing run in them.
# Medians of K alternating runs each; prints the ratio of the medians
# (cairn's overhead / git's) against the bar (<= 1.3) and the goal (<= 1.1).
#
# It exits 0 whether or not the bar is met; non-zero only when something
# broke (the build, a run that did not succeed, a worktree left behind).
# Environment: K (runs each, default 7), N (steps and worktrees, default 8),
# FILES (the big repository's files, default 20000), SIZES (the repository
# sizes measured, default "2 $FILES"), CAIRN (a cairn binary to measure
# instead of building one, to compare builds).
set -euo pipefail

K=${K:-7}
N=${N:-8}
FILES=${FILES:-20000}
read -r -a sizes <<<"${SIZES:-2 $FILES}"

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
out=$root/bench/out
bin=$out/bin
work=$out/worktrees
mkdir -p "$bin"

die() { echo "bench/worktrees.sh: $*" >&2; exit 1; }
say() { echo "== $*"; }

if [ -n "${CAIRN:-}" ]; then
	cairn=$CAIRN
	say "measuring $cairn"
else
	say "building cairn"
	CGO_ENABLED=0 go build -o "$bin/cairn" ./cmd/cairn
	cairn=$bin/cairn
fi

# make_repo DIR FILES makes a git repository of FILES small files (in folders
# of 100) and the process file, committed.
make_repo() {
	local repo=$1 files=$2 i
	mkdir -p "$repo/processes"
	{
		echo 'version = 1'
		echo "description = \"$N steps that sleep 1 s together, each in its own throwaway worktree\""
		for ((i = 1; i <= N; i++)); do
			printf '\n[worktrees.w%d]\nkind = "throwaway"\n' "$i"
		done
		for ((i = 1; i <= N; i++)); do
			printf '\n[[steps]]\nname = "sleep-%d"\ncommand = "sleep 1"\nworktree = "w%d"\nparallel = "sleepers"\n' "$i" "$i"
		done
	} >"$repo/processes/par.toml"
	if [ "$files" -le 2 ]; then
		printf '# bench\n' >"$repo/README.md"
	else
		# The process file is one of the files.
		(
			cd "$repo"
			awk -v n=$((files - 1)) 'BEGIN {
				for (i = 0; i < n; i++) {
					d = sprintf("src/d%03d", int(i / 100))
					if (i % 100 == 0) system("mkdir -p " d)
					f = sprintf("%s/f%05d.txt", d, i)
					printf "file %d\n\nline two of file %d\n", i, i > f
					close(f)
				}
			}'
		)
	fi
	(
		cd "$repo"
		export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
		export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
		git -c init.defaultBranch=main init -q .
		git add -A
		git commit -q -m "bench repository"
	)
	[ "$(git -C "$repo" ls-files | wc -l)" = "$files" ] || die "$repo has $(git -C "$repo" ls-files | wc -l) files, want $files"
}

# raw.sh is what git costs: the same N worktrees added and removed, serially.
cat >"$bin/raw-worktrees.sh" <<'EOF'
#!/usr/bin/env bash
set -euo pipefail
repo=$1 dir=$2 n=$3
mkdir -p "$dir"
for ((i = 1; i <= n; i++)); do git -C "$repo" worktree add -q --detach "$dir/w$i" HEAD; done
for ((i = 1; i <= n; i++)); do git -C "$repo" worktree remove --force "$dir/w$i"; done
EOF
chmod +x "$bin/raw-worktrees.sh"

CAIRN_HOME=$(mktemp -d "${TMPDIR:-/tmp}/cairn-bench-home.XXXXXX")
export CAIRN_HOME
trap 'rm -rf "$CAIRN_HOME"' EXIT
unset CAIRN_CONFIG NO_COLOR || true

# clean REPO checks that nothing is left: no git worktree, no throwaway
# folder; and empties CAIRN_HOME's runs.
clean() {
	[ "$(git -C "$1" worktree list | wc -l)" = 1 ] || die "worktrees left in $1: $(git -C "$1" worktree list)"
	if [ -d "$CAIRN_HOME/worktrees" ] && [ -n "$(find "$CAIRN_HOME/worktrees" -mindepth 1 -maxdepth 2)" ]; then
		die "cairn left folders in $CAIRN_HOME/worktrees"
	fi
	rm -rf "$CAIRN_HOME/runs" "$CAIRN_HOME/worktrees" "$CAIRN_HOME/activity.log" "$CAIRN_HOME/raw"
}
# time_cairn REPO prints the wall time, in ns, of one cairn run there, and
# checks it succeeded with every step.
time_cairn() {
	local t0 t1 rc=0 dir
	t0=$(date +%s%N)
	(cd "$1" && "$cairn" run processes/par.toml >"$out/worktrees.stdout" 2>"$out/worktrees.stderr") || rc=$?
	t1=$(date +%s%N)
	[ "$rc" = 0 ] || { head -n 40 "$out/worktrees.stderr" >&2; die "cairn run exited $rc in $1"; }
	dir=$(find "$CAIRN_HOME/runs" -mindepth 1 -maxdepth 1 -name 'par_*' | sort | tail -n 1)
	[ "$(grep -c 'outcome=succeeded' "$dir/log")" = "$N" ] || die "cairn run in $1: not $N succeeded steps ($dir/log)"
	echo $((t1 - t0))
}
# time_raw REPO prints the wall time, in ns, of raw-worktrees.sh there.
time_raw() {
	local t0 t1
	t0=$(date +%s%N)
	"$bin/raw-worktrees.sh" "$1" "$CAIRN_HOME/raw" "$N" || die "git worktree add/remove failed in $1"
	t1=$(date +%s%N)
	echo $((t1 - t0))
}

median() { sort -n "$1" | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.0f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
ms() { awk -v ns="$1" 'BEGIN { printf "%.0f ms", ns / 1e6 }'; }

rm -rf "$work"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
say "load average before: $load_before on $(nproc) cores"
report=()
for files in "${sizes[@]}"; do
	repo=$work/repo-$files
	say "making a repository of $files files in $repo"
	make_repo "$repo" "$files"
	say "timing $K runs each of cairn ($N x sleep 1 in $N throwaways) and git (add + remove of $N worktrees), after one warm-up each"
	time_cairn "$repo" >/dev/null
	clean "$repo"
	time_raw "$repo" >/dev/null
	clean "$repo"
	: >"$out/times-worktrees-$files-cairn.txt"
	: >"$out/times-worktrees-$files-git.txt"
	for ((i = 1; i <= K; i++)); do
		if ((i % 2)); then
			time_cairn "$repo" >>"$out/times-worktrees-$files-cairn.txt"
			clean "$repo"
			time_raw "$repo" >>"$out/times-worktrees-$files-git.txt"
			clean "$repo"
		else
			time_raw "$repo" >>"$out/times-worktrees-$files-git.txt"
			clean "$repo"
			time_cairn "$repo" >>"$out/times-worktrees-$files-cairn.txt"
			clean "$repo"
		fi
	done
	c=$(median "$out/times-worktrees-$files-cairn.txt")
	g=$(median "$out/times-worktrees-$files-git.txt")
	over=$((c - 1000000000))
	ratio=$(awk -v a="$over" -v b="$g" 'BEGIN { printf "%.2f", a / b }')
	verdict=$(awk -v r="$ratio" 'BEGIN { if (r <= 1.1) print "goal (<= 1.1) MET"; else if (r <= 1.3) print "bar (<= 1.3) MET, goal (<= 1.1) missed"; else print "bar (<= 1.3) MISSED" }')
	report+=("$(printf '%6s files: cairn %s (overhead %s)  git add+remove %s  ratio %s  %s' "$files" "$(ms "$c")" "$(ms "$over")" "$(ms "$g")" "$ratio" "$verdict")")
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

echo
echo "$N parallel steps of sleep 1 in $N throwaway worktrees; medians of $K runs; overhead = wall - 1 s"
printf '%s\n' "${report[@]}"
echo "load average: before $load_before, after $load_after ($(nproc) cores)"
echo "raw times (ns): $out/times-worktrees-*-{cairn,git}.txt"

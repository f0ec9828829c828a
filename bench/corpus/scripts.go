package corpus

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// shortCommands are the one-line commands of the Short corpus.
var shortCommands = []string{
	"go test ./services/%[1]s/...",
	"go vet ./services/%[1]s/...",
	"make -C services/%[1]s build",
	"npm ci --prefix services/%[1]s",
	"gofmt -l services/%[1]s",
	"./scripts/check-%[1]s.sh --step %[2]d",
	"docker build -t %[1]s:%[2]d services/%[1]s",
	"cargo build --release --manifest-path services/%[1]s/Cargo.toml",
}

// shortScript is the command of the n-th step of the Short corpus.
func shortScript(r *rand.Rand, svc string, n int) string {
	return fmt.Sprintf(shortCommands[r.IntN(len(shortCommands))], svc, n) + "\n"
}

var (
	words  = []string{"alpha", "beta", "gamma", "delta", "cache", "dist", "logs", "tmp", "assets", "vendor", "fixtures", "reports", "coverage", "schema", "proto", "bundle"}
	tools  = []string{"go", "npm", "cargo", "python3", "make", "terraform", "helm", "kubectl", "docker", "jq"}
	vars   = []string{"out", "dir", "name", "version", "target", "count", "file", "tag", "status", "mode", "base", "sha"}
	filter = []string{"grep -v _test", "grep -E '\\.(go|mod)$'", "sed -e 's/^\\.\\///'", "sort -u", "awk '{ print $1 }'", "head -n 20", "tr '[:upper:]' '[:lower:]'", "cut -d/ -f2-", "xargs -r wc -l", "tail -n +2"}
)

func pick(r *rand.Rand, from []string) string { return from[r.IntN(len(from))] }

// fragment makes a few lines of bash for a script of service svc, step n.
type fragment func(r *rand.Rand, svc string, n int) []string

// fragments are the pieces Scripts composes, each valid bash (and valid for
// mvdan.cc/sh) on its own, with no "”'" (TOML) and no "${{" (Actions).
var fragments = []fragment{
	// A pipeline of a few filters into a file.
	func(r *rand.Rand, svc string, n int) []string {
		k := 1 + r.IntN(4)
		parts := []string{fmt.Sprintf("git ls-files 'services/%s/*'", svc)}
		for range k {
			parts = append(parts, pick(r, filter))
		}
		return []string{fmt.Sprintf("%s > \"$CAIRN_RUN/%s-%s-%d.txt\"", strings.Join(parts, " | "), pick(r, words), svc, n)}
	},
	// An assignment from a command substitution, nested now and then.
	func(r *rand.Rand, svc string, n int) []string {
		v := pick(r, vars)
		if r.IntN(2) == 0 {
			return []string{fmt.Sprintf("%s=$(git log -1 --format=%%h -- \"$(dirname services/%s/%s)\")", v, svc, pick(r, words))}
		}
		return []string{fmt.Sprintf("%s=\"${%s:-%s-%d}\"", v, strings.ToUpper(v), pick(r, words), n)}
	},
	// A for loop over words, with a body of one to three commands.
	func(r *rand.Rand, svc string, n int) []string {
		v := pick(r, vars)
		lines := []string{fmt.Sprintf("for %s in %s %s %s; do", v, pick(r, words), pick(r, words), pick(r, words))}
		for range 1 + r.IntN(3) {
			switch r.IntN(3) {
			case 0:
				lines = append(lines, fmt.Sprintf("  mkdir -p \"$CAIRN_RUN/%s/$%s\"", svc, v))
			case 1:
				lines = append(lines, fmt.Sprintf("  %s run %s --only \"$%s\" || echo \"skipped $%s\" >&2", pick(r, tools), pick(r, words), v, v))
			default:
				lines = append(lines, fmt.Sprintf("  echo \"%s: ${%s##*/} (%d)\"", svc, v, n))
			}
		}
		return append(lines, "done")
	},
	// A while-read loop fed by process substitution, counting.
	func(r *rand.Rand, svc string, n int) []string {
		c := "n" + pick(r, vars)
		return []string{
			fmt.Sprintf("%s=0", c),
			"while IFS= read -r line; do",
			fmt.Sprintf("  [[ $line == *%s* ]] || continue", pick(r, words)),
			fmt.Sprintf("  %s=$((%s + 1))", c, c),
			fmt.Sprintf("done < <(find services/%s -name '*.%s' -print)", svc, pick(r, []string{"go", "ts", "py", "rs", "sql"})),
			fmt.Sprintf("echo \"$%s files in %s\"", c, svc),
		}
	},
	// An if / elif / else on tests.
	func(r *rand.Rand, svc string, n int) []string {
		v := pick(r, vars)
		return []string{
			fmt.Sprintf("if [[ -z \"${%s:-}\" ]]; then", v),
			fmt.Sprintf("  %s=%s", v, pick(r, words)),
			fmt.Sprintf("elif [ -f \"services/%s/%s.lock\" ]; then", svc, pick(r, words)),
			fmt.Sprintf("  echo \"%s is locked\" >&2", svc),
			fmt.Sprintf("  exit %d", 1+r.IntN(3)),
			"else",
			fmt.Sprintf("  %s=\"${%s//-/_}\"", v, v),
			"fi",
		}
	},
	// A case statement.
	func(r *rand.Rand, svc string, n int) []string {
		return []string{
			"case \"$(uname -m)\" in",
			"  x86_64|amd64) arch=amd64 ;;",
			"  aarch64|arm64) arch=arm64 ;;",
			fmt.Sprintf("  *) echo \"unsupported machine for %s\" >&2; exit 1 ;;", svc),
			"esac",
		}
	},
	// A here-document, expanded or quoted.
	func(r *rand.Rand, svc string, n int) []string {
		w := pick(r, words)
		if r.IntN(2) == 0 {
			return []string{
				fmt.Sprintf("cat > \"$CAIRN_RUN/%s-%d.md\" <<EOF", w, n),
				fmt.Sprintf("# %s %s", svc, w),
				"",
				fmt.Sprintf("Built at $(date -u +%%Y-%%m-%%dT%%H:%%M:%%SZ) from $(git rev-parse --short HEAD), step %d.", n),
				"EOF",
			}
		}
		return []string{
			fmt.Sprintf("cat > \"$CAIRN_RUN/%s.sh\" <<'EOF'", w),
			"#!/usr/bin/env bash",
			fmt.Sprintf("echo \"literal $HOME and $(pwd) for %s\"", svc),
			"EOF",
			fmt.Sprintf("chmod +x \"$CAIRN_RUN/%s.sh\"", w),
		}
	},
	// A function, then a call.
	func(r *rand.Rand, svc string, n int) []string {
		f := "run_" + pick(r, words)
		return []string{
			fmt.Sprintf("%s() {", f),
			"  local target=$1; shift",
			fmt.Sprintf("  %s \"$@\" \"$target\" 2>&1 | tee -a \"$CAIRN_RUN/%s.log\"", pick(r, tools), svc),
			"}",
			fmt.Sprintf("%s services/%s --verbose", f, svc),
		}
	},
	// Arithmetic and a test of it.
	func(r *rand.Rand, svc string, n int) []string {
		return []string{
			fmt.Sprintf("retries=%d", 1+r.IntN(5)),
			fmt.Sprintf("until %s status %s >/dev/null 2>&1; do", pick(r, tools), svc),
			"  (( retries-- > 0 )) || { echo \"gave up\" >&2; exit 1; }",
			fmt.Sprintf("  sleep %d", 1+r.IntN(9)),
			"done",
		}
	},
	// An array built and expanded.
	func(r *rand.Rand, svc string, n int) []string {
		return []string{
			fmt.Sprintf("args=(--service %s --step %d)", svc, n),
			fmt.Sprintf("[ -n \"${CI:-}\" ] && args+=(--ci --label \"%s %s\")", pick(r, words), pick(r, words)),
			fmt.Sprintf("%s \"${args[@]}\" \"${#args[@]}\"", pick(r, tools)),
		}
	},
	// A group redirected to a file, with a single-quoted awk program.
	func(r *rand.Rand, svc string, n int) []string {
		return []string{
			"{",
			fmt.Sprintf("  echo \"## %s\"", svc),
			fmt.Sprintf("  git log --oneline -%d -- services/%s", 1+r.IntN(9), svc),
			fmt.Sprintf("  awk -F, 'NR > 1 { s += $%d } END { printf \"%%d rows\\n\", s }' \"$CAIRN_RUN/%s.csv\"", 1+r.IntN(4), pick(r, words)),
			fmt.Sprintf("} >> \"$CAIRN_RUN/summary-%d.md\"", n),
		}
	},
	// A subshell in another directory, with && and ||.
	func(r *rand.Rand, svc string, n int) []string {
		return []string{fmt.Sprintf("(cd services/%s && %s build %s) || { echo \"%s failed\" >&2; exit 1; }", svc, pick(r, tools), pick(r, words), svc)}
	},
	// Strict mode and a trap.
	func(r *rand.Rand, svc string, n int) []string {
		return []string{
			"set -euo pipefail",
			fmt.Sprintf("tmp=$(mktemp -d \"${TMPDIR:-/tmp}/%s.XXXXXX\")", svc),
			"trap 'rm -rf \"$tmp\"' EXIT",
		}
	},
}

// composedScript is the command of the n-th step of the Scripts corpus:
// fragments drawn at random up to a length of 5 to 40 lines, with one of the
// templates of steps as real processes have them now and then.
func composedScript(r *rand.Rand, svc string, n int) string {
	want := 5 + r.IntN(36)
	var lines []string
	if r.IntN(4) == 0 {
		lines = strings.Split(strings.TrimSuffix(scripts[r.IntN(len(scripts))](svc, n), "\n"), "\n")
	}
	for len(lines) < want {
		f := fragments[r.IntN(len(fragments))](r, svc, n)
		if len(lines)+len(f) > 40 {
			// A one-line fragment fits whatever is left.
			f = fragments[r.IntN(2)](r, svc, n)
		}
		lines = append(lines, f...)
	}
	return strings.Join(lines, "\n") + "\n"
}

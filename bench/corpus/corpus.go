// Package corpus generates the benchmark corpora of bench/: valid TOML process
// files (docs/design.md §4.1) made of command steps, and GitHub workflow files that run the
// same scripts as `run:` steps, so that `cairn check` and actionlint can be
// compared on the same number of steps (docs/design.md §12). A corpus is of one Kind: short
// one-line commands, or distinct multi-line scripts. Output is deterministic:
// the same kind, file index and step count always give the same bytes.
package corpus

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Kind is what the command steps of a corpus run.
type Kind string

// The kinds of corpus.
const (
	// Short steps run one short command each ("go test ./services/api/..."),
	// the same few commands over and over: the uniform corpus.
	Short Kind = "short"
	// Scripts steps run distinct multi-line scripts of 5 to 40 lines, as
	// real workflows have them: pipes, loops, here-documents, quoting,
	// $(…), functions, arrays and parameter expansions, composed at random
	// so that no two steps' scripts are alike.
	Scripts Kind = "scripts"
)

// Kinds are the corpora bench/check.sh compares on.
var Kinds = []Kind{Short, Scripts}

// ProcessName is the name (file stem) of the i-th process file.
func ProcessName(i int) string { return fmt.Sprintf("p-%04d", i) }

// WorkflowName is the name (file stem) of the i-th workflow file.
func WorkflowName(i int) string { return fmt.Sprintf("wf-%d", i) }

// step is one generated command step, rendered both as TOML and as YAML.
type step struct {
	name        string
	description string
	script      string
	env         [][2]string
	envTable    bool // write env as a [steps.env] table rather than inline
	timeoutMin  int
	optional    bool
	parallel    string
	worktree    string
	precheck    *phase
	validate    *phase
}

type phase struct {
	shells   []string
	whys     []string
	severity string
}

// plan is one generated file's content, shared by both renderings.
type plan struct {
	index       int
	description string
	worktrees   []string
	steps       []step
}

var (
	services   = []string{"api", "web", "worker", "billing", "search", "auth", "gateway", "ingest", "notify", "reports", "scheduler", "storage"}
	verbs      = []string{"build", "test", "fmt", "package", "migrate", "bench", "audit", "docs", "smoke", "lint", "deps", "changes"}
	envChoices = [][2]string{
		{"GOFLAGS", "-count=1"},
		{"CGO_ENABLED", "0"},
		{"GOTOOLCHAIN", "local"},
		{"NODE_ENV", "test"},
		{"RUST_BACKTRACE", "1"},
		{"LOG_LEVEL", "debug"},
		{"TZ", "UTC"},
		{"LC_ALL", "C.UTF-8"},
		{"PYTHONDONTWRITEBYTECODE", "1"},
		{"TERM", "dumb"},
	}
	descriptions = []string{
		"Build the %s service and keep its binary",
		"Run the %s unit tests with the race detector",
		"Check that the %s sources are formatted",
		"Package the %s release tarball with checksums",
		"Check the %s database migrations apply cleanly",
		"Benchmark the %s hot paths and store the numbers",
		"Audit the %s dependencies for known advisories",
		"Regenerate the %s API documentation",
		"Smoke-test the %s binary against a local fixture",
		"Vet and lint the %s sources and fail on new findings",
		"List the %s dependencies that have newer versions",
		"Summarise what changed in %s since the last commit",
	}
)

// scripts are bodies of command steps as real processes have them, valid
// for bash and for mvdan.cc/sh, with no `”'` (TOML) and no `${{` (Actions):
// the Scripts corpus starts one step in four with one of them.
var scripts = []func(svc string, n int) string{
	func(svc string, n int) string {
		return fmt.Sprintf(`set -x
cd services/%[1]s
mkdir -p "$CAIRN_RUN/bin"
go build -trimpath -ldflags "-s -w -X main.version=$(git describe --tags --always)" -o "$CAIRN_RUN/bin/%[1]s-%[2]d" ./cmd/%[1]s
ls -l "$CAIRN_RUN/bin/%[1]s-%[2]d"
echo "built %[1]s ($(du -h "$CAIRN_RUN/bin/%[1]s-%[2]d" | cut -f1))" > "$CAIRN_RESULT"
`, svc, n)
	},
	func(svc string, n int) string {
		return fmt.Sprintf(`cd services/%[1]s
pkgs=$(go list ./... | grep -v /testdata/)
if ! go test -race -timeout 10m $pkgs > "$CAIRN_RUN/test-%[1]s-%[2]d.log" 2>&1; then
  tail -n 50 "$CAIRN_RUN/test-%[1]s-%[2]d.log"
  exit 1
fi
grep -c '^ok' "$CAIRN_RUN/test-%[1]s-%[2]d.log" || true
`, svc, n)
	},
	func(svc string, n int) string {
		return fmt.Sprintf(`files=()
while IFS= read -r f; do
  files+=("$f")
done < <(git ls-files 'services/%[1]s/*.go')
if [[ ${#files[@]} -eq 0 ]]; then
  echo "no Go files in %[1]s"
  exit 0
fi
unformatted=$(gofmt -l "${files[@]}")
if [[ -n "$unformatted" ]]; then
  printf 'not formatted: %%s\n' $unformatted >&2
  exit 1
fi
`, svc, n)
	},
	func(svc string, n int) string {
		return fmt.Sprintf(`version=$(git describe --tags --always --dirty)
out="$CAIRN_RUN/dist/%[1]s-${version}-%[2]d"
mkdir -p "$out"
for os in linux darwin; do
  for arch in amd64 arm64; do
    GOOS=$os GOARCH=$arch go build -o "$out/%[1]s-$os-$arch" ./services/%[1]s/cmd/%[1]s
  done
done
tar -C "$out" -czf "$out.tar.gz" .
sha256sum "$out.tar.gz" | tee "$out.tar.gz.sha256"
`, svc, n)
	},
	func(svc string, n int) string {
		return fmt.Sprintf(`db="$CAIRN_RUN/%[1]s-%[2]d.sqlite"
rm -f "$db"
for m in services/%[1]s/migrations/*.up.sql; do
  [ -e "$m" ] || continue
  echo "applying $(basename "$m")"
  sqlite3 "$db" < "$m"
done
count=$(sqlite3 "$db" 'SELECT count(*) FROM sqlite_master WHERE type = "table";' 2>/dev/null || echo 0)
echo "%[1]s: $count tables after migrations" | tee "$CAIRN_RESULT"
`, svc, n)
	},
	func(svc string, n int) string {
		return fmt.Sprintf(`cd services/%[1]s
go test -run '^$' -bench . -benchmem -count 5 ./... | tee "$CAIRN_RUN/bench-%[1]s-%[2]d.txt"
awk '/^Benchmark/ { n++ } END { printf "%%d benchmarks\n", n }' "$CAIRN_RUN/bench-%[1]s-%[2]d.txt"
`, svc, n)
	},
	func(svc string, n int) string {
		return fmt.Sprintf(`report="$CAIRN_RUN/audit-%[1]s-%[2]d.json"
case "$(uname -s)" in
  Linux) echo "auditing on linux" ;;
  Darwin) echo "auditing on macOS" ;;
  *) echo "unknown system" >&2; exit 1 ;;
esac
go list -m -json all > "$report"
jq -r 'select(.Indirect != true) | .Path + "@" + .Version' "$report" | sort -u | head -n 100
`, svc, n)
	},
	func(svc string, n int) string {
		return fmt.Sprintf(`outdir="docs/%[1]s"
mkdir -p "$outdir"
cat > "$outdir/README.md" <<EOF
# %[1]s

Generated at $(date -u +%%Y-%%m-%%dT%%H:%%M:%%SZ) by step %[2]d.
EOF
go doc -all ./services/%[1]s/... >> "$outdir/README.md"
git status --porcelain -- "$outdir"
`, svc, n)
	},
	func(svc string, n int) string {
		return fmt.Sprintf(`bin="$CAIRN_RUN/bin/%[1]s"
port=$((8000 + %[2]d %% 1000))
"$bin" --listen "127.0.0.1:$port" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
for i in $(seq 1 30); do
  if curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null; then
    echo "%[1]s healthy after ${i}s"
    exit 0
  fi
  sleep 1
done
echo "%[1]s did not become healthy" >&2
exit 1
`, svc, n)
	},
	func(svc string, n int) string {
		return fmt.Sprintf(`go vet ./services/%[1]s/...
staticcheck -checks 'all,-ST1000' ./services/%[1]s/... 2>&1 | tee "$CAIRN_RUN/lint-%[1]s-%[2]d.txt"
test ! -s "$CAIRN_RUN/lint-%[1]s-%[2]d.txt"
`, svc, n)
	},
	func(svc string, n int) string {
		return fmt.Sprintf(`declare -A seen=()
while read -r path version; do
  [[ -z "$path" ]] && continue
  seen[$path]=$version
done < <(go list -m -f '{{.Path}} {{.Version}}' all)
echo "${#seen[@]} modules in %[1]s (step %[2]d)"
go list -m -u -f '{{if .Update}}{{.Path}} {{.Version}} -> {{.Update.Version}}{{end}}' all | sed '/^$/d' || true
`, svc, n)
	},
	func(svc string, n int) string {
		return fmt.Sprintf(`export GIT_PAGER=cat
changed=$(git diff --name-only HEAD~1 -- services/%[1]s | wc -l)
if (( changed == 0 )); then
  echo "nothing changed in %[1]s"
else
  git diff --stat HEAD~1 -- services/%[1]s
  { echo "## %[1]s"; git log -1 --format='%%h %%s'; } >> "$CAIRN_RUN/changes-%[2]d.md"
fi
`, svc, n)
	},
}

var prechecks = []struct{ shell, why string }{
	{`[ -d services ] || exit $CHECK_SKIP`, "No services folder in this repository"},
	{`command -v go >/dev/null || exit $CHECK_SKIP`, "Go is not installed"},
	{`git rev-parse --verify -q HEAD~1 >/dev/null || exit $CHECK_SKIP`, "Nothing to compare against"},
	{`[ -n "$(git ls-files '*.go')" ] || exit $CHECK_SKIP`, "No Go sources"},
}

var validates = []struct{ shell, why string }{
	{`test -s "$CAIRN_RESULT"`, "A step that says nothing cannot be judged"},
	{`git diff --quiet -- go.mod go.sum`, "Builds must not change the module's requirements"},
	{`[ -z "$(git status --porcelain --untracked-files=no)" ]`, "Tracked files must stay untouched"},
	{"go build ./...", "The tree must still build"},
}

func makePlan(k Kind, i, steps int) plan {
	r := rand.New(rand.NewPCG(uint64(i)+1, 0x6361697e6e))
	p := plan{index: i}
	svc := services[i%len(services)]
	p.description = fmt.Sprintf("Nightly maintenance of the %s service (corpus file %d): build, test, lint and package", svc, i)
	group := 0
	for j := 0; j < steps; {
		// Every so often, a parallel group of 2 to 4 command steps, each
		// in its own throwaway worktree.
		if j > 0 && r.IntN(10) == 0 && j+2 <= steps {
			group++
			size := min(2+r.IntN(3), steps-j)
			gname := fmt.Sprintf("par-%d", group)
			for m := 0; m < size; m++ {
				s := makeStep(k, r, j)
				s.parallel = gname
				s.worktree = fmt.Sprintf("%s-%c", gname, 'a'+m)
				p.worktrees = append(p.worktrees, s.worktree)
				p.steps = append(p.steps, s)
				j++
			}
			continue
		}
		p.steps = append(p.steps, makeStep(k, r, j))
		j++
	}
	return p
}

func makeStep(k Kind, r *rand.Rand, j int) step {
	svc := services[r.IntN(len(services))]
	v := r.IntN(len(verbs))
	s := step{
		name:        fmt.Sprintf("%s-%s-%d", verbs[v], svc, j+1),
		description: fmt.Sprintf(descriptions[v], svc),
	}
	if k == Short {
		s.script = shortScript(r, svc, j+1)
	} else {
		s.script = composedScript(r, svc, j+1)
	}
	if r.IntN(6) == 0 {
		n := 1 + r.IntN(3)
		start := r.IntN(len(envChoices))
		for k := 0; k < n; k++ {
			s.env = append(s.env, envChoices[(start+k)%len(envChoices)])
		}
		s.envTable = r.IntN(2) == 0
	}
	if r.IntN(3) == 0 {
		s.timeoutMin = 5 * (1 + r.IntN(12))
	}
	s.optional = r.IntN(10) == 0
	if r.IntN(4) == 0 {
		pc := prechecks[r.IntN(len(prechecks))]
		s.precheck = &phase{shells: []string{pc.shell}, whys: []string{pc.why}}
	}
	if r.IntN(3) == 0 {
		va := validates[r.IntN(len(validates))]
		sev := []string{"", "warn", "abort"}[r.IntN(3)]
		s.validate = &phase{shells: []string{va.shell}, whys: []string{va.why}, severity: sev}
	}
	return s
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// tomlShell quotes a one-line shell as a TOML literal string when it can,
// as the spec's example does, else as a basic string.
func tomlShell(s string) string {
	if !strings.ContainsAny(s, "'\n") {
		return "'" + s + "'"
	}
	return tomlString(s)
}

func tomlList(items []string, quote func(string) string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// Process returns the i-th process file of corpus k, of the given number of
// command steps. Its name is ProcessName(i) and it is valid: `cairn check`
// refuses nothing in it.
func Process(k Kind, i, steps int) []byte {
	p := makePlan(k, i, steps)
	var b strings.Builder
	b.Grow(steps * 700)
	fmt.Fprintf(&b, "# Generated by bench/gen: corpus file %d, %d command steps.\n", i, steps)
	b.WriteString("version = 1\n")
	fmt.Fprintf(&b, "description = %s\n", tomlString(p.description))
	b.WriteString("run_expiry = \"30d\"\nfailed_run_expiry = \"90d\"\n\n")
	b.WriteString("[limits]\nrepair_cap = 2\nprotected_paths = [\"migrations/**\", \".github/**\"]\n\n")
	for _, w := range p.worktrees {
		fmt.Fprintf(&b, "[worktrees.%s]\nkind = \"throwaway\"\n\n", w)
	}
	for _, s := range p.steps {
		b.WriteString("[[steps]]\n")
		fmt.Fprintf(&b, "name = %s\n", tomlString(s.name))
		fmt.Fprintf(&b, "description = %s\n", tomlString(s.description))
		b.WriteString("command = '''\n")
		b.WriteString(s.script)
		b.WriteString("'''\n")
		if s.worktree != "" {
			fmt.Fprintf(&b, "worktree = %s\n", tomlString(s.worktree))
		}
		if s.parallel != "" {
			fmt.Fprintf(&b, "parallel = %s\n", tomlString(s.parallel))
		}
		if s.optional {
			b.WriteString("optional = true\n")
		}
		if s.timeoutMin > 0 {
			fmt.Fprintf(&b, "timeout = \"%dm\"\n", s.timeoutMin)
		}
		if len(s.env) > 0 && !s.envTable {
			b.WriteString("env = { ")
			for k, e := range s.env {
				if k > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "%s = %s", e[0], tomlString(e[1]))
			}
			b.WriteString(" }\n")
		}
		if len(s.env) > 0 && s.envTable {
			b.WriteString("\n[steps.env]\n")
			for _, e := range s.env {
				fmt.Fprintf(&b, "%s = %s\n", e[0], tomlString(e[1]))
			}
		}
		for _, ph := range []struct {
			name string
			p    *phase
		}{{"precheck", s.precheck}, {"validate", s.validate}} {
			if ph.p == nil {
				continue
			}
			fmt.Fprintf(&b, "\n[steps.%s]\n", ph.name)
			fmt.Fprintf(&b, "shells = %s\n", tomlList(ph.p.shells, tomlShell))
			fmt.Fprintf(&b, "whys = %s\n", tomlList(ph.p.whys, tomlString))
			if ph.p.severity != "" {
				fmt.Fprintf(&b, "severity = %s\n", tomlString(ph.p.severity))
			}
		}
		b.WriteString("\n")
	}
	return []byte(b.String())
}

// yamlString quotes s as a YAML double-quoted scalar.
func yamlString(s string) string { return tomlString(s) }

// Workflow returns the i-th GitHub workflow file of corpus k: one job whose
// steps are `run:` steps of the same scripts, names, env and timeouts as
// Process(k, i, steps), so that actionlint checks as many steps as `cairn
// check` does.
func Workflow(k Kind, i, steps int) []byte {
	p := makePlan(k, i, steps)
	var b strings.Builder
	b.Grow(steps * 600)
	fmt.Fprintf(&b, "# Generated by bench/gen: corpus file %d, %d run steps.\n", i, steps)
	fmt.Fprintf(&b, "name: %s\n", WorkflowName(i))
	b.WriteString("on:\n  push:\n    branches: [main]\n  workflow_dispatch:\n")
	b.WriteString("permissions:\n  contents: read\n")
	b.WriteString("jobs:\n  maintenance:\n")
	fmt.Fprintf(&b, "    name: %s\n", yamlString(p.description))
	b.WriteString("    runs-on: ubuntu-latest\n    timeout-minutes: 360\n")
	b.WriteString("    env:\n      CHECK_SKIP: \"77\"\n")
	b.WriteString("    steps:\n")
	for _, s := range p.steps {
		fmt.Fprintf(&b, "      - name: %s\n", yamlString(s.name))
		fmt.Fprintf(&b, "        id: %s\n", s.name)
		b.WriteString("        shell: bash\n")
		if s.optional {
			b.WriteString("        continue-on-error: true\n")
		}
		if s.timeoutMin > 0 {
			fmt.Fprintf(&b, "        timeout-minutes: %d\n", s.timeoutMin)
		}
		if len(s.env) > 0 {
			b.WriteString("        env:\n")
			for _, e := range s.env {
				fmt.Fprintf(&b, "          %s: %s\n", e[0], yamlString(e[1]))
			}
		}
		b.WriteString("        run: |\n")
		for _, line := range strings.SplitAfter(s.script, "\n") {
			if line == "" {
				continue
			}
			if line == "\n" {
				b.WriteString("\n")
				continue
			}
			b.WriteString("          ")
			b.WriteString(line)
		}
	}
	return []byte(b.String())
}

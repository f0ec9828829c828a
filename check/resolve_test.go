package check

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/parse"
)

// cfgFile is the path the test configs pretend to be read from.
const cfgFile = "/home/u/.cairn/config.toml"

// cfgAt is the range of a config value on line n, from column 10.
func cfgAt(n int32) ir.Range {
	return ir.Range{File: cfgFile, Start: ir.Pos{Line: n, Column: 10}, End: ir.Pos{Line: n, Column: 20}}
}

// cfgString is a config string value on line n.
func cfgString(v string, n int32) ir.Field[string] {
	return ir.Field[string]{Value: v, Set: true, Key: ir.Range{File: cfgFile, Start: ir.Pos{Line: n, Column: 1}}, Range: cfgAt(n)}
}

// cfgModels is a [models.HARNESS] table of key, value pairs, each on its own
// line from line n.
func cfgModels(harness string, n int32, kv ...string) config.Models {
	m := config.Models{Harness: harness}
	for i := 0; i+1 < len(kv); i += 2 {
		m.Tiers = append(m.Tiers, ir.Pair{Name: kv[i], Field: cfgString(kv[i+1], n+int32(i/2))})
	}
	return m
}

// cfgList is a config list of strings on line n.
func cfgList(n int32, items ...string) ir.Strings {
	s := ir.Strings{Set: true, Range: cfgAt(n)}
	for _, it := range items {
		s.Value = append(s.Value, ir.Field[string]{Value: it, Set: true, Range: cfgAt(n)})
	}
	return s
}

// mustTOML parses a process the test means to be well-formed.
func mustTOML(t *testing.T, file, src string) *ir.Process {
	t.Helper()
	p, diags := parse.TOML(file, []byte(src))
	for _, d := range diags {
		t.Fatalf("front-end refused the test's process: %s: %s [%s]", d.Range, d.Message, d.Rule)
	}
	return p
}

// show prints a setting as "value/source", with "~tier" when it was mapped
// from a tier and "!" when the tier is unmapped.
func show(r Resolved) string {
	s := r.Value + "/" + string(r.Source)
	if r.Tier != "" {
		s += "~" + r.Tier
	}
	if r.Unmapped {
		s += "!"
	}
	return s
}

const provenanceSrc = `version = 1

[[steps]]
name = "set"
prompt = "do it"
harness = "codex"
model = "gpt-5"
effort = "high"
max_turns = 7

[[steps]]
name = "unset"
prompt = "do it"

[[steps]]
name = "on-codex"
prompt = "do it"
harness = "codex"
`

func TestResolveProvenance(t *testing.T) {
	t.Parallel()
	p := mustTOML(t, "p.toml", provenanceSrc)
	claudeCfg := &config.Config{
		File:    cfgFile,
		Harness: cfgString("claude", 1), Model: cfgString("claude-sonnet-4-5", 2), Effort: cfgString("medium", 3),
		Models: []config.Models{cfgModels("codex", 5, "default", "gpt-5-codex")},
	}
	geminiCfg := &config.Config{File: cfgFile, Harness: cfgString("gemini", 1), Model: cfgString("gemini-2.5-pro", 2)}
	for _, tc := range []struct {
		name  string
		flags Flags
		cfg   *config.Config
		// want is, per step, "harness model effort turns".
		want []string
	}{
		{
			name: "defaults",
			cfg:  &config.Config{},
			want: []string{
				"codex/step gpt-5/step high/step 7/step",
				"claude/default /default /default 20/default",
				"codex/step /default /default 20/default",
			},
		},
		{
			name: "config",
			cfg:  claudeCfg,
			want: []string{
				"codex/step gpt-5/step high/step 7/step",
				"claude/config claude-sonnet-4-5/config medium/config 20/default",
				// The config's model and effort are for claude; codex takes
				// [models.codex] default.
				"codex/step gpt-5-codex/config /default 20/default",
			},
		},
		{
			name:  "flags beat the config",
			cfg:   claudeCfg,
			flags: Flags{Harness: "codex", Model: "o3", Effort: "low"},
			want: []string{
				"codex/step gpt-5/step high/step 7/step",
				"codex/flag o3/flag low/flag 20/default",
				"codex/step o3/flag low/flag 20/default",
			},
		},
		{
			name:  "a flag harness other than the config's takes [models.H] default",
			cfg:   claudeCfg,
			flags: Flags{Harness: "codex"},
			want: []string{
				"codex/step gpt-5/step high/step 7/step",
				"codex/flag gpt-5-codex/config /default 20/default",
				"codex/step gpt-5-codex/config /default 20/default",
			},
		},
		{
			name: "a config on another harness leaves claude's model to the CLI",
			cfg:  geminiCfg,
			want: []string{
				"codex/step gpt-5/step high/step 7/step",
				"gemini/config gemini-2.5-pro/config /default 20/default",
				"codex/step /default /default 20/default",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := Resolve(context.Background(), p, &Env{Config: tc.cfg, Flags: tc.flags})
			var got []string
			for _, sr := range res.Steps {
				s := sr.Actions[0]
				got = append(got, fmt.Sprintf("%s %s %s %d/%s", show(s.Harness), show(s.Model), show(s.Effort), s.MaxTurns.Value, s.MaxTurns.Source))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestResolveRanges(t *testing.T) {
	t.Parallel()
	p := mustTOML(t, "p.toml", provenanceSrc)
	cfg := &config.Config{File: cfgFile, Harness: cfgString("claude", 1), Model: cfgString("m", 2)}
	res := Resolve(context.Background(), p, &Env{Config: cfg})
	set, unset := res.Steps[0].Actions[0], res.Steps[1].Actions[0]
	if r := set.Harness.Range; r.File != "p.toml" || r.Start.Line != 6 || r.Start.Column != 11 {
		t.Errorf("step harness range = %v; want p.toml:6:11", r)
	}
	if r := unset.Harness.Range; r != cfgAt(1) {
		t.Errorf("config harness range = %v; want %v", r, cfgAt(1))
	}
	if r := unset.Model.Range; r != cfgAt(2) {
		t.Errorf("config model range = %v; want %v", r, cfgAt(2))
	}
	res = Resolve(context.Background(), p, &Env{Config: cfg, Flags: Flags{Harness: "claude"}})
	if r := res.Steps[1].Actions[0].Harness.Range; r.IsValid() {
		t.Errorf("flag harness range = %v; want none", r)
	}
}

func TestResolveTiers(t *testing.T) {
	t.Parallel()
	cfg := &config.Config{
		File: cfgFile,
		Models: []config.Models{
			cfgModels("codex", 1, "balanced", "gpt-5", "default", "strong"),
			cfgModels("claude", 5, "strong", "claude-opus-4-5"),
		},
		Harnesses: []config.Harness{{Name: "mybot", Command: cfgList(9, "mybot")}},
	}
	for _, tc := range []struct {
		harness, model string
		want           string
	}{
		{"claude", "haiku", "haiku/step~efficient"},
		{"claude", "balanced", "sonnet/step~balanced"},
		{"claude", "sonnet", "sonnet/step~balanced"},
		{"claude", "opus", "claude-opus-4-5/step~strong"},
		{"claude", "strongest", "fable/step~strongest"},
		{"claude", "claude-3-7-sonnet", "claude-3-7-sonnet/step"},
		{"codex", "balanced", "gpt-5/step~balanced"},
		{"codex", "sonnet", "gpt-5/step~balanced"},
		{"codex", "efficient", "gpt-6.1-terra/step~efficient"},
		{"codex", "opus", "gpt-6.2-astra/step~strong"},
		{"codex", "", "gpt-6.2-astra/config~strong"},
		{"gemini", "strong", "pro/step~strong"},
		{"opencode", "balanced", "anthropic/claude-sonnet-5/step~balanced"},
		{"opencode", "anthropic/claude-sonnet-4-5", "anthropic/claude-sonnet-4-5/step"},
		{"mybot", "balanced", "balanced/step~balanced!"},
		// An unknown harness is unknown-harness's to report, not also
		// unmapped-tier's.
		{"nobot", "balanced", "balanced/step~balanced"},
	} {
		src := fmt.Sprintf("version = 1\n[[steps]]\nname = \"s\"\nprompt = \"p\"\nharness = %q\n", tc.harness)
		if tc.model != "" {
			src += fmt.Sprintf("model = %q\n", tc.model)
		}
		p := mustTOML(t, "p.toml", src)
		res := Resolve(context.Background(), p, &Env{Config: cfg})
		if got := show(res.Steps[0].Actions[0].Model); got != tc.want {
			t.Errorf("model %q on %s: got %s; want %s", tc.model, tc.harness, got, tc.want)
		}
	}
}

func TestResolveJudge(t *testing.T) {
	t.Parallel()
	src := `version = 1
[[steps]]
name = "a"
command = "true"
[steps.validate]
instructions = ["it works"]

[[steps]]
name = "b"
command = "true"
[steps.validate]
instructions = ["it works"]
model = "strong"

[[steps]]
name = "c"
command = "true"
[steps.validate]
shells = ["true"]
`
	p := mustTOML(t, "p.toml", src)
	for _, tc := range []struct {
		flags Flags
		want  []string
	}{
		{Flags{}, []string{"claude/default sonnet/default~balanced run", "claude/default opus/step~strong run", "no judge"}},
		{Flags{Harness: "codex", Model: "o3"}, []string{"codex/flag gpt-6.2-sol/default~balanced run", "codex/flag gpt-6.2-astra/step~strong run", "no judge"}},
	} {
		res := Resolve(context.Background(), p, &Env{Config: &config.Config{}, Flags: tc.flags})
		var got []string
		for _, sr := range res.Steps {
			j := sr.Judge
			if j == nil {
				got = append(got, "no judge")
				continue
			}
			s := show(j.Harness) + " " + show(j.Model)
			if j.Runs {
				s += " run"
			}
			got = append(got, s)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("flags %+v: judges\n%s\nwant\n%s", tc.flags, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
		var names []string
		for _, u := range res.Harnesses {
			names = append(names, u.Name)
		}
		if want := tc.want[0][:strings.Index(tc.want[0], "/")]; !slices.Equal(names, []string{want}) {
			t.Errorf("flags %+v: harnesses %q; want [%q]", tc.flags, names, want)
		}
	}
}

func TestResolveDroppedEffort(t *testing.T) {
	t.Parallel()
	src := `version = 1
[[steps]]
name = "g"
prompt = "p"
harness = "gemini"

[[steps]]
name = "c"
prompt = "p"
`
	p := mustTOML(t, "p.toml", src)
	res := Resolve(context.Background(), p, &Env{Config: &config.Config{}, Flags: Flags{Effort: "high"}})
	g, c := res.Steps[0].Actions[0], res.Steps[1].Actions[0]
	if show(g.Effort) != "/default" || g.DroppedEffort == nil || show(*g.DroppedEffort) != "high/flag" {
		t.Errorf("gemini effort %s, dropped %v; want it dropped from the flag", show(g.Effort), g.DroppedEffort)
	}
	if show(c.Effort) != "high/flag" || c.DroppedEffort != nil {
		t.Errorf("claude effort %s, dropped %v; want high from the flag", show(c.Effort), c.DroppedEffort)
	}

	cfg := &config.Config{File: cfgFile, Harness: cfgString("gemini", 1), Effort: cfgString("max", 2)}
	res = Resolve(context.Background(), p, &Env{Config: cfg})
	g, c = res.Steps[0].Actions[0], res.Steps[1].Actions[0]
	if show(g.Effort) != "/default" || g.DroppedEffort == nil || g.DroppedEffort.Range != cfgAt(2) {
		t.Errorf("gemini effort %s, dropped %v; want the config's dropped", show(g.Effort), g.DroppedEffort)
	}
	// Step c names no harness: it runs on the config's gemini too.
	if show(c.Harness) != "gemini/config" || c.DroppedEffort == nil {
		t.Errorf("step c: harness %s, dropped %v; want gemini from the config, effort dropped", show(c.Harness), c.DroppedEffort)
	}
}

// accessSrc has a step asking for read, one asking for full, and one
// asking for nothing; the process file's own access is added by the test.
const accessSrc = `
[[steps]]
name = "read"
prompt = "p"
access = "read"

[[steps]]
name = "full"
prompt = "p"
access = "full"

[[steps]]
name = "unset"
prompt = "p"
`

func TestResolveAccess(t *testing.T) {
	ceiling := func(v string) *config.Config {
		return &config.Config{File: cfgFile, Limits: config.Limits{Access: cfgString(v, 9)}}
	}
	for _, tc := range []struct {
		name    string
		process string // the top-level access, when set
		cfg     *config.Config
		flags   Flags
		// want is, per step, its access, then its judge's and the repair
		// session's.
		want []string
	}{
		{
			name: "steps and the default",
			cfg:  &config.Config{},
			want: []string{"read/step", "full/step", "write/default", "judge read/default", "repair write/default"},
		},
		{
			name:    "the process's access is its steps' default",
			process: "full",
			cfg:     &config.Config{},
			want:    []string{"read/step", "full/step", "full/process", "judge read/default", "repair write/default"},
		},
		{
			name: "the config's ceiling lowers what is above it",
			cfg:  ceiling("read"),
			want: []string{"read/step", "read/config", "read/config", "judge read/default", "repair read/config"},
		},
		{
			name: "a ceiling equal to the access leaves its source",
			cfg:  ceiling("write"),
			want: []string{"read/step", "write/config", "write/default", "judge read/default", "repair write/default"},
		},
		{
			name:    "a ceiling lowers the process's access",
			process: "full",
			cfg:     ceiling("write"),
			want:    []string{"read/step", "write/config", "write/config", "judge read/default", "repair write/default"},
		},
		{
			name:  "the flag only tightens",
			cfg:   &config.Config{},
			flags: Flags{Access: "write"},
			want:  []string{"read/step", "write/flag", "write/default", "judge read/default", "repair write/default"},
		},
		{
			name:  "the flag lowers every session above it",
			cfg:   &config.Config{},
			flags: Flags{Access: "read"},
			want:  []string{"read/step", "read/flag", "read/flag", "judge read/default", "repair read/flag"},
		},
		{
			name:  "a flag full raises nothing",
			cfg:   ceiling("write"),
			flags: Flags{Access: "full"},
			want:  []string{"read/step", "write/config", "write/default", "judge read/default", "repair write/default"},
		},
		{
			name:  "a flag below the ceiling wins",
			cfg:   ceiling("write"),
			flags: Flags{Access: "read"},
			want:  []string{"read/step", "read/flag", "read/flag", "judge read/default", "repair read/flag"},
		},
		{
			name:  "when the config and the flag tie, the config set it",
			cfg:   ceiling("read"),
			flags: Flags{Access: "read"},
			want:  []string{"read/step", "read/config", "read/config", "judge read/default", "repair read/config"},
		},
		{
			name:  "a flag that is no level is ignored",
			cfg:   &config.Config{},
			flags: Flags{Access: "none"},
			want:  []string{"read/step", "full/step", "write/default", "judge read/default", "repair write/default"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "version = 1\n"
			if tc.process != "" {
				src += fmt.Sprintf("access = %q\n", tc.process)
			}
			src += accessSrc + "[steps.validate]\ninstructions = [\"it works\"]\n"
			p := mustTOML(t, "p.toml", src)
			env := &Env{Config: tc.cfg, Flags: tc.flags}
			res := Resolve(context.Background(), p, env)
			var got []string
			for _, sr := range res.Steps {
				got = append(got, show(sr.Actions[0].Access))
			}
			got = append(got, "judge "+show(res.Steps[2].Judge.Access))
			repair := repairSession(env)
			got = append(got, "repair "+repair.Access.Value+"/"+string(repair.Access.Source))
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestResolveAccessRanges(t *testing.T) {
	p := mustTOML(t, "p.toml", "version = 1\naccess = \"full\"\n"+accessSrc)
	res := Resolve(context.Background(), p, &Env{Config: &config.Config{}})
	if r := res.Steps[0].Actions[0].Access.Range; r.File != "p.toml" || r.Start.Line != 7 || r.Start.Column != 10 {
		t.Errorf("step access range = %v; want p.toml:7:10", r)
	}
	if r := res.Steps[2].Actions[0].Access.Range; r.File != "p.toml" || r.Start.Line != 2 || r.Start.Column != 10 {
		t.Errorf("process access range = %v; want p.toml:2:10", r)
	}
	res = Resolve(context.Background(), p, &Env{Config: &config.Config{File: cfgFile, Limits: config.Limits{Access: cfgString("read", 9)}}})
	if r := res.Steps[1].Actions[0].Access.Range; r != cfgAt(9) {
		t.Errorf("config access range = %v; want %v", r, cfgAt(9))
	}
	res = Resolve(context.Background(), p, &Env{Config: &config.Config{}, Flags: Flags{Access: "read"}})
	if r := res.Steps[1].Actions[0].Access.Range; r.IsValid() {
		t.Errorf("flag access range = %v; want none", r)
	}
}

func TestResolveLimits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		file     string // the [limits] table's lines
		cfg      *config.Config
		flags    Flags
		cap      string
		self     bool
		merge    string
		paths    []string
		noLimits bool
	}{
		{name: "defaults", cfg: &config.Config{}, cap: "3/default", self: true, merge: "false/default", paths: []string{}},
		{name: "file lowers", file: "repair_cap = 2\nself_merge = false", cfg: &config.Config{}, cap: "2/file", self: false, merge: "false/default", paths: []string{}},
		{name: "file equal to the default", file: "repair_cap = 3", cfg: &config.Config{}, cap: "3/file", self: true, merge: "false/default", paths: []string{}},
		{name: "file above the config loses", file: "repair_cap = 5", cfg: &config.Config{RepairCap: ir.Field[int]{Value: 4, Set: true}}, cap: "4/config", self: true, merge: "false/default", paths: []string{}},
		{name: "a tighter flag wins", file: "repair_cap = 2", cfg: &config.Config{}, flags: Flags{RepairCap: 1, Merge: true}, cap: "1/flag", self: true, merge: "true/flag", paths: []string{}},
		{name: "a looser flag loses", file: "repair_cap = 2", cfg: &config.Config{}, flags: Flags{RepairCap: 9}, cap: "2/file", self: true, merge: "false/default", paths: []string{}},
		{
			name:  "merge_always and protected paths add up",
			file:  `protected_paths = ["b/**", "c/**", "a/**"]`,
			cfg:   &config.Config{MergeAlways: ir.Field[bool]{Value: true, Set: true}, ProtectedPaths: cfgList(3, "b/**", "x/**")},
			flags: Flags{Protect: []string{"a/**", "b/**"}},
			cap:   "3/default", self: true, merge: "true/config",
			paths: []string{"a/**", "b/**", "x/**", "c/**"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "version = 1\n"
			if tc.file != "" {
				src += "[limits]\n" + tc.file + "\n"
			}
			src += "[[steps]]\nname = \"s\"\ncommand = \"true\"\n"
			p := mustTOML(t, "p.toml", src)
			l := Resolve(context.Background(), p, &Env{Config: tc.cfg, Flags: tc.flags}).Limits
			if got := fmt.Sprintf("%d/%s", l.RepairCap.Value, l.RepairCap.Source); got != tc.cap {
				t.Errorf("repair cap %s; want %s", got, tc.cap)
			}
			if l.SelfMerge != tc.self {
				t.Errorf("self_merge %v; want %v", l.SelfMerge, tc.self)
			}
			if got := l.Merge.Value + "/" + string(l.Merge.Source); got != tc.merge {
				t.Errorf("merge %s; want %s", got, tc.merge)
			}
			if !slices.Equal(l.ProtectedPaths, tc.paths) || l.ProtectedPaths == nil {
				t.Errorf("protected paths %q; want %q", l.ProtectedPaths, tc.paths)
			}
		})
	}
}

func TestResolveWorktrees(t *testing.T) {
	t.Parallel()
	src := `version = 1
default_worktree = "a"
[worktrees.a]
kind = "throwaway"
[worktrees.b]
kind = "throwaway"
[[steps]]
name = "one"
command = "true"
[[steps]]
name = "two"
command = "true"
worktree = "b"
[[steps]]
name = "three"
command = "true"
worktree = "nope"
`
	res := Resolve(context.Background(), mustTOML(t, "p.toml", src), &Env{Config: &config.Config{}})
	var got []string
	for _, s := range res.Steps {
		got = append(got, s.Worktree)
	}
	if want := []string{"a", "b", "nope"}; !slices.Equal(got, want) {
		t.Errorf("worktrees %q; want %q", got, want)
	}
	res = Resolve(context.Background(), mustTOML(t, "p.toml", "version = 1\n[[steps]]\nname = \"s\"\ncommand = \"true\"\n"), &Env{Config: &config.Config{}})
	if got := res.Steps[0].Worktree; got != ir.ImplicitWorktree {
		t.Errorf("worktree %q; want the implicit %q", got, ir.ImplicitWorktree)
	}
}

func TestResolveSkill(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	writeTestFile(t, home+"/skills/bug-hunt/SKILL.md", "# hunt\n")
	src := `version = 1
[[steps]]
name = "a"
skill = "bug-hunt"
[[steps]]
name = "b"
skill = "nowhere"
`
	res := Resolve(context.Background(), mustTOML(t, "p.toml", src), &Env{Home: home, Config: &config.Config{}})
	a, b := res.Steps[0].Actions[0], res.Steps[1].Actions[0]
	if a.Skill == nil || a.Skill.Source != ir.SkillHome || a.Skill.Path != home+"/skills/bug-hunt/SKILL.md" || a.SkillErr != nil {
		t.Errorf("skill a = %+v, %v; want the home skill", a.Skill, a.SkillErr)
	}
	if b.Skill != nil || b.SkillErr == nil {
		t.Errorf("skill b = %+v, %v; want not found", b.Skill, b.SkillErr)
	}
}

package harness

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/ir"
	"github.com/pelletier/go-toml/v2"
	"mvdan.cc/sh/v3/syntax"
)

// readEscapes are shell commands a session at read access must not run:
// each writes a file, runs a program of the model's, or reads outside the
// worktree, through the read-only commands a CLI may allow.
var readEscapes = []string{
	// git's --output writes a file, however it is spelled.
	"git diff --output=../pwned HEAD",
	"git diff --output ../pwned HEAD",
	"git log -1 --output=/tmp/pwned",
	"git log -p --output-indicator-new=x",
	"git diff --out''put=pwned HEAD",
	`git diff --"output"=pwned HEAD`,
	`git diff --out\put=pwned HEAD`,
	`git diff -\-output=pwned HEAD`,
	`git diff --o\utput=pwned HEAD`,
	"git diff --out\\\nput=pwned HEAD",
	"git diff ${X:---output=pwned} HEAD",
	"git diff --{output,x}=pwned HEAD",
	"git\tdiff\t--output=pwned HEAD",
	// Redirections, of a command, a group, a subshell or a loop.
	"git log > pwned",
	"git log -1 >> pwned",
	"git status 2> pwned",
	"git log &> pwned",
	"git log >| pwned",
	"ls >pwned",
	"ls 1>pwned",
	"ls <> pwned",
	"(ls) > pwned",
	"(git log) > pwned",
	"{ git log; } > pwned",
	"for f in a; do ls; done > pwned",
	"git log --format=touch%x20x -1 > ~/.bashrc",
	// A second command, a substitution, a pipe.
	"git log && touch pwned",
	"git log; touch pwned",
	"git log || touch pwned",
	"git log & touch pwned",
	"git log\ntouch pwned",
	"git log | tee pwned",
	"git log $(touch pwned)",
	"git log `touch pwned`",
	"git diff <(touch pwned) go.mod",
	"git diff >(touch pwned)",
	// Programs git runs for the model.
	`git difftool -y -x "touch pwned" HEAD`,
	"git difftool -y -x touch --no-index a b",
	"git -c core.pager=touch log",
	"git -c diff.external=touch diff --ext-diff",
	"GIT_EXTERNAL_DIFF=touch git diff",
	"GIT_PAGER=touch git log",
	"env git log",
	"sh -c 'git log > pwned'",
	// Reads outside the worktree.
	"git diff --no-index /etc/passwd go.mod",
	"git diff /etc/passwd go.mod",
	"git diff HEAD -- ../outside",
	"ls /",
	"ls ~",
	"ls ..",
	"ls ../other",
	"ls src/../..",
}

// readLooks are read-only commands a session at read access may run with
// gemini: git log, git diff, git status and ls in plain words.
var readLooks = []string{
	"git log",
	"git log --oneline -5",
	"git log --oneline --graph --all",
	"git log -p -1 --stat",
	"git log main..HEAD",
	"git log --format=%h",
	"git diff",
	"git diff --cached",
	"git diff --stat main...HEAD",
	"git diff HEAD~1 -- src/main.go",
	"git diff HEAD^ HEAD",
	"git status",
	"git status --short",
	"ls",
	"ls -la src",
	"ls -R .",
}

// geminiRule is a rule of a Gemini CLI policy file, as far as cairn uses
// them: a pattern of a commandRegex or of each commandPrefix.
type geminiRule struct {
	ToolName      string `toml:"toolName"`
	CommandRegex  string `toml:"commandRegex"`
	CommandPrefix any    `toml:"commandPrefix"`
	ArgsPattern   string `toml:"argsPattern"`
	Decision      string `toml:"decision"`
	Priority      int    `toml:"priority"`

	pattern *regexp.Regexp
}

// geminiUnsafe is the test by which Gemini CLI 0.61.0 drops a rule whose
// pattern could backtrack badly (policy/utils.js isSafeRegExp): a group
// holding a quantifier, itself quantified.
var geminiUnsafe = regexp.MustCompile(`\([^)]*[*+?{].*\)[*+?{]`)

// geminiRules reads a policy file as Gemini CLI 0.61.0 does: each rule's
// commandRegex (or commandPrefix) matched against its shell command's
// arguments as JSON, from the command's first character; highest priority
// first.
func geminiRules(t *testing.T, text string) []geminiRule {
	t.Helper()
	var file struct {
		Rule []geminiRule `toml:"rule"`
	}
	if err := toml.Unmarshal([]byte(text), &file); err != nil {
		t.Fatalf("the policy is not TOML: %v", err)
	}
	var rules []geminiRule
	for i, r := range file.Rule {
		if r.ToolName != "run_shell_command" || r.ArgsPattern != "" {
			t.Fatalf("rule %d: this test reads only commandRegex and commandPrefix rules of run_shell_command", i+1)
		}
		var patterns []string
		switch p := r.CommandPrefix.(type) {
		case nil:
			patterns = []string{`"command":"` + r.CommandRegex}
		case string:
			patterns = []string{geminiPrefix(p)}
		case []any:
			for _, p := range p {
				patterns = append(patterns, geminiPrefix(p.(string)))
			}
		}
		for _, pattern := range patterns {
			if len(pattern) > 2048 || geminiUnsafe.MatchString(pattern) {
				t.Errorf("rule %d: Gemini CLI drops the pattern %s as unsafe", i+1, pattern)
			}
			re, err := regexp.Compile(pattern)
			if err != nil {
				t.Fatalf("rule %d: %v", i+1, err)
			}
			r.pattern = re
			rules = append(rules, r)
		}
	}
	file.Rule = rules
	slices.SortStableFunc(file.Rule, func(a, b geminiRule) int { return b.Priority - a.Priority })
	return file.Rule
}

// geminiPrefix is the pattern Gemini CLI makes of a commandPrefix: the
// prefix, then a space, a quote or the command's end.
func geminiPrefix(prefix string) string {
	quoted, _ := jsonText(prefix)
	return regexp.QuoteMeta(`"command":`+strings.TrimSuffix(quoted, `"`)) + `(?:[\s"]|\\")`
}

// geminiDecision is what Gemini CLI's policy engine decides for a shell
// command, in the default approval mode: the first rule that matches, by
// priority, else ask; an allowed command with a redirection asks; a command
// of several is denied if any part is, and asks if any part asks; a
// command the shell cannot parse asks. Headless, ask refuses.
func geminiDecision(rules []geminiRule, command string) string {
	args, _ := jsonText(map[string]string{"command": command, "description": "Run it"})
	decision := "ask_user"
	for _, r := range rules {
		if r.pattern.MatchString(args) {
			decision = r.Decision
			break
		}
	}
	if decision == "deny" {
		return decision
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err != nil {
		return "ask_user"
	}
	if decision == "allow" && redirects(f) {
		decision = "ask_user"
	}
	for _, part := range simpleCommands(command, f) {
		if part.text == strings.TrimSpace(command) {
			continue
		}
		switch geminiDecision(rules, part.text) {
		case "deny":
			return "deny"
		case "ask_user":
			decision = "ask_user"
		}
	}
	return decision
}

// jsonText is v as JavaScript's JSON.stringify writes it: no HTML escapes.
func jsonText(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n"), err
}

// redirects reports whether any statement of f has a redirection.
func redirects(f *syntax.File) bool {
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if s, ok := n.(*syntax.Stmt); ok && len(s.Redirs) > 0 {
			found = true
		}
		return !found
	})
	return found
}

// simpleCommand is a simple command of a shell command: its text, and the
// text with its own redirections (the statement it is the whole of).
type simpleCommand struct{ text, withRedirs string }

// simpleCommands are the simple commands of the shell command src, parsed
// as f, in order, those inside substitutions among them; an assignment
// alone is none.
func simpleCommands(src string, f *syntax.File) []simpleCommand {
	var parts []simpleCommand
	text := func(n syntax.Node) string { return src[n.Pos().Offset():n.End().Offset()] }
	syntax.Walk(f, func(n syntax.Node) bool {
		s, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		if c, ok := s.Cmd.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			p := simpleCommand{text: text(c), withRedirs: text(c)}
			if len(s.Redirs) > 0 {
				p.withRedirs = text(s)
			}
			parts = append(parts, p)
		}
		return true
	})
	return parts
}

// TestGeminiReadPolicy: gemini's read policy, as Gemini CLI's policy
// engine reads it, lets in none of readEscapes and every one of readLooks;
// no rule of it is one Gemini CLI would drop.
func TestGeminiReadPolicy(t *testing.T) {
	rules := geminiRules(t, geminiPolicy[ir.AccessRead].Text)
	for _, c := range readEscapes {
		if d := geminiDecision(rules, c); d == "allow" {
			t.Errorf("gemini at read runs %q", c)
		}
	}
	for _, c := range readLooks {
		if d := geminiDecision(rules, c); d != "allow" {
			t.Errorf("gemini at read does not run %q: %s", c, d)
		}
	}
}

// opencodeRule is a rule of opencode's permission config, in the order the
// config gives them.
type opencodeRule struct{ permission, pattern, action string }

// opencodeRules reads a permission config as opencode 1.18.33 does: a
// string is the action of every pattern of its permission, an object one
// action per pattern; in the config's order.
func opencodeRules(t *testing.T, config string) []opencodeRule {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(config))
	token := func() json.Token {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("permission %s: %v", config, err)
		}
		return tok
	}
	var rules []opencodeRule
	token() // {
	for dec.More() {
		perm := token().(string)
		switch v := token().(type) {
		case string:
			rules = append(rules, opencodeRule{perm, "*", v})
		case json.Delim:
			for dec.More() {
				pattern := token().(string)
				rules = append(rules, opencodeRule{perm, pattern, token().(string)})
			}
			token() // }
		}
	}
	return rules
}

// opencodeMatch is opencode's wildcard match: * any text, ? any
// character, a trailing " *" also matching nothing; backslashes read as
// slashes on both sides.
func opencodeMatch(s, pattern string) bool {
	s = strings.ReplaceAll(s, `\`, "/")
	pattern = strings.ReplaceAll(pattern, `\`, "/")
	var b strings.Builder
	for _, r := range pattern {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	re := b.String()
	if strings.HasSuffix(re, " .*") {
		re = strings.TrimSuffix(re, " .*") + "( .*)?"
	}
	return regexp.MustCompile(`(?s)^` + re + `$`).MatchString(s)
}

// opencodeAction is the action of the last rule that matches permission
// and pattern; ask when none does.
func opencodeAction(rules []opencodeRule, permission, pattern string) string {
	for i := len(rules) - 1; i >= 0; i-- {
		r := rules[i]
		if opencodeMatch(permission, r.permission) && opencodeMatch(pattern, r.pattern) {
			return r.action
		}
	}
	return "ask"
}

// opencodeRuns reports whether opencode run, with rules, runs a bash
// command: its tool is offered (the last rule of bash is not a deny of
// every pattern), and each simple command's text, with the redirections
// of a statement it is the whole of, is allowed (a deny refuses, an ask is
// rejected).
func opencodeRuns(rules []opencodeRule, command string) bool {
	for i := len(rules) - 1; i >= 0; i-- {
		if opencodeMatch("bash", rules[i].permission) {
			if rules[i].pattern == "*" && rules[i].action == "deny" {
				return false
			}
			break
		}
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err != nil {
		return false
	}
	for _, part := range simpleCommands(command, f) {
		if opencodeAction(rules, "bash", part.withRedirs) != "allow" {
			return false
		}
	}
	return true
}

// TestOpencodeReadPermission: opencode's read permission, as opencode
// reads it, runs none of readEscapes, nor any command: a pattern sees a
// simple command without the redirection of a group around it, so even
// an exact "ls" would let "(ls) > FILE" write (the check below). Edits are
// denied.
func TestOpencodeReadPermission(t *testing.T) {
	rules := opencodeRules(t, opencodePermission[ir.AccessRead])
	for _, c := range append(slices.Clone(readEscapes), readLooks...) {
		if opencodeRuns(rules, c) {
			t.Errorf("opencode at read runs %q", c)
		}
	}
	// opencode checks its write and apply_patch tools as edit.
	if a := opencodeAction(rules, "edit", "main.go"); a != "deny" {
		t.Errorf("opencode at read: edit is %s; want deny", a)
	}
	// The hole that keeps bash out: an allowance of exactly "ls" lets a
	// subshell around it write.
	exact := opencodeRules(t, `{"bash":{"*":"deny","ls":"allow"}}`)
	if !opencodeRuns(exact, "(ls) > pwned") {
		t.Errorf(`the emulation refuses "(ls) > pwned" under an "ls" allowance, which opencode runs`)
	}
}

// TestReadAccessGrants: at read, claude and codex are given nothing that
// lets a command write: claude runs dontAsk with no tool allowed (Claude
// Code's own check runs its read-only commands) and codex its read-only
// sandbox, with nothing that widens either; TestRealSessionsReadOnly runs
// the escapes through both.
func TestReadAccessGrants(t *testing.T) {
	r := NewRegistry(nil)
	widens := map[string][]string{
		"claude": {"--allowedTools", "--allowed-tools", "--settings", "--dangerously-skip-permissions", "--add-dir", "bypassPermissions", "acceptEdits"},
		"codex":  {"--dangerously-bypass-approvals-and-sandbox", "--full-auto", "--add-dir", "workspace-write", "danger-full-access", "sandbox_workspace_write", "sandbox_mode"},
	}
	for _, name := range []string{"claude", "codex"} {
		h, _ := r.Lookup(name)
		c, err := h.Command(Invocation{Prompt: "look", Access: ir.AccessRead, Worktree: "/w", OutputFile: "/o", FilesDir: "/f"})
		if err != nil {
			t.Fatal(err)
		}
		argv := strings.Join(c.Argv, " ")
		for _, w := range widens[name] {
			if strings.Contains(argv, w) {
				t.Errorf("%s at read: %s in %s", name, w, argv)
			}
		}
		want := map[string]string{"claude": "--permission-mode dontAsk", "codex": "--sandbox read-only"}[name]
		if !strings.Contains(argv, want) {
			t.Errorf("%s at read: %s; want %s", name, argv, want)
		}
		if len(c.Files) > 0 || c.Settings != nil || slices.ContainsFunc(c.Env, func(e string) bool { return strings.HasPrefix(e, "IS_SANDBOX=") }) {
			t.Errorf("%s at read: files %v, settings %v, env %v; want none that grant", name, c.Files, c.Settings, c.Env)
		}
	}
}

// TestGeminiReadPolicyEmulation keeps the emulation honest: the read
// policy cairn shipped before, a commandPrefix rule, let git's --output
// through, as the real CLI did, and asked for a redirection or a second
// command, as the real CLI does.
func TestGeminiReadPolicyEmulation(t *testing.T) {
	rules := geminiRules(t, `[[rule]]
toolName = "run_shell_command"
commandPrefix = ["git log", "git diff", "git status", "ls"]
decision = "allow"
priority = 100
`)
	for c, want := range map[string]string{
		"git diff --output=../pwned HEAD": "allow",
		"git diff > pwned":                "ask_user",
		"git diff && touch pwned":         "ask_user",
		"git difftool":                    "ask_user",
		"lsof":                            "ask_user",
		"ls":                              "allow",
	} {
		if got := geminiDecision(rules, c); got != want {
			t.Errorf("%q: %s; want %s", c, got, want)
		}
	}
}

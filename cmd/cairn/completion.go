package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/cairn-dev/cairn/check"
	"github.com/cairn-dev/cairn/load"
)

// completionCmd is `cairn completion`.
type completionCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish" help:"The shell: bash, zsh or fish. Load the script from your shell's startup file: source <(cairn completion bash) in ~/.bashrc, source <(cairn completion zsh) in ~/.zshrc after compinit, cairn completion fish | source in ~/.config/fish/config.fish."`
}

// Run prints the completion script of the shell. Each script asks cairn
// itself what may follow the words typed (completeCmd).
func (c *completionCmd) Run(a *app) error {
	_, err := io.WriteString(a.stdout, completionScripts[c.Shell])
	return err
}

// completionScripts are the completion scripts, by shell. Each passes the
// words typed after cairn, up to the cursor, to cairn __complete, offers
// the words it prints and, when it prints the line ":files", the shell's
// own completion of file names too.
var completionScripts = map[string]string{
	"bash": `# cairn's completion for bash: source <(cairn completion bash)
_cairn() {
	local line=${COMP_LINE:0:COMP_POINT} word files=
	local -a words
	read -ra words <<<"$line"
	[[ $line == *[[:space:]] ]] && words+=("")
	COMPREPLY=()
	while IFS= read -r word; do
		if [[ $word == :files ]]; then files=1; else COMPREPLY+=("$word"); fi
	done < <("${words[0]}" __complete "${words[@]:1}" 2>/dev/null)
	if [[ $files ]]; then
		compopt -o filenames 2>/dev/null
		while IFS= read -r word; do
			COMPREPLY+=("$word")
		done < <(compgen -f -- "${words[${#words[@]}-1]}")
	fi
}
complete -F _cairn cairn
`,
	"zsh": `#compdef cairn
# cairn's completion for zsh, after compinit: source <(cairn completion zsh)
_cairn() {
	local line files=
	local -a reply
	for line in "${(@f)$(${words[1]} __complete "${(@Q)words[2,CURRENT]}" 2>/dev/null)}"; do
		if [[ $line == :files ]]; then files=1; elif [[ -n $line ]]; then reply+=("$line"); fi
	done
	compadd -a reply
	[[ -n $files ]] && _files
	return 0
}
compdef _cairn cairn
`,
	"fish": `# cairn's completion for fish: cairn completion fish | source
function __cairn_complete
    set -l words (commandline -opc)
    set -l current (commandline -ct)
    for line in ($words[1] __complete $words[2..-1] "$current" 2>/dev/null)
        if test "$line" = :files
            __fish_complete_path "$current"
        else
            echo $line
        end
    end
end
complete -c cairn -f -a '(__cairn_complete)'
`,
}

// completeCmd is `cairn __complete WORD...`, which the completion scripts
// run: the WORDs are the command line after cairn up to the cursor, the
// last the one being completed ("" for a new word).
type completeCmd struct {
	Words []string `arg:"" optional:""`
}

// Run prints, one a line, the words that may stand where the last word is
// and begin as it does: a command's name, a flag, or a value (predict); and
// the line ":files" when a file's name may stand there too.
func (c *completeCmd) Run(ctx *kong.Context, a *app) error {
	words := c.Words
	if len(words) == 0 {
		words = []string{""}
	}
	current := words[len(words)-1]
	at := locate(ctx.Model.Node, words[:len(words)-1])
	// Where -C names no directory, the processes are looked up from
	// cairn's own.
	dir, _ := workDir(at.dir)
	var candidates []string
	files := false
	switch {
	case at.value != nil:
		candidates, files = predict(a, at.value, dir)
	case strings.HasPrefix(current, "-"):
		for _, group := range at.node.AllFlags(true) {
			for _, f := range group {
				candidates = append(candidates, "--"+f.Name)
			}
		}
	default:
		candidates = commandNames(at.node)
		if p := at.positional(); p != nil {
			values, withFiles := predict(a, p, dir)
			candidates, files = append(candidates, values...), withFiles
		}
	}
	for _, w := range candidates {
		if w != "" && strings.HasPrefix(w, current) {
			fmt.Fprintln(a.stdout, w)
		}
	}
	if files {
		fmt.Fprintln(a.stdout, ":files")
	}
	return nil
}

// completionPoint is where on cairn's command line the word being completed
// stands: the command chosen so far, how many of its positional arguments
// were given, the flag whose value the word is (nil for none), and the
// directory -C named.
type completionPoint struct {
	node  *kong.Node
	given int
	value *kong.Value
	dir   string
}

// locate follows the words typed before the one being completed through
// cairn's commands and flags.
func locate(root *kong.Node, typed []string) completionPoint {
	at := completionPoint{node: root}
	var flag *kong.Flag
	for i, w := range typed {
		switch {
		case flag != nil:
			if flag.Name == "directory" {
				at.dir = w
			}
			flag = nil
		case w == "--":
			at.given += len(typed) - i - 1
			return at
		case len(w) > 1 && w[0] == '-':
			name, _, inline := flagWord(w)
			if flag, _ = lookupFlag(at.node, strings.TrimLeft(name, "-")); flag != nil && (flag.IsBool() || inline) {
				flag = nil
			}
		default:
			if child := command(at.node, w); child != nil {
				at.node, at.given = child, 0
			} else {
				at.given++
			}
		}
	}
	if flag != nil {
		at.value = flag.Value
	}
	return at
}

// positional is the positional argument the word being completed would
// be, nil when the command takes no more.
func (at completionPoint) positional() *kong.Value {
	args := at.node.Positional
	switch {
	case at.given < len(args):
		return args[at.given]
	case len(args) > 0 && args[len(args)-1].IsCumulative():
		return args[len(args)-1]
	}
	return nil
}

// command is node's command called name, nil for none.
func command(node *kong.Node, name string) *kong.Node {
	i := slices.IndexFunc(node.Children, func(c *kong.Node) bool {
		return c.Type == kong.CommandNode && c.Name == name
	})
	if i < 0 {
		return nil
	}
	return node.Children[i]
}

// predict is what the value of a flag or positional argument may be: its
// enum, or by its predictor tag the names of the processes cairn list finds
// in dir ("process"), and whether a file's name may be given (a process's
// file, or "file").
func predict(a *app, v *kong.Value, dir string) (values []string, files bool) {
	switch v.Tag.Get("predictor") {
	case "process":
		found, _ := check.List(load.Open(a.ctx, dir, load.Options{NoPreflight: true, Env: a.env}).Env)
		for _, f := range found {
			values = append(values, f.Name)
		}
		return values, true
	case "file":
		return nil, true
	}
	if v.Enum == "" {
		return nil, false
	}
	return v.EnumSlice(), false
}

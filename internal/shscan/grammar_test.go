package shscan

import (
	"flag"
	"math/rand/v2"
	"strings"
	"testing"
)

// gen writes random scripts from a grammar of the constructs CI scripts use,
// with blanks, line continuations, here-documents and nesting, so that the
// differential test reaches far more of both parsers than byte mutations do.
type gen struct {
	r *rand.Rand
	b strings.Builder
	d int
}

func (g *gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g *gen) word() {
	n := 1 + g.r.IntN(3)
	for i := 0; i < n; i++ {
		switch g.r.IntN(14) {
		case 0:
			g.b.WriteString("'" + g.pick("a", "b c", "$x", "\"", "\\", "`", "") + "'")
		case 1:
			g.b.WriteString("\"")
			for j := g.r.IntN(3); j > 0; j-- {
				if g.d < 4 && g.r.IntN(3) == 0 {
					g.d++
					g.b.WriteString("$(")
					g.stmts()
					g.b.WriteString(")")
					g.d--
				} else {
					g.b.WriteString(g.pick("a", " ", "$x", "${x:-\"y\"}", "\\\"", "\\$", "'", "#", "`date`", "${x#*/}", "$((1+2))", "\n", "$", "\\\n"))
				}
			}
			g.b.WriteString("\"")
		case 2:
			if g.d < 4 {
				g.d++
				g.b.WriteString("$(")
				g.stmts()
				g.b.WriteString(")")
				g.d--
			}
		case 3:
			g.b.WriteString(g.pick("${x}", "${x:-a b}", "${x:=$y}", "${#x}", "${x[@]}", "${x[i+1]}", "${x[$k]}", "${!x}", "${x/a/b}", "${x//\\//_}", "${x:1}", "${x: -1:2}", "${x^^}", "${x@Q}", "${x%%.*}", "${x##*/}", "${x:-'q'}", "${x-\"$(y)\"}", "${10}", "${@:2}", "${x:a?1:2}", "${!p*}"))
		case 4:
			g.b.WriteString(g.pick("$x", "$1", "$@", "$#", "$?", "$$", "$!", "$-", "$", "$x#", "$_a"))
		case 5:
			g.b.WriteString(g.pick("$((1+2))", "$((x++))", "$(( (a) * b ))", "$((a?b:c))", "$((a[1]=2))", "$((x<<1|y))", "$((-x))", "$((!x))", "$(($x+1))", "$((\"1\"+2))", "$((x,y))", "$((i+=1))"))
		case 6:
			g.b.WriteString(g.pick("<(ls)", ">(cat)", "`date`", "`echo a b`"))
		case 7:
			g.b.WriteString(g.pick("$'a\\n'", "$'\\''", "$\"x\""))
		case 8:
			g.b.WriteString(g.pick("a[1]", "*.go", "x=y", "a\\ b", "{a,b}", "~/x", "#x", "a#b", "-f", "--x=y", "@", "!", "}", "{", "]]", "[[", "fi", "done", "in", "do", "then", "esac"))
		default:
			g.b.WriteString(g.pick("a", "b", "foo", "x1", "1", "2", "-", "/tmp/x", "."))
		}
	}
}

func (g *gen) sep() {
	g.b.WriteString(g.pick(" ", " ", " ", "  ", "\t", " \\\n "))
}

func (g *gen) end() {
	g.b.WriteString(g.pick(";", "\n", "\n", " &", "; ", "\n\n", " # c\n", "\n"))
}

func (g *gen) simple() {
	if g.r.IntN(4) == 0 {
		g.b.WriteString(g.pick("a=", "b=", "arr=", "c+=", "m[$k]=", "m[1]="))
		if g.r.IntN(3) == 0 {
			g.b.WriteString("(")
			for j := g.r.IntN(3); j > 0; j-- {
				g.word()
				g.sep()
			}
			g.b.WriteString(")")
		} else {
			g.word()
		}
		if g.r.IntN(2) == 0 {
			return
		}
		g.sep()
	}
	g.b.WriteString(g.pick("echo", "cat", "ls", "local", "export", "declare -A", "test", "[", "printf", "time", "!", "true", ":"))
	for j := g.r.IntN(4); j > 0; j-- {
		g.sep()
		if g.r.IntN(5) == 0 {
			g.b.WriteString(g.pick(">", ">>", "<", "2>", "2>&1", ">&2", "&>", "<<<", "<>", ">|", "1>", "&>>", "<&"))
			if g.r.IntN(4) != 0 {
				g.sep()
			}
		}
		g.word()
	}
	if g.r.IntN(8) == 0 {
		d := g.pick("EOF", "END", "X")
		q := g.pick("", "'", "\"", "-")
		if q == "-" {
			g.b.WriteString(" <<-" + d)
		} else {
			g.b.WriteString(" <<" + q + d + q)
		}
		g.b.WriteString(g.pick("\n", " | cat\n", "; echo\n"))
		for j := g.r.IntN(3); j > 0; j-- {
			g.b.WriteString(g.pick("body", "$x", "${y}", "$(date)", "\ta", "'q'", "\"d\"", "\\$x", "`c`", "a"+d, d+" ", "$((1))", "a \\", "\\", "\t\\", d+"\\"))
			g.b.WriteString("\n")
		}
		g.b.WriteString(g.pick("", "\t") + d + "\n")
	}
}

func (g *gen) pipeline() {
	if g.r.IntN(8) == 0 {
		g.b.WriteString("! ")
	}
	g.command()
	for g.r.IntN(4) == 0 {
		g.b.WriteString(g.pick(" | ", " |& ", " && ", " || ", "|", "&&\n"))
		g.command()
	}
}

func (g *gen) command() {
	if g.d > 4 {
		g.simple()
		return
	}
	g.d++
	defer func() { g.d-- }()
	switch g.r.IntN(16) {
	case 0:
		g.b.WriteString("if ")
		g.stmts()
		g.b.WriteString("then ")
		g.stmts()
		if g.r.IntN(2) == 0 {
			g.b.WriteString("elif ")
			g.stmts()
			g.b.WriteString("then ")
			g.stmts()
		}
		if g.r.IntN(2) == 0 {
			g.b.WriteString("else ")
			g.stmts()
		}
		g.b.WriteString("fi")
	case 1:
		g.b.WriteString(g.pick("for x in a b; do ", "for x; do ", "for ((i=0; i<2; i++)); do ", "for x in\ndo ", "for ((;;)) do "))
		g.stmts()
		g.b.WriteString("done")
	case 2:
		g.b.WriteString(g.pick("while ", "until "))
		g.stmts()
		g.b.WriteString("do ")
		g.stmts()
		g.b.WriteString("done")
	case 3:
		g.b.WriteString("case ")
		g.word()
		g.b.WriteString(g.pick(" in\n", " in ", "\nin\n"))
		for j := g.r.IntN(3); j > 0; j-- {
			g.b.WriteString(g.pick("a) ", "(b|c) ", "*) ", "\"x\") ", "$y|z)\n"))
			if g.r.IntN(3) != 0 {
				g.stmts()
			}
			g.b.WriteString(g.pick(";;\n", ";&\n", ";;& ", ";; "))
		}
		g.b.WriteString("esac")
	case 4:
		g.b.WriteString("{ ")
		g.stmts()
		g.b.WriteString("}")
	case 5:
		g.b.WriteString("(")
		g.stmts()
		g.b.WriteString(")")
	case 6:
		g.b.WriteString(g.pick("f() ", "function g ", "function h() ", "k()\n"))
		g.b.WriteString("{ ")
		g.stmts()
		g.b.WriteString("}")
	case 7:
		g.b.WriteString("[[ ")
		for j := 1 + g.r.IntN(2); j > 0; j-- {
			switch g.r.IntN(4) {
			case 0:
				g.b.WriteString(g.pick("-n ", "-z ", "! -f ", "-e "))
				g.word()
			case 1:
				g.word()
				g.b.WriteString(g.pick(" == ", " != ", " < ", " -eq ", " =~ "))
				g.word()
			case 2:
				g.b.WriteString("( ")
				g.word()
				g.b.WriteString(" )")
			default:
				g.word()
			}
			if j > 1 {
				g.b.WriteString(g.pick(" && ", " || "))
			}
		}
		g.b.WriteString(" ]]")
	case 8:
		g.b.WriteString(g.pick("(( x++ ))", "((a = b + 1))", "(( a < b ))", "((i--))", "(( $x ))", "((a[1]+=2, b=c?d:e))", "(( (a) ))"))
	case 9:
		g.b.WriteString(g.pick("declare -a arr=(", "local -A m=(", "export v=(", "arr+=(", "readonly r=("))
		for j := g.r.IntN(3); j > 0; j-- {
			g.word()
			g.b.WriteString(g.pick(" ", "\n", " # c\n", "\t"))
		}
		g.b.WriteString(")")
	case 10:
		g.b.WriteString(g.pick("[[ $v =~ ^(a|b)+$ ]]", "[[ $v =~ [0-9]+ ]]", "[[ $v =~ $re ]]", "[[ x =~ \"q\"(a) ]]", "[[ (a == b) ]]", "[[ ! ( -n $x ) ]]"))
	case 11:
		g.b.WriteString(g.pick("time -p ", "time ", "! ", "2>/dev/null "))
		g.simple()
	default:
		g.simple()
	}
	if g.r.IntN(6) == 0 {
		g.b.WriteString(g.pick(" > f", " 2>&1", " < <(ls)", " >> \"$o\""))
	}
}

func (g *gen) stmts() {
	for j := 1 + g.r.IntN(3); j > 0; j-- {
		g.pipeline()
		g.end()
	}
}

// grammarScripts returns n scripts from gen, a third of them with one byte
// deleted, duplicated or a span cut, as seeded by seed.
func grammarScripts(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, 7))
	out := make([]string, 0, n)
	for range n {
		g := &gen{r: r}
		g.stmts()
		src := g.b.String()
		if r.IntN(3) == 0 && len(src) > 0 {
			i := r.IntN(len(src))
			switch r.IntN(4) {
			case 0:
				src = src[:i] + src[i+1:]
			case 1:
				src = src[:i] + string(src[r.IntN(len(src))]) + src[i:]
			case 2:
				src = src[:i] + src[r.IntN(len(src)):]
			default:
				specials := []string{"\\\n", "#", ")", "(", "}", "{", "`", "'", "\"", "$", "\\", "\n", ";", "&", "|", "<", ">", "[", "]", "=", "!", "*(", "$(", "${", "$((", " ", "\t"}
				src = src[:i] + specials[r.IntN(len(specials))] + src[i:]
			}
		}
		out = append(out, src)
	}
	return out
}

var (
	grammarN    = flag.Int("shscan.scripts", 3000, "how many generated scripts TestGrammarDifferential checks")
	grammarSeed = flag.Uint64("shscan.seed", 1, "the seed of TestGrammarDifferential's scripts")
)

// TestGrammarDifferential checks the recognizer's guarantee on scripts
// generated from a grammar: whatever it says parses, mvdan/sh parses.
func TestGrammarDifferential(t *testing.T) {
	t.Parallel()
	valid, fastN := 0, 0
	for _, src := range grammarScripts(*grammarSeed, *grammarN) {
		err := mvdanErr(src)
		if err == nil {
			valid++
		}
		if Parses(src) {
			fastN++
			if err != nil {
				t.Errorf("Parses(%q) = true; mvdan/sh: %v", src, err)
			}
		}
	}
	t.Logf("%d scripts: %d valid, %d on the fast path", *grammarN, valid, fastN)
	if fastN < valid*9/10 {
		t.Errorf("only %d of %d valid generated scripts on the fast path", fastN, valid)
	}
}

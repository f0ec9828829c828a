package shscan

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/cairn-dev/cairn/bench/corpus"
)

// mvdanErr parses src as rule shell-syntax does.
func mvdanErr(src string) error {
	_, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	return err
}

// fast are scripts of the kinds CI steps run: each must take the fast path.
var fast = []string{
	"",
	"\n\n",
	"# only a comment\n",
	"go test ./...\n",
	"echo hi; echo there & wait\n",
	"a=1 b=2 cmd x y >/dev/null 2>&1\n",
	"FOO=bar\nexport FOO BAR=baz\nlocal x; readonly y=1; declare -A m=(); typeset -i n=2\n",
	"arr=(a b \"c d\" $x)\narr+=(e)\nempty=()\nmulti=(\n  one # first\n  two\n)\n",
	"cmd | grep x |& tee log && ok || fail\n",
	"a &&\n  b ||\n  c |\n  d\n",
	"! grep -q x f\n",
	"cmd > out 2>&1 < in >> log &> all &>> all2 2>&- <> rw >| clob >&2 <&0\n",
	"cat <<< \"$x\"\n",
	"cat > f <<EOF\nhello $x ${y:-z} $(date) $((1+2))\n  indented\nEOF\necho done\n",
	"cat <<'EOF'\nliteral $x `y` \\ $(z\nEOF\n",
	"cat <<\"EOF\"\n$x\nEOF\n",
	"cat > run.sh <<'EOF'\ndocker run \\\n  --rm img\nEOF\ncat <<-'X'\n\ta \\\n\tX\n",
	"cat <<-EOF\n\tbody\n\tEOF\n",
	"cat <<A; cat <<B\na\nA\nb\nB\n",
	"cat <<EOF | sed s/a/b/ > out\nx\nEOF\n",
	"x=$(cat <<EOF\nbody\nEOF\n)\n",
	"echo 'single' \"double $x \\\" \\$\" $'ansi\\n\\'' $\"locale\" back\\ slash\n",
	"echo one \\\n  two \\\n  three\n",
	"echo $x ${x} ${x:-y} ${x:=y} ${x:?err} ${x:+alt} ${x-y} ${x=y} ${x?e} ${x+a}\n",
	"echo ${x##*/} ${x#*/} ${x%.*} ${x%%.*} ${#x} ${x/a/b} ${x//a/b} ${x/#a/b} ${x/%a/b}\n",
	"echo ${x[@]} ${x[*]} ${#x[@]} ${x[1]} ${x[i+1]} ${x[$i]} ${!x} ${!x[@]} ${!pre@} ${!pre*}\n",
	"echo ${x:1} ${x:1:2} ${x: -1} ${x:i:n} ${x^^} ${x,,} ${x^} ${x,} ${x@Q} $1 $10 ${10} $@ $* $# $? $$ $! $- $0\n",
	"echo \"${x:-\"nested\"}\" \"${x:-$(date)}\" \"$(echo \"$(pwd)\")\"\n",
	"echo $(a $(b $(c))) `date` \"`date`\"\n",
	"v=$(case $x in a) echo 1;; *) echo 2;; esac)\n",
	"echo $((1 + 2 * 3)) $(( (a+b) % c )) $((x++)) $((--y)) $((a ? b : c)) $((a<<2 | b>>1)) $((2**10)) $((x = y += 1)) $((arr[1] + 2))\n",
	"(( x++ ))\n(( a > b )) && echo big\nlet_ok=$((16))\n",
	"if [ -f x ]; then echo y; elif [[ -d z ]]; then :; else false; fi\n",
	"if true\nthen\n  echo a\nfi\n",
	"for i in a b c; do echo $i; done\nfor i; do :; done\nfor i\ndo :\ndone\nfor f in *.go; { echo $f; }\n",
	"for ((i=0; i<3; i++)); do echo $i; done\nfor ((;;)); do break; done\n",
	"while read -r x; do echo \"$x\"; done < <(ls)\nuntil false; do break; done\n",
	"case \"$(uname -s)\" in\n  Linux) echo a ;;\n  Darwin|FreeBSD) echo b ;&\n  (x) echo c ;;&\n  *) echo d >&2; exit 1 ;;\nesac\n",
	"case $x in\nesac\ncase $x in a) ;; esac\ncase $x in a) echo\nesac\n",
	"f() { echo \"$@\"; }\nfunction g { local t=$1; shift; }\nfunction h() {\n  :\n}\nname-with.dots () { :; }\n",
	"{ echo a; echo b; } >> f\n(cd x && make) || { echo failed >&2; exit 1; }\n",
	"[[ -z \"${x:-}\" ]] && echo y || echo n\n[[ $a == b* && ( -n $c || ! -e $d ) ]]\n[[ $a < $b ]]\n",
	"[[ $v =~ ^v[0-9]+$ ]]\n[[ $v =~ ^(a|b)+$ ]]\n[[ $v =~ $re ]]\n[[ $v =~ \"lit\"x ]]\n",
	"declare -A seen=()\nseen[$path]=$version\narr[i+1]+=x\n",
	"time go test\ntime -p make\n",
	"trap 'rm -rf \"$tmp\"' EXIT\n",
	"printf 'not formatted: %s\\n' $u >&2\n",
	"echo a#b $x#y # trailing comment\n",
	"echo } { ]] then fi done\n",
	"x=1; y=$x\nz=\"$x\"$y'lit'\n",
	"diff <(sort a) >(cat) <(b)\n",
	"echo héllo → wörld\n",
}

// notSure are scripts the recognizer must leave to mvdan/sh: ones it
// refuses, and valid ones outside what the recognizer reads.
var notSure = []string{
	// Refused by mvdan/sh.
	"echo 'unterminated\n",
	"echo \"unterminated\n",
	"echo $(unterminated\n",
	"echo ${x\n",
	"echo ${x y}\n",
	"echo ${}\n",
	"echo ${1a}\n",
	"echo ${#x:-y}\n",
	"echo ${@[1]}\n",
	"if true; then fi\n",
	"if true; then echo; fi fi\n",
	"if true; then echo\n",
	"while true; do done\n",
	"for x in a; do echo; done done\n",
	"{ echo }\n",
	"}\n",
	"fi\n",
	"done\n",
	"esac\n",
	"then\n",
	"( )\n",
	"echo a;; echo b\n",
	"echo a ;& b\n",
	"&& b\n",
	"a | | b\n",
	"a &\\\n& b\n",
	"! ! a\n",
	"!\n",
	"a | ! b\n",
	"cat <<EOF\nbody\n",
	"cat <<EOF\n",
	"cat <<\n",
	"cat <<EOF && [[ x ]]\nbody\nEOF\n",
	"echo $((1 + ))\n",
	"echo $(( (1) )\n",
	"echo $((a)+(b))\n",
	"echo $((1.5))\n",
	"echo $(($x = 1))\n",
	"echo $((1++))\n",
	"((\n",
	"(( ))\n",
	"echo $[1+2]\n",
	"f() \n",
	"function\n",
	"function a b { :; }\n",
	"echo foo(\n",
	"a=(1 2) cmd\n",
	"a[1]=2 cmd\n",
	"a[1]\n",
	"local -x=1\n",
	"export 1A=2\n",
	">f if true; then :; fi\n",
	">f { :; }\n",
	"echo >>| f\n",
	"echo &>| f\n",
	"[[ ]]\n",
	"[[ a b ]]\n",
	"[[ a == ]]\n",
	"[[ -n ]]\n",
	"[[ ( a ]]\n",
	"echo `unterminated\n",
	"case x in a) echo; b) echo;; esac\n",
	"case x in\n",
	"for ((i=0; i<3)); do :; done\n",
	"for (i in a); do :; done\n",
	"echo $(echo \"a\"#b)\n",
	"a=1 # c \\\nif true; then :; fi\n",
	"echo x \\\\\n",
	"echo a\x00b\n",
	"echo a\r\n",
	"echo \xff\n",
	// Valid, but outside what the recognizer reads.
	"echo @(a|b)\n",
	"let x=1\n",
	"coproc cat\n",
	"select x in a; do :; done\n",
	"echo ${ echo; }\n",
	"echo `echo \\`nested\\``\n",
	"echo `echo 'q'`\n",
	"cat <<\\EOF\nbody\nEOF\n",
	"cat <<EOF\n${x}EOF\nEOF\n",
	"cat <<EOF\nline \\\ncontinued\nEOF\n",
	"{fd}>f echo\n",
	"echo ${x:-a\nb}\n",
	"[[ a &&\n b ]]\n",
	"echo $((1 +\n 2))\n",
	"a[1]=(x)\n",
}

func TestFastPath(t *testing.T) {
	t.Parallel()
	// All of them in one script too: longer than mvdan/sh's 1 KiB buffer.
	for _, src := range append(fast, strings.Join(fast, "")) {
		if err := mvdanErr(src); err != nil {
			t.Errorf("mvdan/sh refuses %q: %v", src, err)
		}
		if !Parses(src) {
			t.Errorf("Parses(%q) = false; want true", src)
		}
	}
}

func TestNotSure(t *testing.T) {
	t.Parallel()
	for _, src := range notSure {
		if Parses(src) {
			t.Errorf("Parses(%q) = true; want false (mvdan/sh: %v)", src, mvdanErr(src))
		}
	}
}

// TestBenchCorpora holds that every script of bench/check.sh's corpora
// takes the fast path, and that the recognizer agrees with mvdan/sh on all
// of them and on the repository's own process files.
func TestBenchCorpora(t *testing.T) {
	t.Parallel()
	const files, steps = 200, 50
	for _, k := range corpus.Kinds {
		scripts := benchScripts(k, files, steps)
		if len(scripts) < files*steps {
			t.Fatalf("%s: %d scripts; want at least %d", k, len(scripts), files*steps)
		}
		for _, src := range scripts {
			if !Parses(src) {
				t.Errorf("%s: not on the fast path (mvdan/sh: %v):\n%s", k, mvdanErr(src), src)
			}
		}
	}
	all, fastN := 0, 0
	for _, src := range repoScripts(t) {
		all++
		err := mvdanErr(src)
		if Parses(src) {
			fastN++
			if err != nil {
				t.Errorf("Parses(%q) = true; mvdan/sh refuses it: %v", src, err)
			}
		} else if err == nil {
			t.Logf("valid, not on the fast path: %q", src)
		}
	}
	t.Logf("repository process files: %d of %d scripts on the fast path", fastN, all)
}

func TestParsesAllocates(t *testing.T) {
	src := strings.Join(fast, "")
	if !Parses(src) {
		t.Fatal("the fast scripts together are not on the fast path")
	}
	if n := testing.AllocsPerRun(10, func() { Parses(src) }); n != 0 {
		t.Errorf("Parses allocates %v times; want 0", n)
	}
}

// FuzzParses is the recognizer's guarantee: whatever it says parses,
// mvdan/sh parses without an error.
func FuzzParses(f *testing.F) {
	for _, src := range fast {
		f.Add(src)
	}
	for _, src := range notSure {
		f.Add(src)
	}
	for _, src := range grammarScripts(2, 300) {
		f.Add(src)
	}
	seen := map[string]bool{}
	for _, k := range corpus.Kinds {
		for _, src := range benchScripts(k, 20, 50) {
			if !seen[src] {
				seen[src] = true
				f.Add(src)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		if Parses(src) {
			if err := mvdanErr(src); err != nil {
				t.Fatalf("Parses(%q) = true; mvdan/sh: %v", src, err)
			}
		}
	})
}

// BenchmarkParses runs the recognizer over the scripts of bench/check.sh's
// corpora, 10,000 steps each, and reports the bytes it reads per second.
func BenchmarkParses(b *testing.B) {
	for _, k := range corpus.Kinds {
		scripts := benchScripts(k, 200, 50)
		n := 0
		for _, src := range scripts {
			n += len(src)
		}
		b.Run(string(k), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(n))
			for b.Loop() {
				for _, src := range scripts {
					Parses(src)
				}
			}
		})
	}
}

// TestDeep holds that nesting past the recognizer's bound is left to
// mvdan/sh, quickly and without exhausting the stack.
func TestDeep(t *testing.T) {
	t.Parallel()
	const n = 100000
	for _, src := range []string{
		strings.Repeat("(", n) + "a" + strings.Repeat(")", n),
		strings.Repeat("{ ", n) + "a" + strings.Repeat("; }", n),
		strings.Repeat("$(", n) + "a" + strings.Repeat(")", n),
		strings.Repeat("\"${a:-", n) + "a" + strings.Repeat("}\"", n),
		"[[ " + strings.Repeat("! ", n) + "a ]]",
		"[[ " + strings.Repeat("( ", n) + "a" + strings.Repeat(" )", n) + " ]]",
		"echo $((" + strings.Repeat("- ", n) + "1))",
		"echo $((" + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) + "))",
		strings.Repeat("f() ", n) + "a",
		strings.Repeat("time ", n) + "a",
		strings.Repeat("if a; then ", n) + "a" + strings.Repeat("; fi", n),
	} {
		if Parses(src) {
			t.Errorf("Parses(%.40q...) = true; want false past the nesting bound", src)
		}
	}
}

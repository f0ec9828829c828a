package shscan

import (
	"github.com/cairn-dev/cairn/bench/corpus"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func mvdanParses(src string) bool {
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	_, err := p.Parse(strings.NewReader(src), "")
	return err == nil
}

func TestTry(t *testing.T) {
	for _, src := range []string{
		"echo hi\n",
		"go test ./...\n",
		"a=1 b=2 cmd x y >/dev/null 2>&1\n",
		"if [ -f x ]; then echo y; elif true; then :; else false; fi\n",
		"for i in a b c; do echo $i; done\n",
		"while read -r x; do echo \"$x\"; done < <(ls)\n",
		"case \"$(uname -s)\" in\n  Linux) echo a ;;\n  *) echo b >&2; exit 1 ;;\nesac\n",
		"cat > f <<EOF\nhello $x\nEOF\necho done\n",
		"cat <<'EOF'\nliteral $x\nEOF\n",
		"x=$((1 + 2 * 3))\n(( x++ ))\n",
		"arr=(a b \"c d\")\necho ${arr[@]} ${#arr[@]} ${x:-y} ${x##*/} ${x%.*} ${x//a/b}\n",
		"f() {\n  local t=$1; shift\n  echo \"$@\"\n}\nf a b\n",
		"[[ -z \"${x:-}\" ]] && echo y || echo n\n",
		"[[ $line == *foo* ]] || continue\n",
		"[[ $v =~ ^v[0-9]+$ ]]\n",
		"declare -A seen=()\nseen[$path]=$version\n",
		"{ echo a; echo b; } >> f\n",
		"(cd x && make) || { echo failed >&2; exit 1; }\n",
		"echo `date`\n",
		"for ((i=0; i<3; i++)); do echo $i; done\n",
		"time go test\n",
		"! grep -q x f\n",
		"trap 'rm -rf \"$tmp\"' EXIT\n",
		"printf 'not formatted: %s\\n' $u >&2\n",
	} {
		got, want := Parses(src), mvdanParses(src)
		if got != want {
			t.Errorf("Parses(%q) = %v, mvdan %v", src, got, want)
		}
	}
}

func TestTry2(t *testing.T) {
	for _, src := range []string{"arr=(a b \"c d\")\n", "echo ${arr[@]}", "echo ${#arr[@]}", "echo ${x:-y}", "echo ${x##*/}", "echo ${x%.*}", "echo ${x//a/b}"} {
		if !Parses(src) {
			t.Errorf("%q", src)
		}
	}
}

func TestTry3(t *testing.T) {
	for _, src := range []string{"arr=(a)\necho x", "arr=(a) \necho x", "arr=(a);echo x", "echo ${x//a/b} x", "echo ${x%.*} x"} {
		if !Parses(src) {
			t.Errorf("%q", src)
		}
	}
}

func TestTryCorpus(t *testing.T) {
	var all []string
	for _, k := range corpus.Kinds {
		all = append(all, benchScripts(k, 200, 50)...)
	}
	all = append(all, repoScripts(t)...)
	fast, valid, unsound := 0, 0, 0
	seen := map[string]bool{}
	for _, src := range all {
		m := mvdanParses(src)
		p := Parses(src)
		if m {
			valid++
		}
		if p {
			fast++
		}
		if p && !m {
			unsound++
			t.Errorf("UNSOUND %q", src)
		}
		if m && !p && !seen[src] && len(seen) < 40 {
			seen[src] = true
			t.Logf("slow: %q", src)
		}
	}
	t.Logf("%d scripts, %d valid, %d fast, %d unsound", len(all), valid, fast, unsound)
}

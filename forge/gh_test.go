package forge

import (
	"context"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/ghtest"
)

func TestParseRemoteURL(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ url, want string }{
		{"https://github.com/acme/widgets.git", "github.com/acme/widgets"},
		{"https://github.com/acme/widgets", "github.com/acme/widgets"},
		{"https://user:token@GitHub.com/acme/widgets/", "github.com/acme/widgets"},
		{"git@github.com:acme/widgets.git", "github.com/acme/widgets"},
		{"ssh://git@ghe.example.com:2222/acme/widgets.git", "ghe.example.com/acme/widgets"},
		{"/srv/git/widgets.git", "error"},
		{"file:///srv/git/widgets.git", "error"},
		{"https://github.com/acme", "error"},
		{"git@github.com:acme/widgets/extra.git", "error"},
	} {
		r, err := ParseRemoteURL(c.url)
		got := r.Host + "/" + r.String()
		if err != nil {
			got = "error"
		}
		if got != c.want {
			t.Errorf("ParseRemoteURL(%q) = %q (%v), want %q", c.url, got, err, c.want)
		}
	}
}

func TestSlug(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ title, want string }{
		{"Fix the crash in `cairn gc`", "fix-the-crash-in-cairn-gc"},
		{"  Ünïcode: naïve café!  ", "n-code-na-ve-caf"},
		{"日本語", "issue"},
		{"", "issue"},
		{"a very long title that goes on and on and on past the limit", "a-very-long-title-that-goes-on-and-on"},
		{strings.Repeat("x", 60), strings.Repeat("x", 40)},
	} {
		if got := Slug(c.title); got != c.want {
			t.Errorf("Slug(%q) = %q, want %q", c.title, got, c.want)
		}
		if got := Slug(c.title); len(got) > slugMax {
			t.Errorf("Slug(%q) = %q: longer than %d", c.title, got, slugMax)
		}
	}
}

func TestLastEditors(t *testing.T) {
	t.Parallel()
	edits := []ContentEdit{{"bob", ghtest.At(5)}, {"mallory", ghtest.At(9)}, {"alice", ghtest.At(1)}, {"Mallory", ghtest.At(9)}}
	if got := LastEditors(edits); strings.Join(got, ",") != "mallory" {
		t.Errorf("LastEditors = %q, want [mallory]", got)
	}
	if got := LastEditors(nil); len(got) != 0 {
		t.Errorf("LastEditors(nil) = %q, want none", got)
	}
}

func TestGHNotOnPath(t *testing.T) {
	t.Parallel()
	f := ghtest.New(t)
	g := &GH{Dir: f.Root, Env: []string{"PATH=" + t.TempDir()}, Repo: Repo{"github.com", "acme", "widgets"}}
	_, err := g.Login(context.Background())
	if err == nil || !strings.Contains(err.Error(), `"gh"`) || !strings.Contains(err.Error(), "install GitHub's CLI") {
		t.Fatalf("Login without gh = %v, want it not found, with how to install it", err)
	}
}

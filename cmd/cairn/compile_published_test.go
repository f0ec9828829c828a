package main

import (
	"path/filepath"
	"testing"
)

// TestCompilePublishedDifferential runs golden/compile/published.toml to
// its other ends, compiled and with `cairn run`, with the fakes and the
// fake gh: a published issue that is no spec runs the process on it alone;
// a result that names no issue, an issue created before the step that
// published it or opened by an untrusted account, a spec listing a closed
// ticket or itself, and a ticket whose run fails each fail the step, with
// the same cause. With publishedWithGH the sessions publish the spec and
// its tickets with gh.
func TestCompilePublishedDifferential(t *testing.T) {
	slowSuite(t)
	file := filepath.Join(compileGoldenDir, "published.toml")
	issue10 := `cat >"$FAKE_GH_STATE/issues/10.json" <<JSON
{"number": 10, "title": "Export notes as PDF", "body": "Let users export their notes.", "author": "alice",
 "labels": [], "createdAt": "$(date -u +%Y-%m-%dT%H:%M:%SZ)", "comments": []}
JSON
`
	closed := `now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
cat >"$FAKE_GH_STATE/issues/11.json" <<JSON
{"number": 11, "title": "Ticket 11", "body": "Part of #10.", "author": "alice", "createdAt": "$now", "comments": []}
JSON
cat >"$FAKE_GH_STATE/issues/12.json" <<JSON
{"number": 12, "title": "Ticket 12", "body": "Part of #10.", "author": "alice", "state": "CLOSED", "createdAt": "$now", "comments": []}
JSON
cat >"$FAKE_GH_STATE/issues/10.json" <<JSON
{"number": 10, "title": "Export notes as PDF", "body": "- [ ] #11\n- [ ] https://github.com/acme/widgets/issues/12\n- [ ] #10",
 "author": "alice", "labels": ["Spec"], "createdAt": "$now", "comments": []}
JSON
`
	old := `cat >"$FAKE_GH_STATE/issues/10.json" <<JSON
{"number": 10, "title": "Export notes as PDF", "body": "Let users export their notes.", "author": "alice",
 "labels": ["spec"], "createdAt": "2026-01-01T00:00:00Z", "comments": []}
JSON
`
	for _, tt := range []struct {
		name  string
		files map[string]string
		code  int
	}{
		{"no spec", map[string]string{"answers/claude.spec.do": issue10}, 0},
		{"old issue", map[string]string{"answers/claude.spec.do": old}, 1},
		{"untrusted", map[string]string{"answers/claude.spec.do": "", "answers/claude.spec": "Published https://github.com/acme/widgets/issues/7"}, 1},
		{"no url", map[string]string{"answers/claude.spec": "Published it."}, 1},
		{"closed ticket", map[string]string{"answers/claude.split.do": closed}, 1},
		{"failed child", map[string]string{"answers/claude.fix.2.do": "exit 1"}, 1},
		{"gh", publishedWithGH, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if code := differential(t, file, tt.files, nil, []string{"--jobs", "1"}); code != tt.code {
				t.Errorf("cairn run exited %d; want %d", code, tt.code)
			}
		})
	}
}

// publishedWithGH are the answers of golden/compile/published.toml's
// sessions that publish with gh, as an agent does: the spec session
// creates the label spec and opens the spec, ending with the URL gh
// printed; the split session opens two tickets, lists them in the spec by
// the numbers gh gave them, reads the spec's title and says what it did in
// a comment on the spec.
var publishedWithGH = map[string]string{
	"answers/claude.spec.do": `gh label create spec --color 0e8a16 >/dev/null
url=$(gh issue create --label spec --title "Export notes as PDF" --body "Let users export their notes.")
printf 'Published the spec.\n\n<%s>.\n' "$url" >"$FAKE_MESSAGE"
`,
	"answers/claude.split.do": `spec=$(sed -n 's/^# Issue #\([0-9]*\):.*/\1/p' .cairn-issue.md)
one=$(gh issue create --title "Render the notes" --body "Part of #$spec.")
two=$(gh issue create -t "Download the PDF" -b "Part of #$spec; after #${one##*/}.")
printf 'Let users export their notes.\n\n- [ ] #%s Render\n- [ ] %s Download\n' "${one##*/}" "$two" | gh issue edit "$spec" --body-file -
title=$(gh issue view "$spec" --json title | jq -r .title)
gh issue comment "$spec" --body "Split \"$title\" into #${one##*/} and #${two##*/}." >/dev/null
printf 'Opened #%s and #%s.\n' "${one##*/}" "${two##*/}" >"$FAKE_MESSAGE"
`,
}

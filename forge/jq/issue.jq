# The issue a run works on, as cairn reads it through gh (docs/design.md §7.8): one definition,
# which cairn evaluates in-process (github.com/itchyny/gojq) and a compiled script with jq.
#
# issue_time is a time gh gives (RFC 3339, UTC) as the issue file writes a date.
def issue_time: sub("\\.[0-9]+"; "") | fromdateiso8601 | strftime("%Y-%m-%d %H:%M UTC");
# issue_line folds a text onto one line: its words, joined by one space.
def issue_line: [splits("[ \t\n\r\f\u000b]+") | select(. != "")] | join(" ");
# issue_block is a text as the issue file holds it: its line ends made \n,
# its blank end dropped, "(empty)" for none, and one newline at its end.
def issue_block: gsub("\r\n"; "\n") | sub("[\n \t]+\\z"; "") | (if . == "" then "(empty)" else . end) + "\n";
# issue_trusts($login): whether the issue ({trusted: [LOGIN...]}) trusts the
# account $login; logins are case-insensitive, and "" (a deleted account) is
# never trusted.
def issue_trusts($login): ($login | ascii_downcase) as $l | $l != "" and any(.trusted[]; ascii_downcase == $l);
# issue_kept are the comments a session sees: those of trusted accounts.
def issue_kept: . as $i | [.comments[] | select(. as $c | $i | issue_trusts($c.author.login))];
# issue_markdown is the issue file's text, .cairn-issue.md, from the issue as
# `gh issue view --json number,title,body,author,state,labels,createdAt,url,comments`
# gives it, with .trusted, the accounts the run trusts.
def issue_markdown:
  issue_kept as $kept
  | "# Issue #\(.number): \(.title | issue_line)\n\n"
  + "- URL: \(.url)\n"
  + "- Opened by: @\(.author.login) on \(.createdAt | issue_time)\n"
  + "- State: \(.state | ascii_downcase)\n"
  + (if (.labels | length) > 0 then "- Labels: \([.labels[].name] | join(", "))\n" else "" end)
  + "\n## Body\n\n" + (.body | issue_block)
  + "\n## Comments\n\nOnly comments by trusted accounts are shown.\n"
  + (if ($kept | length) == 0 then "\nThere are none.\n" else "" end)
  + ([$kept[] | "\n### @\(.author.login) on \(.createdAt | issue_time)\n\n" + (.body | issue_block)] | join(""));
# issue_slug is a title as a branch's slug: its lowercase ASCII words joined
# by hyphens, cut at a word's end within 40 characters; "issue" when no word
# is left.
def issue_slug:
  reduce (ascii_downcase | splits("[^a-z0-9]+") | select(. != "")) as $w ({s: "", done: false};
    if .done then .
    elif .s == "" then .s = $w[:40]
    elif (.s | length) + 1 + ($w | length) <= 40 then .s += "-" + $w
    else .done = true end)
  | if .s == "" then "issue" else .s end;
# issue_edits are the edits of an issue or comment as the GraphQL query
# forge/issue_edits.graphql reads them: [{editor, at}], editor "" for an
# account since deleted.
def issue_edits:
  [(select(.lastEditedAt != null) | {editor: (.editor.login // ""), at: .lastEditedAt}),
   (.userContentEdits.nodes[]? | select(.editedAt != null) | {editor: (.editor.login // ""), at: .editedAt})];
# issue_last_editors are the accounts that made the latest of edits: one, but
# every editor when two sources disagree at the same instant.
def issue_last_editors:
  map(.t = (.at | sub("\\.[0-9]+"; "") | fromdateiso8601)) as $e
  | if ($e | length) == 0 then []
    else ($e | map(.t) | max) as $last
      | reduce ($e[] | select(.t == $last) | .editor) as $who ([];
          if any(.[]; ascii_downcase == ($who | ascii_downcase)) then . else . + [$who] end)
    end;
# issue_untrusted($editors): the untrusted accounts of $editors, named ("" when
# all are trusted).
def issue_untrusted($editors):
  . as $i | [$editors[] | if . == "" then "a deleted account" elif (. as $e | $i | issue_trusts($e)) then empty else tojson end] | join(" and ");
# issue_edit_check is "" when neither the issue's body nor a kept comment was
# last edited by an untrusted account, else the error that says who edited
# what. It reads the issue as issue_markdown does, with .body_edits (the
# body's edits) and .comment_edits (each comment's, by its id), as
# issue_edits gives them.
def issue_edit_check:
  . as $i
  | [(issue_untrusted(.body_edits | issue_last_editors) | select(. != "") | "its body was last edited by " + .),
     (issue_kept[] | . as $c | $i | issue_untrusted(.comment_edits[$c.id] // [] | issue_last_editors) | select(. != "")
       | "the comment of @\($c.author.login) from \($c.createdAt | issue_time) (\($c.url)) was last edited by \(.)")]
  | if length == 0 then ""
    else "issue #\($i.number) was edited by an untrusted account: \(join("; ")); a trusted account must check the text and edit it last, or add the editor to the config's trusted list"
    end;

# The issue a run-published-issue step starts a process on (docs/design.md §7.8): one definition,
# which cairn evaluates in-process (github.com/itchyny/gojq) and a compiled script with jq. It
# stands after jq/issue.jq, whose issue_trusts it uses.
#
# published_ref is a word as ir.ParseIssue reads an issue: {number, url} ("" for a number alone),
# or null when it names no issue.
def published_ref:
  if test("^[ \t\n\r]*#?[0-9]+[ \t\n\r]*$") then
    (sub("^[ \t\n\r]*#?"; "") | sub("[ \t\n\r]+$"; "") | tonumber) as $n
    | if $n > 0 then {number: $n, url: ""} else null end
  else
    ((sub("^[ \t\n\r]+"; "") | sub("[ \t\n\r]+$"; "")
      | capture("^(?<scheme>[A-Za-z][A-Za-z0-9+.-]*)://(?<host>[^/?#]+)(?<path>/[^?#]*)?(?:[?#].*)?$")) // null) as $u
    | if $u == null then null else
      ($u.scheme | ascii_downcase) as $scheme
    | [($u.path // "") | sub("^/+"; "") | sub("/+$"; "") | split("/")[]] as $parts
    | if ($scheme != "https" and $scheme != "http") or ($parts | length) != 4 or $parts[0] == "" or $parts[1] == ""
        or $parts[2] != "issues" or ($parts[3] | test("^\\+?[0-9]+$") | not) or ($parts[3] | tonumber) <= 0 then null
      else {number: ($parts[3] | tonumber), url: "\($scheme)://\($u.host)/\($parts[0])/\($parts[1])/issues/\($parts[3] | tonumber)"}
      end
    end
  end;
# published_url is the issue URL on the last non-empty line of a session's result (a string): the
# line, or its last word, without the markdown around a link (<>, backticks, emphasis) or a full
# stop after it; {url} or {error}.
def published_url:
  (gsub("\r\n"; "\n") | sub("[ \t\n]+$"; "") | split("\n") | last // "" | sub("^[ \t\n\r\f\u000b]+"; "") | sub("[ \t\n\r\f\u000b]+$"; "")) as $last
  | if $last == "" then {error: "its result is empty; its last line must be the URL of the issue it published"}
    else ([$last | splits("[ \t\n\r\f\u000b]+")] | last | sub("^[<>`*_.]+"; "") | sub("[<>`*_.]+$"; "") | published_ref) as $ref
      | if $ref == null or $ref.url == "" then
          {error: "the last line of its result, \($last | tojson), is not an issue URL; it must be the URL of the issue the step published"}
        else {url: $ref.url} end
    end;
# published_tickets are the issues a spec's body (a string) lists as open task items, in order and
# each once: "- [ ] #N" gives "#N", an item whose first word is an issue URL gives the URL.
# Checked items ("- [x]"), items naming no issue, and lists inside fenced code are not tickets.
def published_tickets:
  reduce (split("\n")[] | sub("\r+$"; "")) as $line ({fence: "", out: []};
    ($line | sub("^[ \t\n\r\f\u000b]+"; "") | sub("[ \t\n\r\f\u000b]+$"; "")) as $t
    | if ($t | startswith("```")) or ($t | startswith("~~~")) then
        if .fence == "" then .fence = $t[:3] elif (.fence as $f | $t | startswith($f)) then .fence = "" else . end
      elif .fence != "" then .
      else
        ([$line | capture("^[ \t\n\r\f]*[-*+][ \t\n\r\f]+\\[ \\][ \t\n\r\f]+(?<w>[^ \t\n\r\f]+)").w | sub("[.,;:)]+$"; "")]) as $w
        | if $w == [] then .
          else ($w[0] | published_ref) as $ref
            | if $ref == null or ($ref.url == "" and ($w[0] | startswith("#") | not)) or any(.out[]; . == $w[0]) then .
              else .out += $w end
          end
      end)
  | .out;
# published_check is what is wrong with an issue a child run may start on (as issue.jq's reader
# keeps it, with .trusted): "" when it is open and was opened by a trusted account, or, in a
# compiled workflow, by the run itself (.run_opened, published_by_run).
def published_check:
  if (.state | ascii_downcase) != "open" then "it is \(.state | ascii_downcase), not open"
  elif (.run_opened // false | not) and (issue_trusts(.author.login // "") | not) then
    "it was opened by \(if (.author.login // "") == "" then "a deleted account" else .author.login | tojson end), who is not trusted (add the account to the config's trusted list)"
  else "" end;
# published_since($began) is what is wrong with a published issue: published_check, or its
# creation before $began (seconds since the epoch), the start of the step that published it, which
# counts from the start of its second.
def published_since($began):
  published_check as $e
  | if $e != "" then $e
    else (.createdAt | sub("\\.[0-9]+"; "") | fromdateiso8601) as $created
      | if $created < ($began | floor) then
          "it was created at \($created | todate), before the step that published it began (\($began | floor | todate))"
        else "" end
    end;
# published_by_run($numbers) marks the issue .run_opened when its number is one of $numbers, those
# a compiled workflow's publish jobs opened with the workflow's token for the run's sessions: its
# author is GitHub's bot, which no config trusts, but the run trusts what its own sessions wrote.
def published_by_run($numbers): .run_opened = (.number as $n | any($numbers[]; . == $n));

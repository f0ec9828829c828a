# The helpers every harness reads its output with. A program reads $out and
# $err (the session CLI standard output and error), $last (the text of the
# file it wrote its final message to, empty when none) and $rc (its exit
# code, -1 when a signal ended it).

# trimend drops trailing blank space from a final message; trim, blank space
# at both ends; blank is true when there is nothing but blank space.
def trimend: sub("[ \t\r\n]+\\z"; "");
def trim: sub("^\\s+"; "") | sub("\\s+\\z"; "");
def blank: test("\\S") | not;
# clip keeps the first 400 characters of an agent cause, marking the cut.
def clip: if length <= 400 then . else .[:399] + "…" end;
# oneline folds a cause onto one line, without the terminal colour and
# style sequences some CLIs print even into a pipe, and clips it.
def oneline: gsub("\u001b\\[[0-9;?]*[A-Za-z]"; "") | [splits("\\s+")] | map(select(length > 0)) | join(" ") | clip;
# firstline and lastline are the first and the last line that is not blank,
# trimmed; empty when there is none.
def firstline: [split("\n")[] | select(test("\\S"))] | first // "" | trim;
def lastline: [split("\n")[] | select(test("\\S"))] | last // "" | trim;
# exitcause words a failed session with no better cause: "exit status 1:
# LAST STDERR LINE", or the last line of stdout when stderr is empty.
def exitcause:
  (if $rc < 0 then "killed by a signal" else "exit status \($rc)" end) as $code
  | ($err | lastline) as $l
  | (if $l != "" then $l else ($out | lastline) end) as $line
  | if $line == "" then $code else "\($code): \($line | oneline)" end;
# unreadable is the cause of a session whose output is not in the format of
# its CLI: a usage error, a crash, or a CLI whose format changed.
def unreadable($cli; $want):
  if $rc != 0 then exitcause
  else ($out | firstline) as $first
    | if $first == "" then "\($cli) printed nothing, not \($want)"
      else "\($cli) printed \($first | clip | tojson), not \($want)" end
  end;
# object is the first JSON object that starts a line (after blank space),
# whole on that line or up to the first later line that closes it at the
# same indent; null when there is none. A CLI may print a warning before
# its JSON, and may print it indented.
def object:
  split("\n") as $lines
  | first(range(0; $lines | length) as $i
      | $lines[$i] | capture("^(?<indent>[ \t\r]*)\\{") | .indent as $indent
      | ($lines[$i] | try fromjson catch null),
        first(range($i + 1; $lines | length) as $j
          | select($lines[$j] | startswith($indent + "}"))
          | $lines[$i:$j + 1] | join("\n") | try fromjson catch null)
      | objects) // null;
# events are the JSON objects of a CLI event stream, one a line, each with
# a type.
def events:
  [split("\n")[] | select(startswith("{") or test("^\\s+\\{")) | try fromjson catch empty
   | select(type == "object" and (.type | type) == "string" and .type != "")];

# verdict.jq: how a judge's final message is read, the one definition of
# it: cairn run evaluates it in-process (gojq) and a compiled script with
# jq (harness.VerdictJQ). It reads jq 1.6 as well as gojq.
#
# verdict is the verdict of the message, its input: the whole message as a
# JSON object, else the last ```json (or bare ```) fence holding one, else
# the last {…} object in the text with a "verdict" key. It yields
# {pass, reasoning} (reasoning trimmed; JSON text when it is not a string),
# or null when the message holds no verdict of "pass" or "fail" (in any
# case).

# verdict_trim is the string without the blank space around it.
def verdict_trim: sub("^[ \t\n\r\f\u000b\u0085\u00a0]+"; "") | sub("[ \t\n\r\f\u000b\u0085\u00a0]+$"; "");

# verdict_json is a value as Go's encoding/json writes it: keys sorted, and
# <, > and & escaped.
def verdict_json:
  def sorted: if type == "object" then to_entries | sort_by(.key) | map(.value |= sorted) | from_entries
    elif type == "array" then map(sorted) else . end;
  sorted | tojson | gsub("<"; "\\u003c") | gsub(">"; "\\u003e") | gsub("&"; "\\u0026");

# verdict_object reads a parsed JSON value as a verdict, or yields nothing.
def verdict_object:
  select(type == "object")
  | [to_entries[] | select(.key | ascii_downcase == "verdict")] as $v
  | select(($v | length) > 0 and ($v | last | .value | type) == "string")
  | ($v | last | .value | verdict_trim | ascii_downcase) as $word
  | select($word == "pass" or $word == "fail")
  | ([to_entries[] | select(.key | ascii_downcase == "reasoning")] | last | .value) as $r
  | {pass: ($word == "pass"),
     reasoning: (if $r == null then "" elif ($r | type) == "string" then $r | verdict_trim else $r | verdict_json end)};

# verdict_text reads text that is a whole JSON object as a verdict.
def verdict_text: select(startswith("{")) | (try fromjson catch null) | verdict_object;

# verdict_fences are the contents of the Markdown code fences of the input
# whose info string is empty or "json", in order.
def verdict_fences:
  reduce split("\n")[] as $line ({open: "", keep: false, body: [], out: []};
    ($line | verdict_trim) as $t
    | .open as $o
    | if $o == "" then
        if ($t | startswith("```")) then
          ($t | capture("^(?<m>`+)").m) as $m
          | ($t[($m | length):] | verdict_trim | ascii_downcase) as $info
          | .open = $m | .keep = ($info == "" or $info == "json") | .body = []
        else . end
      elif ($t | startswith($o)) and ($t | test("^`+$")) then
        (if .keep then .out += [.body | join("\n") | verdict_trim] else . end) | .open = ""
      else .body += [$line] end)
  | .out;

# verdict_close is, in $c (a text's code points), where the JSON value that
# starts with the { at $i would end: the } that brings its depth back to
# none, strings skipped; null when none does.
def verdict_close($c; $i):
  [first(foreach range($i; $c | length) as $k ({d: 0, s: false, e: false};
      $c[$k] as $x
      | if .s then (if .e then .e = false elif $x == 92 then .e = true elif $x == 34 then .s = false else . end)
        elif $x == 34 then .s = true
        elif $x == 123 or $x == 91 then .d += 1
        elif $x == 125 or $x == 93 then .d -= 1
        else . end;
      if .d == 0 then $k else empty end))] | .[0];

# verdict_objects are the JSON objects of the text, from its last { back.
def verdict_objects:
  explode as $c
  | range(($c | length) - 1; -1; -1) as $i
  | select($c[$i] == 123)
  | verdict_close($c; $i) as $j
  | select($j != null)
  | $c[$i:$j + 1] | implode | try fromjson catch empty;

def verdict:
  . as $msg
  | [($msg | verdict_trim | verdict_text),
     ([$msg | verdict_fences[]] | reverse[] | verdict_text),
     ($msg | verdict_objects | verdict_object)]
  | .[0];

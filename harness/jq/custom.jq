# A custom harness of the config, [harnesses.NAME]: its output is plain text.

# custom is the final message, stdout; a non-zero exit fails, with the last
# line of stderr as the cause.
def custom:
  ($out | trimend) as $msg
  | if $rc == 0 then {m: $msg, c: "", f: false}
    elif ($err | lastline) != "" then {m: $msg, c: ($err | lastline | oneline), f: true}
    else {m: $msg, c: exitcause, f: true} end;

# end_custom($paths) is how the session ended: it has no id, and worked
# when it printed something. Its usage is what the paths of
# [harnesses.NAME.usage], $paths (each figure with the path to it, as
# getpath takes it), find in the JSON document its stdout holds (all of it,
# else its last line that is an object): a count where a path finds a whole
# number from 0, a cost where it finds a number from 0; nothing where it
# finds nothing, or anything else.
def end_custom($paths):
  ((try ($out | fromjson) catch null)
   // ([$out | split("\n")[] | select(test("^\\s*\\{")) | try fromjson catch empty | select(type == "object")] | last)) as $d
  | {worked: ($out | blank | not),
     usage: (reduce ($paths | to_entries[]) as $p ({}; .[$p.key] = (try ($d | getpath($p.value)) catch null)) | usage_clean)};

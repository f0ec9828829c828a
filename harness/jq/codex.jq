# Codex CLI, codex exec --json: JSON events, one a line; the final message
# in the file of its -o, $last.

# codex is the final message, the text of the -o file (else the last agent
# message); a turn.failed event or a non-zero exit fails, with the message
# of the turn.failed or the last error event as the cause.
def codex:
  ($out | events) as $ev
  | ([$ev[] | select(.type == "error") | .message // ""] | last // "") as $lasterror
  | ([$ev[] | select(.type == "turn.failed")] | length > 0) as $failedturn
  | ([$ev[] | select(.type == "turn.failed" and .error != null) | .error.message // ""] | last // "") as $turnfailed
  | ([$ev[] | select(.type == "item.completed" and .item.type? == "agent_message") | .item.text // ""] | last // "") as $agent
  | (if ($last | blank) then $agent else $last end | trimend) as $msg
  | if ($ev | length) == 0 and ($out | blank | not) then {m: $msg, c: unreadable("codex"; "its JSONL events"), f: true}
    elif ($failedturn | not) and $rc == 0 then {m: $msg, c: "", f: false}
    elif ($turnfailed | blank | not) then {m: $msg, c: ($turnfailed | oneline), f: true}
    elif ($lasterror | blank | not) then {m: $msg, c: ($lasterror | oneline), f: true}
    elif $failedturn and $rc == 0 then {m: $msg, c: "codex: the turn failed", f: true}
    else {m: $msg, c: exitcause, f: true} end;

# codex_total is a usage of codex (the usage of turn.completed) as a total:
# codex counts the cached input in input_tokens, so the input is that less
# cached_input_tokens, which were read from the cache. It reports no cost.
def codex_total:
  . as $u
  | {input_tokens: (if ($u.input_tokens | type) == "number" and ($u.cached_input_tokens | type) == "number"
                    then [$u.input_tokens - $u.cached_input_tokens, 0] | max else $u.input_tokens end),
     output_tokens: $u.output_tokens, cache_read_tokens: $u.cached_input_tokens,
     cache_write_tokens: $u.cache_write_input_tokens}
  | usage_clean;

# end_codex is how the session ended: the thread_id of thread.started; it
# worked when an item or a turn completed. Its usage: the turn.completed
# events, the turns of this run; its total: the usage of the last of them,
# which counts from the first start of the thread (a resumed thread counts
# the earlier runs again). open is true when a turn started and never
# completed (cairn stopped it at its turn cap, or a signal ended codex):
# codex printed no usage for it (see end_codex_file).
def end_codex:
  ($out | events) as $ev
  | [$ev[] | select(.type == "turn.completed")] as $t
  | {id: ([$ev[] | select(.type == "thread.started") | .thread_id] | last // ""),
     worked: any($ev[]; .type == "item.completed" or .type == "turn.completed"),
     open: (reduce $ev[] as $e (false;
       if $e.type == "turn.started" then true
       elif $e.type == "turn.failed" or $e.type == "turn.completed" then false
       else . end)),
     usage: (if ($t | length) > 0 then {turns: ($t | length)} else {} end),
     total: ([$t[] | .usage | objects] | last // {} | codex_total)};

# end_codex_file($file) completes how a session ended (end_codex, its
# input) that left a turn open, from $file, the text of its session file
# ($CODEX_HOME/sessions/.../rollout-...-THREAD.jsonl), where codex writes
# the token_count event of each model answer it read, with the total of
# the thread so far: that turn counts, with the last total.
def end_codex_file($file):
  if .open != true then .
  else ([$file | split("\n")[] | try fromjson catch empty | objects
         | select(.type == "event_msg") | .payload | objects | select(.type == "token_count")
         | .info | objects | .total_token_usage | objects] | last) as $u
    | if $u == null then .
      else .usage.turns = ((.usage.turns // 0) + 1) | .total = ($u | codex_total) end
  end;

# codex_turn is true for an event, an object, that starts a turn: codex exec
# has no event per model request, so a turn is a tool call (a command, a
# patch, an MCP call, a web search), counted as its item starts. A session
# that makes max_turns tool calls and answers passes.
def codex_turn:
  .type == "item.started" and (.item | type) == "object"
  and (.item.type as $t | $t != "agent_message" and $t != "reasoning" and $t != "error");

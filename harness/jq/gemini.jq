# Gemini CLI, gemini --output-format stream-json: JSON events, one a line.
# init has the id of the session; message the prompt of the user and the
# text of the model, in deltas; then tool_use, tool_result, error (a
# warning, or an error that ends the stream) and last result, with the
# status of the session, its error and its stats. An error before the
# stream starts (no credentials) is a JSON object on stdout or stderr.

# gemini_read reads the stream: {events, id, msg (the text of the model
# after its last tool call), worked (the model answered: text or a tool
# call), turns (answers of the model: text or tool calls after a tool
# result), result (the result event), failure (the message of the last
# error event), errout (the error printed before any stream)}.
def gemini_read:
  ($out | events) as $ev
  | (reduce $ev[] as $e ({id: "", msg: "", worked: false, turns: 0, answering: false, result: null, failure: ""};
      if $e.type == "init" then .id = ($e.session_id // "")
      elif ($e.type == "message" and $e.role == "assistant") or $e.type == "tool_use" then
        .worked = true
        | (if .answering then . else .answering = true | .turns += 1 end)
        | (if $e.type == "tool_use" then .msg = "" else .msg += ($e.content // "") end)
      elif $e.type == "tool_result" then .answering = false
      elif $e.type == "error" and $e.severity == "error" then .failure = ($e.message // "")
      elif $e.type == "result" then .result = $e
      else . end)) as $g
  | $g + {events: ($ev | length),
          errout: (if ($ev | length) > 0 then null
                   else [($out | object), ($err | object)] | map(select(. != null and .error != null) | .error) | first end)};

# gemini_error is the error a failed session reports (of gemini_read, its
# input), an object: when its stream ended in status "error", the error of
# its result, else the message of the last error event; the error printed
# before any stream; null when none.
def gemini_error:
  (if .result != null and .result.status == "error"
   then (.result.error // {type: "error", message: .failure})
   else .errout end)
  | if . == null or type == "object" then . else {message: tostring} end;

# gemini is the final message, the text of the model after its last tool
# call; a result with status "error", an error object before the stream,
# or a non-zero exit fails, with the message of the error as the cause.
# Gemini CLI ends a session at its maxSessionTurns (exit 53) with an error
# of type FatalTurnLimitedError, whose message tells the user to change a
# setting cairn makes.
def gemini:
  gemini_read as $g
  | ($g.msg | trimend) as $msg
  | ($g | gemini_error) as $error
  | if $error != null then
      if $error.type? == "FatalTurnLimitedError" then {m: $msg, c: "reached its max turns (FatalTurnLimitedError)", f: true}
      elif (($error.message // "") | blank | not) then {m: $msg, c: ($error.message | oneline), f: true}
      elif ($error.type // "") != "" and $error.code != null then {m: $msg, c: "gemini: \($error.type) (code \($error.code | tojson))", f: true}
      elif ($error.type // "") != "" then {m: $msg, c: "gemini: \($error.type)", f: true}
      else {m: $msg, c: exitcause, f: true} end
    elif $rc != 0 then {m: $msg, c: exitcause, f: true}
    elif $g.events == 0 or $g.result == null then {m: "", c: unreadable("gemini"; "its JSON events"), f: true}
    else {m: $msg, c: "", f: false} end;

# end_gemini is how the session ended: the session_id of init; it worked
# when the model answered; its error says whether it stopped at its turn
# cap. Its usage, from the result event, which Gemini CLI prints however the
# session ends (at its turn cap too): the answers of the model as turns,
# counted in the stream; stats.input (the prompt less what was read from
# the cache, else input_tokens less cached) as the input, total_tokens less
# input_tokens (the answers and the thinking of the model, else
# output_tokens) as the output, cached as read from the cache. Gemini CLI
# reports no cost, and no cache writes.
def end_gemini:
  gemini_read as $g
  | ($g.result.stats? // null) as $s
  | {id: $g.id,
     max_turns: (($g | gemini_error | .type?) == "FatalTurnLimitedError"),
     worked: $g.worked,
     usage: (if ($s | type) != "object" then {}
       else {turns: (if $g.turns > 0 then $g.turns else null end),
             input_tokens: (if $s.input != null then $s.input
                            elif ($s.input_tokens | type) == "number" and ($s.cached | type) == "number" then [$s.input_tokens - $s.cached, 0] | max
                            else $s.input_tokens end),
             output_tokens: (if ($s.total_tokens | type) == "number" and ($s.input_tokens | type) == "number"
                             then [$s.total_tokens - $s.input_tokens, 0] | max else $s.output_tokens end),
             cache_read_tokens: $s.cached}
         | usage_clean end)};

# opencode, opencode run --format json: JSON events, one a line.

# opencode is the final message, the text of the last text event; an error
# event or a non-zero exit fails, with the message of the error as the
# cause.
def opencode:
  ($out | events) as $ev
  | ([$ev[] | select(.type == "text" and .part != null) | .part.text // ""] | last // "" | trimend) as $msg
  | ([$ev[] | select(.type == "error")] | length > 0) as $errored
  | ([$ev[] | select(.type == "error" and .error != null) | .error
      | if ((.data.message? // "") | blank | not) then .data.message
        elif ((.message // "") | blank | not) then .message
        else .name // "" end] | last // "") as $cause
  | if ($ev | length) == 0 and ($out | blank | not) then {m: $msg, c: unreadable("opencode"; "its JSON events"), f: true}
    elif $errored and ($cause | blank | not) then {m: $msg, c: ($cause | oneline), f: true}
    elif $errored or $rc != 0 then {m: $msg, c: exitcause, f: true}
    else {m: $msg, c: "", f: false} end;

# end_opencode is how the session ended: the sessionID of its events; it
# worked when a text, a tool or a step finished. Its usage, summed over the
# step_finish events, one a model request: the events as turns;
# part.tokens.input (without what was read from the cache), output and
# reasoning as the output, cache.read and cache.write; and part.cost, which
# opencode computes from the prices of the model. A request that spent
# tokens at a cost of 0 (or none) is one whose model opencode has no prices
# for, a free one among them: it reports 0 for both, so the cost of the
# session is unknown, and absent (unpriced).
def end_opencode:
  ($out | events) as $ev
  | [$ev[] | select(.type == "step_finish") | ((.part | objects) // {}) as $p | (($p.tokens | objects) // {}) as $t
      | {turns: 1, input_tokens: $t.input, output_tokens: usage_add($t.output; $t.reasoning),
         cache_read_tokens: $t.cache.read?, cache_write_tokens: $t.cache.write?, cost_usd: $p.cost}
      | usage_clean] as $requests
  | any($requests[]; ([.input_tokens, .output_tokens, .cache_read_tokens, .cache_write_tokens] | map(numbers) | add // 0) > 0
      and (.cost_usd // 0) == 0) as $unpriced
  | {id: ([$ev[] | .sessionID | strings | select(. != "")] | last // ""),
     worked: any($ev[]; .type == "text" or .type == "tool_use" or .type == "step_finish"),
     unpriced: $unpriced,
     usage: (usage_sum($requests[]) | if $unpriced then del(.cost_usd) else . end)};

# opencode_turn is true for an event, an object, that starts a turn: a
# step, one model request, as its step_start event begins it. The own cap
# of opencode (the steps of an agent) only asks the model for a text answer
# once reached.
def opencode_turn: .type == "step_start";

# Claude Code, claude -p --output-format json: one JSON object, the result.

# claude is the final message, .result; "is_error": true, an error subtype
# or a non-zero exit fails, with .result as the cause.
def claude:
  ($out | object) as $r
  | if $r == null or $r.type != "result" then {m: "", c: unreadable("claude"; "its JSON result"), f: true}
    else ($r.result // "") as $res | ($res | trimend) as $msg
      | (($r.subtype // "") | startswith("error")) as $es
      | if ($r.is_error != true) and ($es | not) and $rc == 0 then {m: $msg, c: "", f: false}
        elif ($res | blank | not) then {m: "", c: ($res | oneline), f: true}
        elif (($r.errors // []) | length) > 0 then {m: $msg, c: ($r.errors | join("; ") | oneline), f: true}
        elif $r.subtype == "error_max_turns" then {m: $msg, c: "reached its max turns (error_max_turns)", f: true}
        elif $es then {m: $msg, c: "claude ended with \($r.subtype)", f: true}
        else {m: $msg, c: exitcause, f: true} end
    end;

# end_claude is how the session ended: .session_id; the subtypes
# error_max_turns and error_max_budget_usd (stopped at --max-budget-usd);
# it worked unless it failed with a success subtype (an API or login error
# before any turn). Its usage: .num_turns, the turns of this run; its
# total: .total_cost_usd and the tokens of every model in .modelUsage,
# summed, both counted from the first start of the session (a resumed
# session counts the earlier runs again). .usage counts the tokens of this
# run, but claude stopped at its budget leaves it all zero: it is read only
# from a result without .modelUsage.
def end_claude:
  ($out | object) as $r
  | if $r == null or $r.type != "result" then {}
    else (($r.subtype // "") | startswith("error")) as $es
      | [($r.modelUsage // {})[]? | objects] as $m
      | def sum(f): [$m[] | f | numbers] | if length > 0 then add else null end;
      {id: $r.session_id,
       max_turns: ($r.subtype == "error_max_turns"),
       budget: ($r.subtype == "error_max_budget_usd"),
       worked: (($r.is_error != true and $rc == 0) or $es),
       usage: ({turns: $r.num_turns}
         + (if ($m | length) > 0 then {}
            else (($r.usage | objects) // {}) | {input_tokens, output_tokens,
              cache_read_tokens: .cache_read_input_tokens, cache_write_tokens: .cache_creation_input_tokens} end)
         | usage_clean),
       total: ({cost_usd: $r.total_cost_usd}
         + (if ($m | length) > 0
            then {input_tokens: sum(.inputTokens), output_tokens: sum(.outputTokens),
                  cache_read_tokens: sum(.cacheReadInputTokens), cache_write_tokens: sum(.cacheCreationInputTokens)}
            else {} end)
         | usage_clean)}
    end;

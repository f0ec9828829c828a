# The helpers of what sessions used. A usage is an object of the figures a
# CLI reported, in the order of usage_keys, as run.json writes them: counts
# (turns and tokens) and a cost in US dollars.
def usage_keys: ["turns", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cost_usd"];
# usage_clean keeps the figures of a usage that are figures: a count that is
# a whole number from 0 (up to 2^62), a cost that is a number from 0.
def usage_clean: . as $u | reduce usage_keys[] as $k ({};
  $u[$k] as $v
  | if ($v | type) != "number" or $v < 0 then .
    elif $k == "cost_usd" then .[$k] = $v
    elif $v == ($v | floor) and $v <= 4611686018427387903 then .[$k] = $v
    else . end);
# usage_estimated is true for a usage whose cost cairn estimated
# (usage_estimate).
def usage_estimated: .cost_estimated == true and .cost_usd != null;
# usage_plus($b) adds the figures of $b, a cost kept to a trillionth of a
# dollar; a figure either holds is kept.
def usage_plus($b): . as $a | reduce usage_keys[] as $k ({};
  if $a[$k] == null and $b[$k] == null then .
  elif $a[$k] == null then .[$k] = $b[$k]
  elif $b[$k] == null then .[$k] = $a[$k]
  elif $k == "cost_usd" then .[$k] = ((($a[$k] + $b[$k]) * 1e12 | round) / 1e12)
  else .[$k] = $a[$k] + $b[$k] end)
  | if ($a | usage_estimated) or ($b | usage_estimated) then .cost_estimated = true else . end;
# usage_sum(f) sums the usages f yields; usage_add($a; $b) adds two counts
# a CLI may leave out, null when it left out both.
def usage_sum(f): reduce f as $u ({}; usage_plus($u));
def usage_add($a; $b): if $a == null then $b elif $b == null then $a else $a + $b end;
# session_used is what a session used, from how it ended (each harness
# end_NAME): its usage, plus its total, which a CLI counts from the first
# start of a session it resumes.
def session_used: . as $e | ($e.usage // {}) | usage_plus($e.total // {});
# usage_minus($b) takes the figures of $b from the usage's, none below 0,
# a cost kept to a trillionth of a dollar; a figure the usage lacks stays
# out (ir.Usage.Minus).
def usage_minus($b): . as $a | reduce usage_keys[] as $k ({};
  if $a[$k] == null then .
  elif $b[$k] == null then .[$k] = $a[$k]
  elif $k == "cost_usd" then .[$k] = ([(($a[$k] - $b[$k]) * 1e12 | round) / 1e12, 0] | max)
  else .[$k] = ([$a[$k] - $b[$k], 0] | max) end)
  | if ($a | usage_estimated) or $a.cost_usd != null and ($b | usage_estimated) then .cost_estimated = true else . end;
# session_used_after($prior) is what a session used when it resumed the
# session whose end was $prior ({id, total}; null for none): its total less
# the total $prior had already counted (harness.SessionEnd.Used).
def session_used_after($prior): . as $e
  | ($e.usage // {})
  | usage_plus(($e.total // {}) | if $prior != null and ($prior.id // "") != "" and $prior.id == $e.id then usage_minus($prior.total // {}) else . end);
# usage_estimate($p) gives a usage that counts tokens and holds no cost the
# cost of its tokens at $p, a model's prices in US dollars a million tokens
# ({input, output, cache_read, cache_write}), kept to a trillionth of a
# dollar and marked estimated (ir.Price.Cost).
def usage_estimate($p):
  if .cost_usd != null or ([.input_tokens, .output_tokens, .cache_read_tokens, .cache_write_tokens] | map(numbers) | length) == 0 then .
  else .cost_usd = (((.input_tokens // 0) * $p.input / 1e6 + (.output_tokens // 0) * $p.output / 1e6
      + (.cache_read_tokens // 0) * $p.cache_read / 1e6 + (.cache_write_tokens // 0) * $p.cache_write / 1e6) * 1e12 | round / 1e12)
    | .cost_estimated = true end;
# end_priced($p) is how a session ended (each harness's end_NAME) with its
# usage and total given a cost at $p where its CLI reported none
# (harness.SessionEnd.Estimated).
def end_priced($p): .usage = ((.usage // {}) | usage_estimate($p)) | .total = ((.total // {}) | usage_estimate($p));

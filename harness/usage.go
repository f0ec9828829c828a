package harness

import "encoding/json"

// UsageJQ is the jq expression that reads what a session used in a
// compiled script, as SessionEnd's Used does for a session that resumed
// none: one of UsageJQDefs's functions ("usage_claude"), or, for a custom
// harness, the function of its usage paths with them
// (`usage_custom({"cost_usd":["total_cost_usd"]})`). It reads $out, the
// session's stdout, and yields an object of the figures the CLI reported,
// in ir.UsageKeys's order, as run.json writes them.
func (h *Harness) UsageJQ() string {
	expr, _ := h.adapter.UsageJQ()
	return expr
}

// UsageJQHelpers is the jq that sums what sessions used in a compiled
// script, usage_plus($b) (usageJQHelpers), which reads nothing else.
func UsageJQHelpers() string { return usageJQHelpers }

// usageJQHelpers are the jq every adapter's UsageJQ uses: usage_clean keeps
// a usage's figures that are numbers, in ir.UsageKeys's order;
// usage_plus($b) adds $b's, a cost kept to a trillionth of a dollar, as
// ir.Usage.Plus does; usage_sum(f) sums the usages f yields.
const usageJQHelpers = `def usage_keys: ["turns", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cost_usd"];
def usage_clean: . as $u | reduce usage_keys[] as $k ({}; if ($u[$k] | type) == "number" then .[$k] = $u[$k] else . end);
def usage_plus($b): . as $a | reduce usage_keys[] as $k ({};
  if $a[$k] == null and $b[$k] == null then .
  elif $a[$k] == null then .[$k] = $b[$k]
  elif $b[$k] == null then .[$k] = $a[$k]
  elif $k == "cost_usd" then .[$k] = ((($a[$k] + $b[$k]) * 1e12 | round) / 1e12)
  else .[$k] = $a[$k] + $b[$k] end);
def usage_sum(f): reduce f as $u ({}; usage_plus($u));
def usage_add($a; $b): if $a == null then $b elif $b == null then $a else $a + $b end;
`

// customUsageJQ is a custom harness's UsageJQ: the figures its paths
// find in the JSON its stdout holds (all of it, else its last line that is
// an object); a count where a path finds a whole number from 0, a cost
// where it finds a number from 0.
const customUsageJQ = `def usage_custom($paths):
  ((try ($out | fromjson) catch null)
   // ([$out | split("\n")[] | select(test("^\\s*\\{")) | try fromjson catch empty | select(type == "object")] | last)) as $d
  | reduce ($paths | to_entries[]) as $p ({};
      (try ($d | getpath($p.value)) catch null) as $v
      | if ($v | type) != "number" or $v < 0 then .
        elif $p.key == "cost_usd" then .[$p.key] = $v
        elif $v == ($v | floor) and $v <= 4611686018427387903 then .[$p.key] = $v
        else . end)
  | usage_clean;`

// UsageJQ is SessionEnd's usage in jq: the function of its paths, which
// customUsageJQ defines.
func (h *custom) UsageJQ() (string, string) {
	paths := map[string][]any{}
	for key, p := range h.usage {
		paths[key] = p.Steps()
	}
	// Marshal sorts the keys: one harness, one expression.
	b, _ := json.Marshal(paths)
	return "usage_custom(" + string(b) + ")", customUsageJQ
}

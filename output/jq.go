package output

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// JQ is the jq program the bash target checks an output against schema
// with, canonical JSON that Check accepted: given the output, it prints the
// first violation as Validate words it ("output at /severity: value must
// be one of \"low\", \"high\""), nothing when there is none. It checks in
// Validate's order, so that cairn run and a compiled script fail a step
// with the same cause.
func JQ(schema string) (string, error) {
	s, err := decode([]byte(schema))
	if err != nil {
		return "", fmt.Errorf("output schema: %w", err)
	}
	var b strings.Builder
	b.WriteString(`def _at($p; $m): if $p == "" then "output: " + $m else "output at " + $p + ": " + $m end; `)
	b.WriteString(`def _esc: gsub("~"; "~0") | gsub("/"; "~1"); `)
	b.WriteString(`def _a: if . == "null" then . elif . == "object" or . == "array" or . == "integer" then "an " + . else "a " + . end; `)
	b.WriteString("first(")
	jqChecks(&b, s, `""`)
	b.WriteString(`) // empty`)
	return b.String(), nil
}

// jqChecks writes the jq expression that yields, on a value at the
// pointer the jq string expression ptr gives, the violations of schema,
// in Validate's order.
func jqChecks(b *strings.Builder, schema any, ptr string) {
	s, ok := schema.(map[string]any)
	if !ok {
		b.WriteString("empty")
		return
	}
	var parts []string
	fail := func(msg string) string { return fmt.Sprintf("_at(%s; %s)", ptr, msg) }
	if t, ok := s["type"]; ok {
		types := typeList(t)
		conds := make([]string, len(types))
		for i, t := range types {
			conds[i] = jqType(t)
		}
		if len(conds) == 0 {
			conds = []string{"false"}
		}
		parts = append(parts, fmt.Sprintf(`(if %s then empty else %s end)`, strings.Join(conds, " or "),
			fail(jqText("value must be "+typeWords(types)+", not ")+" + (type | _a)")))
	}
	if c, ok := s["const"]; ok {
		parts = append(parts, fmt.Sprintf(`(if . == %s then empty else %s end)`, jsonText(c), fail(jqText("value must be "+jsonText(c)))))
	}
	if e, ok := s["enum"].([]any); ok {
		texts := make([]string, len(e))
		for i, x := range e {
			texts[i] = jsonText(x)
		}
		parts = append(parts, fmt.Sprintf(`(. as $v | if [%s] | any(. == $v) then empty else %s end)`, strings.Join(texts, ", "), fail(jqText("value must be "+oneOf(e)))))
	}
	var str []string
	if m, ok := s["minLength"].(json.Number); ok {
		str = append(str, fmt.Sprintf(`(if length < %s then %s else empty end)`, m, fail(jqText(fmt.Sprintf("value must be at least %s characters long", m)))))
	}
	if m, ok := s["maxLength"].(json.Number); ok {
		str = append(str, fmt.Sprintf(`(if length > %s then %s else empty end)`, m, fail(jqText(fmt.Sprintf("value must be at most %s characters long", m)))))
	}
	if len(str) > 0 {
		parts = append(parts, fmt.Sprintf(`(if type == "string" then %s else empty end)`, strings.Join(str, ", ")))
	}
	var num []string
	if m, ok := s["minimum"].(json.Number); ok {
		num = append(num, fmt.Sprintf(`(if . < %s then %s else empty end)`, m, fail(jqText(fmt.Sprintf("value must be at least %s", m)))))
	}
	if m, ok := s["maximum"].(json.Number); ok {
		num = append(num, fmt.Sprintf(`(if . > %s then %s else empty end)`, m, fail(jqText(fmt.Sprintf("value must be at most %s", m)))))
	}
	if len(num) > 0 {
		parts = append(parts, fmt.Sprintf(`(if type == "number" then %s else empty end)`, strings.Join(num, ", ")))
	}
	var arr []string
	if m, ok := s["minItems"].(json.Number); ok {
		arr = append(arr, fmt.Sprintf(`(if length < %s then %s else empty end)`, m, fail(jqText(fmt.Sprintf("value must have at least %s items", m)))))
	}
	if m, ok := s["maxItems"].(json.Number); ok {
		arr = append(arr, fmt.Sprintf(`(if length > %s then %s else empty end)`, m, fail(jqText(fmt.Sprintf("value must have at most %s items", m)))))
	}
	if items, ok := s["items"]; ok {
		var sub strings.Builder
		jqChecks(&sub, items, fmt.Sprintf(`(%s + "/" + ($i | tostring))`, ptr))
		arr = append(arr, fmt.Sprintf(`(range(length) as $i | .[$i] | %s)`, sub.String()))
	}
	if len(arr) > 0 {
		parts = append(parts, fmt.Sprintf(`(if type == "array" then %s else empty end)`, strings.Join(arr, ", ")))
	}
	var obj []string
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			name, _ := r.(string)
			at := fmt.Sprintf(`(%s + %s)`, ptr, jqText("/"+escape(name)))
			obj = append(obj, fmt.Sprintf(`(if has(%s) then empty else _at(%s; %s) end)`, jqText(name), at, jqText("required value is missing")))
		}
	}
	props, _ := s["properties"].(map[string]any)
	if ap, ok := s["additionalProperties"].(bool); ok && !ap {
		names := make([]string, 0, len(props))
		for _, n := range sortedKeys(props) {
			names = append(names, jqText(n))
		}
		obj = append(obj, fmt.Sprintf(`((keys - [%s])[] as $k | _at(%s + "/" + ($k | _esc); %s))`, strings.Join(names, ", "), ptr, jqText("property is not allowed: the schema lists no such property")))
	}
	for _, name := range sortedKeys(props) {
		var sub strings.Builder
		jqChecks(&sub, props[name], fmt.Sprintf(`(%s + %s)`, ptr, jqText("/"+escape(name))))
		obj = append(obj, fmt.Sprintf(`(if has(%s) then .[%s] | %s else empty end)`, jqText(name), jqText(name), sub.String()))
	}
	if len(obj) > 0 {
		parts = append(parts, fmt.Sprintf(`(if type == "object" then %s else empty end)`, strings.Join(obj, ", ")))
	}
	if len(parts) == 0 {
		b.WriteString("empty")
		return
	}
	b.WriteString(strings.Join(parts, ", "))
}

// jqType is the jq condition that . is of the JSON Schema type t.
func jqType(t string) string {
	if t == "integer" {
		return `(type == "number" and . == floor)`
	}
	return fmt.Sprintf(`type == %s`, strconv.Quote(t))
}

// jqText is s as a jq string literal.
func jqText(s string) string {
	b, err := marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

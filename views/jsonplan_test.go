package views

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/bench/corpus"
	"github.com/cairn-dev/cairn/ir"
)

// encodedPlan is p's JSON as the report wrote it before the appenders:
// json.Encoder, HTML unescaped, on the plan withArrays makes.
func encodedPlan(p *ir.Plan) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(withArrays(p)); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// appendedPlan is p's JSON as appendPlan writes it.
func appendedPlan(p *ir.Plan) ([]byte, error) {
	return appendPlan(nil, p, func(b []byte) []byte { return b })
}

// samePlanJSON fails t unless the appenders write p as the encoder does,
// or both refuse it.
func samePlanJSON(t *testing.T, what string, p *ir.Plan) {
	t.Helper()
	want, werr := encodedPlan(p)
	got, gerr := appendedPlan(p)
	switch {
	case werr != nil || gerr != nil:
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%s: the encoder's error %v, the appenders' %v", what, werr, gerr)
		}
	case !bytes.Equal(got, want):
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Fatalf("%s: the appenders differ from the encoder at byte %d:\nappenders: %q\nencoder:   %q",
			what, i, got[max(0, i-40):min(len(got), i+40)], want[max(0, i-40):min(len(want), i+40)])
	}
}

// trickyStrings are strings whose JSON takes an escape, or looks like
// JSON, or is not UTF-8.
var trickyStrings = []string{
	"", "a", "main", `"`, `\`, `\"`, "\n\t\r\b\f", "\x00\x01\x1f", "\x7f", "<&>", "é", "日本語", "\U0001F600",
	"\u2028", "\u2029", "a\u2028b\u2029c", "\u2027\u202a", "\xff", "a\xc3", "\xc3(", "\xed\xa0\x80", "\xf4\x90\x80\x80",
	"\xef\xbf\xbd", "\xe2\x80", `"stages":null,"harnesses":[]}`, "echo \"$(ls | wc -l)\" >&2\n",
}

// specialFloats are the floats whose JSON changes form (%f and %e, the
// exponent's padding), and those JSON refuses.
var specialFloats = []float64{
	0, math.Copysign(0, -1), 1, -1, 0.5, 2.75, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 123456789.123, -3.2e-10,
	5e-324, math.MaxFloat64, math.SmallestNonzeroFloat64, 1e100, 0.1 + 0.2,
}

// planGen fills values of any type at random, following every exported
// field, so that a field added to a type of the plan is filled too.
type planGen struct {
	r       *rand.Rand
	strings []string
	floats  []float64
}

func (g *planGen) fill(v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.String:
		var s string
		switch g.r.IntN(4) {
		case 0:
			// Random bytes around the ones that take an escape.
			const some = "a\"\\\n\x00\x1f\x7f<\xc3\xa9\xe2\x80\xa8\xa9\xff\xf0\x9f"
			buf := make([]byte, g.r.IntN(8))
			for i := range buf {
				buf[i] = some[g.r.IntN(len(some))]
			}
			s = string(buf)
		case 1:
			s = ""
		default:
			s = g.strings[g.r.IntN(len(g.strings))]
		}
		v.SetString(s)
	case reflect.Bool:
		v.SetBool(g.r.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := []int64{0, 1, -1, 42, math.MaxInt32, math.MinInt64, g.r.Int64()}[g.r.IntN(7)]
		if !v.OverflowInt(n) {
			v.SetInt(n)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n := g.r.Uint64()
		if !v.OverflowUint(n) {
			v.SetUint(n)
		}
	case reflect.Float32, reflect.Float64:
		if g.r.IntN(3) == 0 {
			v.SetFloat(g.r.NormFloat64() * math.Pow(10, float64(g.r.IntN(60)-30)))
		} else {
			v.SetFloat(g.floats[g.r.IntN(len(g.floats))])
		}
	case reflect.Pointer:
		if depth > 6 || g.r.IntN(3) == 0 {
			return
		}
		p := reflect.New(v.Type().Elem())
		g.fill(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		switch n := g.r.IntN(5); {
		case n == 0 || depth > 6:
		case n == 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, g.r.IntN(2)))
		default:
			s := reflect.MakeSlice(v.Type(), n-1, n-1)
			for i := range n - 1 {
				g.fill(s.Index(i), depth+1)
			}
			v.Set(s)
		}
	case reflect.Map:
		if depth > 6 || g.r.IntN(2) == 0 {
			return
		}
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		g.fill(k, depth+1)
		g.fill(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				g.fill(v.Field(i), depth+1)
			}
		}
	}
}

// randomPlan is a plan of random values drawn from strs and floats.
func randomPlan(seed uint64, strs []string, floats []float64) *ir.Plan {
	g := &planGen{r: rand.New(rand.NewPCG(seed, seed>>32)), strings: strs, floats: floats}
	p := &ir.Plan{}
	g.fill(reflect.ValueOf(p).Elem(), 0)
	return p
}

// TestPlanJSONRandom holds the appenders to the encoder on random plans:
// nil and empty lists, missing and present optional values, strings that
// take every kind of escape or are not UTF-8, floats of either form.
func TestPlanJSONRandom(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	for seed := range uint64(n) {
		samePlanJSON(t, fmt.Sprintf("seed %d", seed), randomPlan(seed, trickyStrings, specialFloats))
	}
}

// TestPlanJSONRefuses holds the appenders to refuse what the encoder
// refuses: a budget JSON cannot hold.
func TestPlanJSONRefuses(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for _, p := range []*ir.Plan{
			{Limits: ir.PlanLimits{BudgetUSD: &ir.FloatSetting{Value: f}}},
			{Stages: [][]ir.PlanStep{{{Actions: []ir.PlanAction{{Kind: ir.Session, BudgetUSD: &ir.FloatSetting{Value: f}}}}}}},
			{Repair: &ir.PlanAction{BudgetUSD: &ir.FloatSetting{Value: f}}},
		} {
			if _, err := appendedPlan(p); err == nil {
				t.Errorf("budget %v: no error", f)
			}
			samePlanJSON(t, fmt.Sprint(f), p)
			r := &Report{Plans: []*ir.Plan{p}}
			if err := r.WriteJSON(&bytes.Buffer{}, false); err == nil || !strings.Contains(err.Error(), "unsupported value") {
				t.Errorf("budget %v: the report's error is %v", f, err)
			}
		}
	}
}

// FuzzPlanJSON holds the appenders to the encoder on random plans whose
// strings and floats the fuzzer chooses.
func FuzzPlanJSON(f *testing.F) {
	f.Add(uint64(1), "a", []byte("b"), 1.5)
	f.Add(uint64(2), "\u2028\x00", []byte("\xff\xc3"), 1e21)
	f.Add(uint64(3), `"\`, []byte("<&>\t"), 1e-7)
	f.Fuzz(func(t *testing.T, seed uint64, s string, b []byte, x float64) {
		strs := []string{s, string(b), s + string(b), "", "x"}
		floats := []float64{x, -x, 0, 1}
		samePlanJSON(t, "plan", randomPlan(seed, strs, floats))
	})
}

// TestPlanJSONKeys fails when a field is added to a type the plan's JSON
// reaches without the appenders writing it: it fills every field of a plan
// (every pointer set, every list of one item), and compares the keys
// reflection finds in the types with those in the appenders' JSON, then
// the bytes with the encoder's; and it compares the bytes of a plan of
// zero values.
func TestPlanJSONKeys(t *testing.T) {
	var full ir.Plan
	fillAll(t, reflect.ValueOf(&full).Elem())
	got, err := appendedPlan(&full)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(got, &doc); err != nil {
		t.Fatalf("the appenders wrote invalid JSON: %v\n%s", err, got)
	}
	want := map[string]bool{}
	typeKeys(t, reflect.TypeFor[ir.Plan](), "", want)
	have := map[string]bool{}
	docKeys(doc, "", have)
	for k := range want {
		if !have[k] {
			t.Errorf("the appenders do not write %s", k)
		}
	}
	for k := range have {
		if !want[k] {
			t.Errorf("the appenders write %s, which no json tag names", k)
		}
	}
	if len(want) < 80 {
		t.Errorf("only %d keys found in the plan's types", len(want))
	}
	samePlanJSON(t, "every field set", &full)
	samePlanJSON(t, "zero plan", &ir.Plan{})
	samePlanJSON(t, "zero step", &ir.Plan{Stages: [][]ir.PlanStep{{{}}, nil, {}}})
}

// fillAll sets every exported field under v to a value that is not zero.
func fillAll(t *testing.T, v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(2.5)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fillAll(t, p.Elem())
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fillAll(t, s.Index(0))
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fillAll(t, k)
		fillAll(t, e)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillAll(t, v.Field(i))
			}
		}
	default:
		t.Fatalf("a field of kind %s: fillAll cannot fill it", v.Kind())
	}
}

// typeKeys adds to keys the path of every key the JSON of a value of type
// typ can have, by its json tags: "limits.merge.value",
// "stages[][].actions[].kind".
func typeKeys(t *testing.T, typ reflect.Type, path string, keys map[string]bool) {
	switch typ.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		if typ.Kind() != reflect.Pointer {
			path += "[]"
		}
		typeKeys(t, typ.Elem(), path, keys)
	case reflect.Map:
		t.Errorf("%s: a map in the plan's JSON; the appenders write none", path)
	case reflect.Struct:
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			if f.Anonymous {
				t.Errorf("%s: embedded field %s; the appenders know none", path, f.Name)
			}
			if name == "" {
				name = f.Name
			}
			key := strings.TrimPrefix(path+"."+name, ".")
			keys[key] = true
			typeKeys(t, f.Type, key, keys)
		}
	}
}

// docKeys adds to keys the path of every key in a decoded JSON value.
func docKeys(v any, path string, keys map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range v {
				if !yield(k) {
					return
				}
			}
		}) {
			key := strings.TrimPrefix(path+"."+k, ".")
			keys[key] = true
			docKeys(v[k], key, keys)
		}
	case []any:
		for _, e := range v {
			docKeys(e, path+"[]", keys)
		}
	}
}

// TestAppendString holds appendString to the encoder on each string of
// trickyStrings, on every one- and two-byte string, and on every byte at
// every place of longer plain strings.
func TestAppendString(t *testing.T) {
	strs := slices.Clone(trickyStrings)
	for a := range 256 {
		strs = append(strs, string([]byte{byte(a)}))
		for c := range 256 {
			strs = append(strs, string([]byte{byte(a), byte(c)}))
		}
		for n := 8; n <= 25; n++ {
			for i := range n {
				plain := []byte(strings.Repeat("a~ <\x7f", 5)[:n])
				plain[i] = byte(a)
				strs = append(strs, string(plain))
			}
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, s := range strs {
		b.Reset()
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSuffix(b.String(), "\n")
		if got := string(appendString(nil, s)); got != want {
			t.Errorf("appendString(%q) = %s; the encoder writes %s", s, got, want)
		}
	}
}

// TestAppendFloat holds appendFloat to the encoder on floats of either
// form and on random ones.
func TestAppendFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	fs := slices.Clone(specialFloats)
	for range 10000 {
		fs = append(fs, math.Float64frombits(r.Uint64()))
	}
	for _, f := range fs {
		want, werr := json.Marshal(f)
		got, gerr := appendFloat(nil, f)
		if (werr == nil) != (gerr == nil) || werr == nil && !bytes.Equal(got, want) {
			t.Errorf("appendFloat(%v) = %s, %v; the encoder writes %s, %v", f, got, gerr, want, werr)
		}
	}
}

// BenchmarkAppendString quotes the text of bench/check.sh's corpora,
// scripts and their names, as the report's plans hold them.
func BenchmarkAppendString(b *testing.B) {
	for _, k := range corpus.Kinds {
		var lines []string
		for i := range 20 {
			lines = append(lines, strings.Split(string(corpus.Process(k, i, 50)), "\n")...)
		}
		b.Run(string(k), func(b *testing.B) {
			n := 0
			for _, l := range lines {
				n += len(l)
			}
			b.SetBytes(int64(n))
			buf := make([]byte, 0, 2*n)
			for b.Loop() {
				buf = buf[:0]
				for _, l := range lines {
					buf = appendString(buf, l)
				}
			}
		})
	}
}

// chunkWriter records the size of each write, and fails from the failAt'th
// on when failAt is set.
type chunkWriter struct {
	bytes.Buffer
	sizes  []int
	failAt int
}

func (w *chunkWriter) Write(p []byte) (int, error) {
	w.sizes = append(w.sizes, len(p))
	if w.failAt > 0 && len(w.sizes) >= w.failAt {
		return 0, fmt.Errorf("disk full")
	}
	return w.Buffer.Write(p)
}

// TestWriteJSONChunks holds a report of thousands of steps, written out in
// chunks, to the encoder's bytes of the whole, and a failed write to an
// error.
func TestWriteJSONChunks(t *testing.T) {
	r := &Report{Diagnostics: []ir.Diagnostic{{Severity: ir.Warning, Rule: "r", Message: "m"}}}
	for i := range 3 {
		p := randomPlan(uint64(i), trickyStrings, []float64{1.5})
		p.Limits.BudgetUSD, p.Repair = nil, nil
		var stage []ir.PlanStep
		for j := range 3000 {
			stage = append(stage, ir.PlanStep{Name: fmt.Sprint("s", j), Actions: []ir.PlanAction{{Kind: ir.Command, Command: "echo \"$x\"\n<ok>"}}})
		}
		p.Stages = [][]ir.PlanStep{stage, nil, stage[:1]}
		r.Plans = append(r.Plans, p)
	}
	var w chunkWriter
	if err := r.WriteJSON(&w, false); err != nil {
		t.Fatal(err)
	}
	want, err := EncodedJSON(r)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(w.Bytes(), want) {
		t.Errorf("the report written in %d chunks differs from the encoder's", len(w.sizes))
	}
	if len(w.sizes) < 5 || slices.Max(w.sizes) > 70<<10 {
		t.Errorf("written in chunks of %v bytes; want several of about 64 KiB", w.sizes)
	}
	// A plan that cannot be encoded, after the failed write: the writing
	// stopped there, and says why.
	bad := randomPlan(9, trickyStrings, []float64{math.NaN()})
	r.Plans = append(r.Plans, bad)
	failing := &chunkWriter{failAt: 2}
	if err := r.WriteJSON(failing, false); err == nil || err.Error() != "disk full" {
		t.Errorf("a failed write: error %v", err)
	}
	if len(failing.sizes) != 2 {
		t.Errorf("%d writes after a failed one", len(failing.sizes)-2)
	}
}

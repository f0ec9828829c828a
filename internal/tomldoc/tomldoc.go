// Package tomldoc is the positioned TOML reader the process front-end and
// the config share: a document as a tree of tables and values that know
// their ranges, and a reader of its entries into ir fields that refuses
// wrong types and unknown keys alike for both.
package tomldoc

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/ir"
	"github.com/pelletier/go-toml/v2/unstable"
)

// TOMLDoc is a TOML document as a tree of positioned tables and values: what
// the process front-end and the config reader both read.
type TOMLDoc struct {
	File string
	Src  []byte
	Root *TOMLTable
}

// TOMLKind is the type of a TOML value.
type TOMLKind int

// The kinds of TOML values. The four date and time kinds of TOML are one
// kind here: cairn reads none of them.
const (
	KindString TOMLKind = iota + 1
	KindInteger
	KindFloat
	KindBool
	KindDateTime
	KindArray
	KindTable
)

// String names k the way type refusals say it: "a string", "an integer".
func (k TOMLKind) String() string {
	switch k {
	case KindString:
		return "a string"
	case KindInteger:
		return "an integer"
	case KindFloat:
		return "a float"
	case KindBool:
		return "a boolean"
	case KindDateTime:
		return "a date-time"
	case KindArray:
		return "an array"
	case KindTable:
		return "a table"
	}
	return "a value"
}

// TOMLTableDef says how a table came to be, which decides how it may still
// grow.
type TOMLTableDef int

// How a table can be defined.
const (
	// TOMLImplicit is a table only named on the way to another in a header:
	// a in [a.b].
	TOMLImplicit TOMLTableDef = iota + 1
	// TOMLHeader is a table defined by its own [header], or an item of an
	// array of tables defined by [[header]].
	TOMLHeader
	// TOMLDotted is a table defined by dotted keys: a in a.b = 1.
	TOMLDotted
	// TOMLInline is an inline table, { … }: complete as written.
	TOMLInline
)

// TOMLTable is a table: its entries in the order their keys first appear.
type TOMLTable struct {
	Def TOMLTableDef
	// Header is the [header] or [[header]] line's bracketed text of a
	// TOMLHeader table; invalid otherwise.
	Header  ir.Range
	Entries []*TOMLEntry
	index   map[string]*TOMLEntry
}

// Get returns the entry of key, or nil.
func (t *TOMLTable) Get(key string) *TOMLEntry {
	if t == nil {
		return nil
	}
	if t.index != nil {
		return t.index[key]
	}
	for _, e := range t.Entries {
		if e.Key == key {
			return e
		}
	}
	return nil
}

// indexFrom is the number of entries from which a table keeps an index:
// below it, looking through the entries is faster.
const indexFrom = 16

// add appends e to t's entries, whose room comes from the builder's chunks
// of entry pointers: most tables have a handful of entries, and growing
// each table's own slice from nothing costs an allocation at each doubling.
func (b *docBuilder) add(t *TOMLTable, e *TOMLEntry) {
	t.Entries = append(b.a.entryRoom.grow(t.Entries), e)
	switch {
	case t.index != nil:
		t.index[e.Key] = e
	case len(t.Entries) >= indexFrom:
		t.index = make(map[string]*TOMLEntry, 2*len(t.Entries))
		for _, e := range t.Entries {
			t.index[e.Key] = e
		}
	}
}

// TOMLEntry is one key of a table with its value. KeyRange is the key as
// written where it was defined: the last part of a dotted key, or the part
// of a header that names the table.
type TOMLEntry struct {
	Key      string
	KeyRange ir.Range
	Value    *TOMLValue
}

// At returns the range from the key to the end of the value, "key = value".
func (e *TOMLEntry) At() ir.Range {
	r := e.KeyRange
	if v := e.Value.Range; v.IsValid() && v.End.Offset > r.End.Offset {
		r.End = v.End
	}
	return r
}

// TOMLValue is one value with its range. Which fields mean anything depends
// on Kind. Range is the value as written; for a table not written as an inline
// table it is its header (TOMLHeader) or the key that named it first
// (TOMLImplicit, TOMLDotted), and for an array of tables its first header.
type TOMLValue struct {
	Kind  TOMLKind
	Range ir.Range
	// Str is a string's decoded value, or a date-time as written.
	Str string
	// Spans map Str's bytes back into the file (strings only).
	Spans []ir.Span
	Int   int64
	Float float64
	Bool  bool
	Items []*TOMLValue
	Table *TOMLTable
	// TablesArray marks an array of tables made by [[header]]s, which
	// later [[header]]s may extend.
	TablesArray bool
}

// keyPart is one part of a dotted key: its decoded name and byte range.
type keyPart struct {
	name       string
	start, end int
}

// docBuilder builds a TOMLDoc from the expressions of go-toml's parser,
// checking what that parser leaves to its callers: duplicate keys, tables
// defined twice or in two ways, numbers and date-times that do not fit.
type docBuilder struct {
	file string
	src  []byte
	// text is src seen as a string, not a copy of it: the names and the
	// verbatim values of the document are slices of it.
	text  string
	diags []ir.Diagnostic
	root  *TOMLTable
	cur   *TOMLTable
	// failed is set by a syntax error, which ends the document.
	failed bool
	// a is the arena new nodes come from: docArena, or itemArena while
	// the nodes made belong to the current item of the array of tables
	// whose items go to done.
	a         *arena
	docArena  arena
	itemArena *arena
	// spans is where the strings' spans are cut from: the reader's fields
	// keep them, so they are never reused.
	spans chunks[ir.Span]
	// last is the last position pos computed: positions are mostly asked
	// for in file order, and counting runes from it keeps long lines
	// linear.
	last ir.Pos
	// itemsOf and done are ReadTOMLDocItems': the top-level array of tables
	// whose items go to done once complete.
	itemsOf string
	done    func(i int, item *TOMLValue)
}

// arena is where the nodes of a document, or of one item of it, come from.
// The items handed to done are done with once it returns: their arena is
// reused for the next item, so that a file of many [[steps]] makes the
// nodes of one.
type arena struct {
	entries chunks[TOMLEntry]
	values  chunks[TOMLValue]
	tables  chunks[TOMLTable]
	// entryRoom and itemRoom are chunks the tables' entries and the
	// arrays' items are cut from.
	entryRoom chunks[*TOMLEntry]
	itemRoom  chunks[*TOMLValue]
}

// reset makes all of a's room free again: nothing may use its nodes any
// more.
func (a *arena) reset() {
	a.entries.reset()
	a.values.reset()
	a.tables.reset()
	a.entryRoom.reset()
	a.itemRoom.reset()
}

// chunks hands out Ts cut from larger chunks, one allocation for many: a
// document has many small entries, values and tables (new), and many small
// slices of them (take).
type chunks[T any] struct {
	free []T
	// made are the chunks made so far, of which used are in use: reset
	// hands them out again.
	made [][]T
	used int
}

// new returns a *T set to v, from chunks of 32.
func (c *chunks[T]) new(v T) *T {
	s := c.room(1, 32)[:1]
	s[0] = v
	return &s[0]
}

// take returns an empty slice with room for n Ts, from chunks of 256; a
// larger one is made on its own.
func (c *chunks[T]) take(n int) []T {
	if n > 64 {
		return make([]T, 0, n)
	}
	return c.room(n, 256)
}

// grow returns s with room for one more T: s itself, or a copy in twice
// its room taken from c.
func (c *chunks[T]) grow(s []T) []T {
	if len(s) < cap(s) {
		return s
	}
	return append(c.take(max(4, 2*cap(s))), s...)
}

// room returns an empty slice with room for n Ts cut from the chunk in
// use, or from the next one, made size Ts long when none is left.
func (c *chunks[T]) room(n, size int) []T {
	if len(c.free) < n {
		if c.used == len(c.made) {
			c.made = append(c.made, make([]T, size))
		}
		c.free = c.made[c.used]
		c.used++
	}
	s := c.free[:0:n]
	c.free = c.free[n:]
	return s
}

func (c *chunks[T]) reset() { c.free, c.used = nil, 0 }

// scratch is what reading a document needs only while it reads: go-toml's
// parser (its nodes) and the arena of the items handed to done. Each
// document would make its own, some 20 KB; one is kept for the next.
type scratch struct {
	parser unstable.Parser
	items  arena
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// release puts sc back in the pool. Its nodes may still point into the
// source last read, until they are reused or the pool is dropped at a
// garbage collection; the process read from it holds it anyway.
func (sc *scratch) release() {
	sc.parser.Reset(nil)
	sc.items.reset()
	scratchPool.Put(sc)
}

// errSyntaxFatal stops the walk at a syntax error already reported.
var errSyntaxFatal = errors.New("syntax error")

// ReadTOMLDoc reads src, the TOML file named file, into a positioned tree.
// The tree's names and verbatim strings share src's bytes rather than copy
// them (a 10 MB file would be held twice), so src must not change once it
// is read: the front-ends keep it whole as the file's text anyway. It
// reports a syntax error (which ends the document: the tree holds what
// came before it) and every key defined twice, with rules RuleSyntax and
// RuleDuplicate; a duplicate keeps the first definition.
func ReadTOMLDoc(file string, src []byte) (*TOMLDoc, []ir.Diagnostic) {
	return ReadTOMLDocItems(file, src, "", nil)
}

// ReadTOMLDocItems reads src like ReadTOMLDoc, and hands each item of the
// top-level array of tables called array ([[steps]]) to done, with its
// index, as soon as nothing later in the file can add to it: when the next
// [[array]] header starts another item, and at the end of the document
// (where a syntax error ends it too). The document then lets go of the
// item, leaving nil in its place, so that a long file's tree is never held
// whole: done copies from it what it needs, and keeps no pointer into it,
// since its nodes are reused for the next item once done returns (the
// strings and spans they hold are not).
func ReadTOMLDocItems(file string, src []byte, array string, done func(i int, item *TOMLValue)) (*TOMLDoc, []ir.Diagnostic) {
	src = source.Text(src)
	b := &docBuilder{file: file, src: src, text: unsafe.String(unsafe.SliceData(src), len(src)), last: ir.Pos{Line: 1, Column: 1}, root: &TOMLTable{Def: TOMLHeader}}
	b.cur = b.root
	b.a = &b.docArena
	if done != nil {
		b.itemsOf, b.done = array, done
	}
	doc := &TOMLDoc{File: file, Src: src, Root: b.root}
	sc := scratchPool.Get().(*scratch)
	defer sc.release()
	b.itemArena = &sc.items
	p := &sc.parser
	p.Reset(src)
	for p.NextExpression() {
		b.expression(p.Expression())
		if b.failed {
			break
		}
	}
	if err := p.Error(); err != nil && !b.failed {
		b.parserError(err)
	}
	if b.done != nil {
		if e := b.root.Get(b.itemsOf); e != nil && e.Value.TablesArray {
			b.itemDone(e.Value, len(e.Value.Items)-1)
		}
	}
	return doc, b.diags
}

// itemDone hands item i of the array of tables v to done, and lets go of
// it.
func (b *docBuilder) itemDone(v *TOMLValue, i int) {
	if i < 0 || v.Items[i] == nil {
		return
	}
	b.done(i, v.Items[i])
	v.Items[i] = nil
}

// pos returns the position of byte offset off, its column counting runes.
// It counts from the last position asked for, since positions are mostly
// asked for in file order: the newlines in between give the line, and the
// characters since the last of them, or since the last position when there
// is none, the column.
func (b *docBuilder) pos(off int) ir.Pos {
	off = max(0, min(off, len(b.src)))
	last := int(b.last.Offset)
	if off >= last && off-last <= shortStretch {
		if p, ok := b.posASCII(off); ok {
			b.last = p
			return p
		}
	}
	var line, start, col int
	switch {
	case off >= last:
		seg := b.src[last:off]
		line = int(b.last.Line) + bytes.Count(seg, newline)
		if i := bytes.LastIndexByte(seg, '\n'); i >= 0 {
			start, col = last+i+1, 1
		} else if last == len(b.src) || utf8.RuneStart(b.src[last]) {
			// Counting on from the last position is only right when it
			// does not cut a character in two.
			start, col = last, int(b.last.Column)
		} else {
			start, col = bytes.LastIndexByte(b.src[:off], '\n')+1, 1
		}
	default:
		line = int(b.last.Line) - bytes.Count(b.src[off:last], newline)
		start, col = bytes.LastIndexByte(b.src[:off], '\n')+1, 1
	}
	b.last = ir.Pos{Line: int32(line), Column: int32(col + utf8.RuneCount(b.src[start:off])), Offset: int32(off)}
	return b.last
}

var newline = []byte{'\n'}

// shortStretch is the longest stretch from the last position that posASCII
// reads byte by byte: most positions asked for are a few bytes on from the
// last (a key's end, its value's start), where calls to bytes.Count and
// utf8.RuneCount cost more than the loop.
const shortStretch = 64

// posASCII returns the position of byte off, at or after the last
// position, counting on byte by byte; it fails when a byte on the way is
// not ASCII or the last position cuts a character in two.
func (b *docBuilder) posASCII(off int) (ir.Pos, bool) {
	last := int(b.last.Offset)
	if last < len(b.src) && !utf8.RuneStart(b.src[last]) {
		return ir.Pos{}, false
	}
	line, col := b.last.Line, b.last.Column
	for _, c := range b.src[last:off] {
		switch {
		case c == '\n':
			line, col = line+1, 1
		case c >= utf8.RuneSelf:
			return ir.Pos{}, false
		default:
			col++
		}
	}
	return ir.Pos{Line: line, Column: col, Offset: int32(off)}, true
}

// rng returns the range of bytes start up to end.
func (b *docBuilder) rng(start, end int) ir.Range {
	return ir.Range{File: b.file, Start: b.pos(start), End: b.pos(max(start, end))}
}

func (b *docBuilder) report(rule string, r ir.Range, related []ir.Related, format string, args ...any) {
	b.diags = append(b.diags, ir.Diagnostic{
		Rule:     rule,
		Severity: ir.Error,
		Message:  fmt.Sprintf(format, args...),
		Range:    r,
		Related:  related,
	})
}

// syntax reports a syntax error at r and ends the document.
func (b *docBuilder) syntax(r ir.Range, related []ir.Related, format string, args ...any) error {
	b.report(ir.RuleSyntax, r, related, format, args...)
	b.failed = true
	return errSyntaxFatal
}

func firstDefined(e *TOMLEntry) []ir.Related {
	if !e.KeyRange.IsValid() {
		return nil
	}
	return []ir.Related{{Range: e.KeyRange, Message: "first defined here"}}
}

// parserError reports go-toml's parse error at its own position.
func (b *docBuilder) parserError(err error) {
	var perr *unstable.ParserError
	start, end := len(b.src), len(b.src)
	msg := err.Error()
	if errors.As(err, &perr) {
		msg = perr.Message
		// The highlight is a slice of src: its distance to the end of
		// src's backing array gives its offset.
		if off := cap(b.src) - cap(perr.Highlight); perr.Highlight != nil && off >= 0 && off <= len(b.src) {
			start = off
			end = min(off+len(perr.Highlight), len(b.src))
		}
	}
	if start == end && start > 0 && start == len(b.src) {
		// At the end of the input: point at its last character.
		_, size := utf8.DecodeLastRune(b.src)
		start -= size
	}
	start = b.runeStart(start)
	if start < len(b.src) && b.src[start] >= utf8.RuneSelf {
		// go-toml names the byte at fault as if it were a character: name
		// the character it starts instead.
		if r, _ := utf8.DecodeRune(b.src[start:]); r != utf8.RuneError {
			msg = strings.Replace(msg, fmt.Sprintf("%#U", rune(b.src[start])), fmt.Sprintf("%#U", r), 1)
		}
	}
	if end == start && end < len(b.src) {
		_, size := utf8.DecodeRune(b.src[start:])
		end = start + size
	}
	// A highlight of a character's first byte ends after the character.
	for end < len(b.src) && end > start && !utf8.RuneStart(b.src[end]) {
		end++
	}
	b.syntax(b.rng(start, end), nil, "%s", msg)
}

// runeStart returns the start of the character that byte off is part of.
func (b *docBuilder) runeStart(off int) int {
	for s := off - 1; s >= 0 && s >= off-utf8.UTFMax+1; s-- {
		if r, size := utf8.DecodeRune(b.src[s:]); r != utf8.RuneError && s+size > off {
			return s
		}
	}
	return off
}

// expression adds one top-level expression of the parser to the document.
func (b *docBuilder) expression(n *unstable.Node) {
	switch n.Kind {
	case unstable.KeyValue:
		b.keyValue(n, b.cur)
	case unstable.Table:
		b.tableHeader(n)
	case unstable.ArrayTable:
		b.arrayTableHeader(n)
	}
}

// keyParts appends the parts of n's (possibly dotted) key to parts.
func (b *docBuilder) keyParts(n *unstable.Node, parts []keyPart) []keyPart {
	it := n.Key()
	for it.Next() {
		k := it.Node()
		start := int(k.Raw.Offset)
		end := start + int(k.Raw.Length)
		name := b.text[start:end]
		if name != string(k.Data) {
			// A quoted key: its name is decoded.
			name = string(k.Data)
		}
		parts = append(parts, keyPart{name: name, start: start, end: end})
	}
	return parts
}

func dottedName(parts []keyPart) string {
	names := make([]string, len(parts))
	for i, p := range parts {
		names[i] = p.name
	}
	return strings.Join(names, ".")
}

// conflict reports a key that names, as a table, something that is not one
// a header or dotted key may extend.
func (b *docBuilder) conflict(part keyPart, path string, e *TOMLEntry, how string) error {
	r := b.rng(part.start, part.end)
	v := e.Value
	switch {
	case v.TablesArray:
		return b.syntax(r, firstDefined(e), "%q is an array of tables; %s", path, how)
	case v.Kind == KindTable && v.Table.Def == TOMLInline:
		return b.syntax(r, firstDefined(e), "%q is an inline table, complete as written; %s", path, how)
	case v.Kind == KindTable && v.Table.Def == TOMLDotted:
		return b.syntax(r, firstDefined(e), "table %q is defined by dotted keys; %s", path, how)
	case v.Kind == KindTable:
		return b.syntax(r, firstDefined(e), "table %q is defined by a header; %s", path, how)
	}
	return b.syntax(r, firstDefined(e), "%q is already defined as %s, not a table", path, v.Kind)
}

// keyValue adds key = value to t, creating the tables of a dotted key.
func (b *docBuilder) keyValue(n *unstable.Node, t *TOMLTable) error {
	var buf [4]keyPart
	parts := b.keyParts(n, buf[:0])
	if len(parts) == 0 {
		return nil
	}
	for i, part := range parts[:len(parts)-1] {
		e := t.Get(part.name)
		if e == nil {
			r := b.rng(part.start, part.end)
			sub := b.a.tables.new(TOMLTable{Def: TOMLDotted})
			b.add(t, b.a.entries.new(TOMLEntry{Key: part.name, KeyRange: r, Value: b.a.values.new(TOMLValue{Kind: KindTable, Range: r, Table: sub})}))
			t = sub
			continue
		}
		if e.Value.Kind == KindTable && e.Value.Table.Def == TOMLDotted {
			t = e.Value.Table
			continue
		}
		return b.conflict(part, dottedName(parts[:i+1]), e, "a dotted key cannot add to it")
	}
	last := parts[len(parts)-1]
	keyRange := b.rng(last.start, last.end)
	value, err := b.value(n.Value(), b.valueStart(last.end))
	if err != nil {
		return err
	}
	if e := t.Get(last.name); e != nil {
		if e.Value.Kind == KindTable && e.Value.Table.Def != TOMLInline || e.Value.TablesArray {
			return b.syntax(keyRange, firstDefined(e), "%q is already defined as a table, not a value", dottedName(parts))
		}
		b.report(ir.RuleDuplicate, keyRange, firstDefined(e), "key %q is already defined in this table", last.name)
		return nil
	}
	b.add(t, b.a.entries.new(TOMLEntry{Key: last.name, KeyRange: keyRange, Value: value}))
	return nil
}

// valueStart returns the offset of the value after a key ending at keyEnd:
// past blanks, the "=" and blanks.
func (b *docBuilder) valueStart(keyEnd int) int {
	i := b.skipBlanks(keyEnd)
	if i < len(b.src) && b.src[i] == '=' {
		i++
	}
	return b.skipBlanks(i)
}

func (b *docBuilder) skipBlanks(i int) int {
	for i < len(b.src) && (b.src[i] == ' ' || b.src[i] == '\t') {
		i++
	}
	return i
}

// skipFiller skips what may separate the items of an array or an inline
// table: blanks, newlines, commas and comments.
func (b *docBuilder) skipFiller(i int) int {
	for i < len(b.src) {
		switch b.src[i] {
		case ' ', '\t', '\n', '\r', ',':
			i++
		case '#':
			for i < len(b.src) && b.src[i] != '\n' {
				i++
			}
		default:
			return i
		}
	}
	return i
}

// value builds the value n, which starts at or after byte from.
func (b *docBuilder) value(n *unstable.Node, from int) (*TOMLValue, error) {
	switch n.Kind {
	case unstable.Array:
		return b.array(n, from)
	case unstable.InlineTable:
		return b.inlineTable(n)
	}
	start := int(n.Raw.Offset)
	end := start + int(n.Raw.Length)
	// Positions are counted on from the last one, so they are asked for in
	// file order: the value's start, its spans, its end.
	v := b.a.values.new(TOMLValue{Range: ir.Range{File: b.file, Start: b.pos(start)}})
	var err error
	switch n.Kind {
	case unstable.String:
		v.Kind = KindString
		// A string copied verbatim from the file, as most are, is a
		// slice of its text with one span.
		from, to, ok := verbatim(b.src[start:end])
		var spans []source.SpanAt
		if ok {
			v.Str = b.text[start+from : start+to]
		} else {
			v.Str, spans = decodeString(b.src[start:end])
		}
		if v.Str != string(n.Data) {
			// Never expected: keep the parser's value, pointing at the
			// string's start.
			v.Str = string(n.Data)
			ok, spans = false, []source.SpanAt{{}}
		}
		if ok {
			v.Spans = append(b.spans.take(1), ir.Span{Offset: 0, Start: b.pos(start + from)})
		}
		for _, s := range spans {
			v.Spans = append(v.Spans, ir.Span{Offset: int32(s.Value), Start: b.pos(start + s.File)})
		}
	case unstable.Bool:
		v.Kind = KindBool
		v.Bool = string(n.Data) == "true"
	case unstable.Integer:
		v.Kind = KindInteger
		v.Int, err = parseInteger(string(n.Data))
	case unstable.Float:
		v.Kind = KindFloat
		v.Float, err = parseFloat(string(n.Data))
	case unstable.LocalDate, unstable.LocalTime, unstable.LocalDateTime, unstable.DateTime:
		v.Kind = KindDateTime
		v.Str = string(n.Data)
		err = checkDateTime(n.Kind, v.Str)
	default:
		v.Range.End = b.pos(end)
		return nil, b.syntax(v.Range, nil, "unexpected %s value", n.Kind)
	}
	v.Range.End = b.pos(end)
	if err != nil {
		return nil, b.syntax(v.Range, nil, "%s", err)
	}
	return v, nil
}

// array builds an array whose "[" is at or after from. go-toml's parser
// gives arrays no range: the items' own ranges and the filler between them
// lead to the closing "]".
func (b *docBuilder) array(n *unstable.Node, from int) (*TOMLValue, error) {
	start := b.skipFiller(from)
	v := b.a.values.new(TOMLValue{Kind: KindArray, Range: ir.Range{File: b.file, Start: b.pos(start)}})
	at := start + 1
	it := n.Children()
	for it.Next() {
		item, err := b.value(it.Node(), b.skipFiller(at))
		if err != nil {
			return nil, err
		}
		v.Items = append(b.a.itemRoom.grow(v.Items), item)
		at = int(item.Range.End.Offset)
	}
	end := b.skipFiller(at)
	if end < len(b.src) && b.src[end] == ']' {
		end++
	}
	v.Range.End = b.pos(end)
	return v, nil
}

// inlineTable builds an inline table; go-toml's parser gives it the range of
// its "{", its key-values lead to the closing "}".
func (b *docBuilder) inlineTable(n *unstable.Node) (*TOMLValue, error) {
	start := int(n.Raw.Offset)
	startPos := b.pos(start)
	t := b.a.tables.new(TOMLTable{Def: TOMLInline})
	at := start + 1
	it := n.Children()
	for it.Next() {
		kv := it.Node()
		if kv.Kind != unstable.KeyValue {
			continue
		}
		if err := b.keyValue(kv, t); err != nil {
			return nil, err
		}
		at = int(kv.Raw.Offset + kv.Raw.Length)
	}
	end := b.skipFiller(at)
	if end < len(b.src) && b.src[end] == '}' {
		end++
	}
	return b.a.values.new(TOMLValue{Kind: KindTable, Range: ir.Range{File: b.file, Start: startPos, End: b.pos(end)}, Table: t}), nil
}

// headerRange returns the range of a [header] or [[header]] whose key parts
// are parts: go-toml's parser gives table expressions no range of their own.
func (b *docBuilder) headerRange(parts []keyPart, brackets int) ir.Range {
	start := parts[0].start
	for start > 0 && (b.src[start-1] == ' ' || b.src[start-1] == '\t') {
		start--
	}
	for i := 0; i < brackets && start > 0 && b.src[start-1] == '['; i++ {
		start--
	}
	end := b.skipBlanks(parts[len(parts)-1].end)
	for i := 0; i < brackets && end < len(b.src) && b.src[end] == ']'; i++ {
		end++
	}
	return b.rng(start, end)
}

// parent walks the parts of a header but the last from the root, creating
// implicit tables, and returns the table the last part belongs to.
func (b *docBuilder) parent(parts []keyPart, how string) (*TOMLTable, error) {
	t := b.root
	for i, part := range parts[:len(parts)-1] {
		e := t.Get(part.name)
		if e == nil {
			r := b.rng(part.start, part.end)
			sub := b.a.tables.new(TOMLTable{Def: TOMLImplicit})
			b.add(t, b.a.entries.new(TOMLEntry{Key: part.name, KeyRange: r, Value: b.a.values.new(TOMLValue{Kind: KindTable, Range: r, Table: sub})}))
			t = sub
			continue
		}
		v := e.Value
		switch {
		case v.TablesArray && len(v.Items) > 0:
			t = v.Items[len(v.Items)-1].Table
		case v.Kind == KindTable && v.Table.Def != TOMLInline:
			t = v.Table
		default:
			return nil, b.conflict(part, dottedName(parts[:i+1]), e, how)
		}
	}
	return t, nil
}

// leaveItem makes the nodes of a header that names no table of the current
// item (parts) come from the document's arena: only an item's own nodes may
// go with it.
func (b *docBuilder) leaveItem(parts []keyPart) {
	if parts[0].name != b.itemsOf || b.done == nil {
		b.a = &b.docArena
	}
}

// tableHeader starts the table of a [header].
func (b *docBuilder) tableHeader(n *unstable.Node) error {
	var buf [4]keyPart
	parts := b.keyParts(n, buf[:0])
	if len(parts) == 0 {
		return nil
	}
	b.leaveItem(parts)
	header := b.headerRange(parts, 1)
	t, err := b.parent(parts, "a header cannot add a table to it")
	if err != nil {
		return err
	}
	last := parts[len(parts)-1]
	keyRange := b.rng(last.start, last.end)
	e := t.Get(last.name)
	if e == nil {
		b.cur = b.a.tables.new(TOMLTable{Def: TOMLHeader, Header: header})
		b.add(t, b.a.entries.new(TOMLEntry{Key: last.name, KeyRange: keyRange, Value: b.a.values.new(TOMLValue{Kind: KindTable, Range: header, Table: b.cur})}))
		return nil
	}
	v := e.Value
	switch {
	case v.Kind == KindTable && v.Table.Def == TOMLImplicit:
		v.Table.Def = TOMLHeader
		v.Table.Header = header
		v.Range = header
		e.KeyRange = keyRange
		b.cur = v.Table
		return nil
	case v.Kind == KindTable && v.Table.Def == TOMLHeader:
		b.report(ir.RuleDuplicate, keyRange, firstDefined(e), "table %q is already defined", dottedName(parts))
		// The keys of the second definition go nowhere: reporting them
		// as duplicates of the first would only repeat this.
		b.cur = b.a.tables.new(TOMLTable{Def: TOMLHeader, Header: header})
		return nil
	case v.TablesArray:
		return b.syntax(keyRange, firstDefined(e), "%[1]q is an array of tables; its items' header is [[%[1]s]]", dottedName(parts))
	case v.Kind == KindTable:
		return b.conflict(last, dottedName(parts), e, "it cannot be defined again by a header")
	}
	return b.syntax(keyRange, firstDefined(e), "%q is already defined as %s, not a table", dottedName(parts), v.Kind)
}

// arrayTableHeader starts a new item of the array of tables of a [[header]].
func (b *docBuilder) arrayTableHeader(n *unstable.Node) error {
	var buf [4]keyPart
	parts := b.keyParts(n, buf[:0])
	if len(parts) == 0 {
		return nil
	}
	b.leaveItem(parts)
	header := b.headerRange(parts, 2)
	t, err := b.parent(parts, "a header cannot add a table to it")
	if err != nil {
		return err
	}
	last := parts[len(parts)-1]
	keyRange := b.rng(last.start, last.end)
	e := t.Get(last.name)
	// streamed is an item of the array whose items go to done: its nodes
	// come from the item arena, which the item before it, handed to done,
	// no longer needs.
	streamed := b.done != nil && t == b.root && last.name == b.itemsOf
	switch {
	case e == nil:
		array := b.a.values.new(TOMLValue{Kind: KindArray, Range: header, TablesArray: true})
		b.add(t, b.a.entries.new(TOMLEntry{Key: last.name, KeyRange: keyRange, Value: array}))
		if streamed {
			b.a = b.itemArena
		}
		array.Items = []*TOMLValue{b.newItem(header)}
	case e.Value.TablesArray:
		if streamed {
			b.itemDone(e.Value, len(e.Value.Items)-1)
			b.itemArena.reset()
			b.a = b.itemArena
		}
		e.Value.Items = append(e.Value.Items, b.newItem(header))
	case e.Value.Kind == KindArray:
		return b.syntax(keyRange, firstDefined(e), "array %[1]q is defined by a value; [[%[1]s]] cannot add to it", dottedName(parts))
	case e.Value.Kind == KindTable:
		return b.syntax(keyRange, firstDefined(e), "%q is already defined as a table, not an array of tables", dottedName(parts))
	default:
		return b.syntax(keyRange, firstDefined(e), "%q is already defined as %s, not an array of tables", dottedName(parts), e.Value.Kind)
	}
	return nil
}

// newItem makes the current table a new item of an array of tables, whose
// [[header]] is header, and returns it.
func (b *docBuilder) newItem(header ir.Range) *TOMLValue {
	b.cur = b.a.tables.new(TOMLTable{Def: TOMLHeader, Header: header})
	return b.a.values.new(TOMLValue{Kind: KindTable, Range: header, Table: b.cur})
}

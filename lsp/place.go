package lsp

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/parse"
)

// place is where a position is among a document's keys, read from its
// lines alone: a file being typed rarely parses.
type place struct {
	// keys are the keys of the table the position is in; nil when that
	// table is not one of the key table's (a map's level, an unknown key).
	keys []ir.Key
	// key is the key the position is on, or whose value it is in.
	key      *ir.Key
	keyRange protocol.Range
	// inValue is set when the position is after key's = or :.
	inValue bool
	// quoted is set when the value being written has its opening quote.
	quoted bool
	// wantKey is set when a key is being written at the position.
	wantKey bool
	// tablesOnly is set in a TOML [header]: only tables are written there.
	tablesOnly bool
	// blocks is set in HCL, where a table is written as its block.
	blocks bool
}

const keyChars = `[A-Za-z0-9_-]`

var (
	tomlHeaderLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\[\[?([^\]]*)\]?\]?`) })
	tomlHeaderOpen = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*\[\[?\s*((?:` + keyChars + `+\s*\.\s*)*)` + keyChars + `*$`)
	})
	tomlKeyLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(` + keyChars + `+(?:\s*\.\s*` + keyChars + `+)*)\s*=\s*(.*)$`)
	})
	keyTyped     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*` + keyChars + `*$`) })
	hclBlockLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(` + keyChars + `+)((?:\s+"[^"]*")*)\s*\{`) })
	hclKeyLine   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(` + keyChars + `+)\s*=\s*(.*)$`) })
	hclHeredoc   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<<-?([A-Za-z_][A-Za-z0-9_]*)\s*$`) })
	yamlKeyLine  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\s*)(-\s+)?(` + keyChars + `+):(?:\s+(.*)|$)`) })
	yamlKeyTyped = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\s*)(-\s+)?` + keyChars + `*$`) })
)

// placeAt reads where p is in d.
func (d *document) placeAt(p protocol.Position) place {
	p = d.clamp(p)
	switch d.kind {
	case kindHCL:
		return d.hclPlace(p)
	case kindCard:
		return d.yamlPlace(p)
	}
	return d.tomlPlace(p)
}

// descend returns the keys of the table at names in keys, and false when
// names lead elsewhere. With items, a map's names are on the path (TOML's
// [worktrees.a]); hcl matches a table by its block type.
func descend(keys []ir.Key, names []string, items, hcl bool) ([]ir.Key, bool) {
	for i := 0; i < len(names); i++ {
		k, ok := lookup(keys, names[i], hcl)
		if !ok || !k.Type.HasKeys() {
			return nil, false
		}
		if items && k.Type == ir.KeyTableMap {
			if i == len(names)-1 {
				return nil, false
			}
			i++
		}
		keys = k.Keys
		if hcl && k.Type == ir.KeyTables {
			// A step block's label is its name.
			keys = slices.DeleteFunc(slices.Clone(keys), func(k ir.Key) bool { return k.Name == "name" })
		}
	}
	return keys, true
}

// lookup finds name among keys, by block type too in HCL.
func lookup(keys []ir.Key, name string, hcl bool) (ir.Key, bool) {
	for _, k := range keys {
		if k.Name == name || hcl && k.Type.HasKeys() && parse.HCLBlock(k) == name {
			return k, true
		}
	}
	return ir.Key{}, false
}

// splitDotted splits a dotted key or header into its names.
func splitDotted(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ".") {
		if part = strings.Trim(strings.TrimSpace(part), `"'`); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// tomlPlace reads a TOML document: the last [header] above the line names
// the table, and the line a key, dotted or not.
func (d *document) tomlPlace(p protocol.Position) place {
	root := d.kind.keys()
	li := int(p.Line)
	line := d.line(li)
	col := d.byteCol(p)
	var table []string
	inString := ""
	for _, l := range d.linesBefore(li) {
		if inString == "" {
			if m := tomlHeaderLine().FindStringSubmatch(l); m != nil && strings.HasPrefix(strings.TrimSpace(l), "[") {
				table = splitDotted(m[1])
			}
		}
		inString = multiline(l, inString)
	}
	if inString != "" {
		return place{}
	}
	var pl place
	prefix := line[:col]
	if strings.HasPrefix(strings.TrimSpace(line), "[") {
		if m := tomlHeaderOpen().FindStringSubmatch(prefix); m != nil {
			pl.keys, _ = descend(root, splitDotted(m[1]), true, false)
			pl.wantKey, pl.tablesOnly = true, true
		}
		// The name under the position, as the key of the table before it.
		if m := tomlHeaderLine().FindStringSubmatchIndex(line); m != nil {
			d.tomlHeaderKey(&pl, root, li, line[m[2]:m[3]], m[2], col)
		}
		return pl
	}
	keys, ok := descend(root, table, true, false)
	if !ok {
		return pl
	}
	pl.keys = keys
	if keyTyped().MatchString(prefix) {
		pl.wantKey = true
	}
	m := tomlKeyLine().FindStringSubmatchIndex(line)
	if m == nil {
		return pl
	}
	names := splitDotted(line[m[2]:m[3]])
	inner, ok := descend(keys, names[:len(names)-1], true, false)
	if !ok {
		return pl
	}
	k, ok := ir.LookupKey(inner, names[len(names)-1])
	if !ok {
		return pl
	}
	start := m[2] + strings.LastIndex(line[m[2]:m[3]], k.Name)
	pl.key = &k
	pl.keyRange = protocol.Range{Start: d.lspPos(li, start), End: d.lspPos(li, m[3])}
	if col >= m[4] {
		pl.inValue, pl.wantKey = true, false
		pl.quoted = strings.ContainsAny(line[m[4]:col], `"'`)
	}
	return pl
}

// tomlHeaderKey sets pl.key to the name of a [header] that holds column
// col: a table of the table the names before it lead to.
func (d *document) tomlHeaderKey(pl *place, root []ir.Key, li int, header string, at, col int) {
	names := strings.Split(header, ".")
	off := at
	for i, n := range names {
		end := off + len(n)
		if col >= off && col <= end {
			keys, ok := descend(root, splitDotted(strings.Join(names[:i], ".")), true, false)
			if !ok {
				return
			}
			name := strings.Trim(strings.TrimSpace(n), `"'`)
			if k, ok := ir.LookupKey(keys, name); ok {
				pl.key = &k
				lead := len(n) - len(strings.TrimLeft(n, " \t"))
				pl.keyRange = protocol.Range{Start: d.lspPos(li, off+lead), End: d.lspPos(li, off+lead+len(strings.TrimSpace(n)))}
			}
			return
		}
		off = end + 1
	}
}

// multiline returns the multi-line string delimiter open after line, given
// the one open before it ("" for none).
func multiline(line, open string) string {
	for i := 0; i < len(line); i++ {
		if open == "" && line[i] == '#' {
			return ""
		}
		if i+3 <= len(line) && (line[i:i+3] == `"""` || line[i:i+3] == `'''`) {
			switch open {
			case "":
				open = line[i : i+3]
			case line[i : i+3]:
				open = ""
			default:
				continue
			}
			i += 2
			continue
		}
		if open == "" && (line[i] == '"' || line[i] == '\'') {
			// A one-line string: skip to its end.
			q := line[i]
			for i++; i < len(line) && line[i] != q; i++ {
				if q == '"' && line[i] == '\\' {
					i++
				}
			}
		}
	}
	return open
}

// hclPlace reads an HCL document: the blocks open above the line name the
// table, and the line an attribute or a block.
func (d *document) hclPlace(p protocol.Position) place {
	root := d.kind.keys()
	li := int(p.Line)
	line := d.line(li)
	col := d.byteCol(p)
	var stack []string
	heredoc := ""
	for _, l := range d.linesBefore(li) {
		if heredoc != "" {
			if strings.TrimSpace(l) == heredoc {
				heredoc = ""
			}
			continue
		}
		if m := hclBlockLine().FindStringSubmatch(l); m != nil {
			stack = append(stack, m[1])
			l = l[strings.Index(l, "{")+1:]
		}
		for _, c := range braces(l) {
			if c == '{' {
				stack = append(stack, "")
			} else if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
		if m := hclHeredoc().FindStringSubmatch(l); m != nil {
			heredoc = m[1]
		}
	}
	if heredoc != "" {
		return place{}
	}
	keys, ok := descend(root, stack, false, true)
	if !ok {
		return place{}
	}
	pl := place{keys: keys, blocks: true}
	prefix := line[:col]
	if keyTyped().MatchString(prefix) {
		pl.wantKey = true
	}
	if m := hclBlockLine().FindStringSubmatchIndex(line); m != nil {
		if k, ok := lookup(keys, line[m[2]:m[3]], true); ok && k.Type.HasKeys() {
			pl.key = &k
			pl.keyRange = protocol.Range{Start: d.lspPos(li, m[2]), End: d.lspPos(li, m[3])}
		}
		return pl
	}
	m := hclKeyLine().FindStringSubmatchIndex(line)
	if m == nil {
		return pl
	}
	k, ok := ir.LookupKey(keys, line[m[2]:m[3]])
	if !ok {
		return pl
	}
	pl.key = &k
	pl.keyRange = protocol.Range{Start: d.lspPos(li, m[2]), End: d.lspPos(li, m[3])}
	if col >= m[4] {
		pl.inValue, pl.wantKey = true, false
		pl.quoted = strings.ContainsAny(line[m[4]:col], `"`)
	}
	return pl
}

// braces are the braces of an HCL line outside its strings and comments.
func braces(line string) []byte {
	var out []byte
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '#' || c == '/' && i+1 < len(line) && line[i+1] == '/':
			return out
		case c == '"':
			for i++; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' {
					i++
				}
			}
		case c == '{' || c == '}':
			out = append(out, c)
		}
	}
	return out
}

// yamlPlace reads a card's front matter: the keys less indented than the
// line's, up to the opening ---, name the table.
func (d *document) yamlPlace(p protocol.Position) place {
	root := d.kind.keys()
	li := int(p.Line)
	line := d.line(li)
	col := d.byteCol(p)
	if li == 0 || strings.TrimRight(line, " \t") == "---" || !d.inFrontMatter(li) {
		return place{}
	}
	indent := col
	m := yamlKeyLine().FindStringSubmatchIndex(line)
	if m != nil {
		indent = m[6]
	} else if t := yamlKeyTyped().FindStringSubmatchIndex(line[:col]); t != nil {
		indent = t[3]
		if t[4] >= 0 {
			indent = t[5]
		}
	}
	var path []string
	for i := li - 1; i > 0; i-- {
		l := d.line(i)
		pm := yamlKeyLine().FindStringSubmatchIndex(l)
		if pm == nil {
			continue
		}
		at := pm[6]
		if at < indent {
			path = append([]string{l[pm[6]:pm[7]]}, path...)
			indent = at
			if pm[4] >= 0 {
				// A "- key:" item: its own list is less indented
				// than its dash.
				indent = pm[4]
			}
		}
		if indent == 0 {
			break
		}
	}
	keys, ok := descend(root, path, false, false)
	if !ok {
		return place{}
	}
	pl := place{keys: keys}
	if yamlKeyTyped().MatchString(line[:col]) {
		pl.wantKey = true
	}
	if m == nil {
		return pl
	}
	k, ok := ir.LookupKey(keys, line[m[6]:m[7]])
	if !ok {
		return pl
	}
	pl.key = &k
	pl.keyRange = protocol.Range{Start: d.lspPos(li, m[6]), End: d.lspPos(li, m[7])}
	if col > m[7] {
		pl.inValue, pl.wantKey = true, false
		pl.quoted = m[8] >= 0 && m[8] < col && strings.ContainsAny(line[m[8]:col], `"'`)
	}
	return pl
}

// inFrontMatter reports whether line li lies between a card's first two
// --- lines.
func (d *document) inFrontMatter(li int) bool {
	if strings.TrimRight(d.line(0), " \t") != "---" {
		return false
	}
	for i, l := range d.linesBefore(li) {
		if i > 0 && strings.TrimRight(l, " \t") == "---" {
			return false
		}
	}
	return true
}

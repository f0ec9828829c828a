package git

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// configEntry is one key of a config file: its name as git spells it
// (section and key lowercased, a subsection as written: "core.bare",
// "includeif.gitdir:~/w/.path") and its value, unquoted.
type configEntry struct {
	name, value string
	// hasValue is false for a key alone on its line, which git reads as
	// true.
	hasValue bool
}

// parseConfig reads a config file as git's parser does (comments, quotes,
// escapes, continued lines, a key after its section's header on one line),
// returning its entries in order. ok is false where git would refuse the
// file.
func parseConfig(src []byte) (entries []configEntry, ok bool) {
	if bytes.IndexByte(src, 0) >= 0 {
		// git reads on past a NUL; Find does not follow it there.
		return nil, false
	}
	// git skips a UTF-8 byte order mark at the start, and only there.
	p := &configParser{src: bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))}
	section := ""
	comment := false
	for {
		c, eof := p.next()
		switch {
		case c == '\n':
			if eof {
				return entries, true
			}
			comment = false
		case comment, isConfigSpace(c):
		case c == '#' || c == ';':
			comment = true
		case c == '[':
			name, ok := p.section()
			if !ok || name == "" {
				return nil, false
			}
			section = name
		case isAlpha(c):
			e, ok := p.entry(c)
			if !ok {
				return nil, false
			}
			e.name = section + "." + e.name
			entries = append(entries, e)
		default:
			return nil, false
		}
	}
}

// maxSectionName is git's limit on the length of a section's name.
const maxSectionName = 256

// configParser is a position in a config file.
type configParser struct {
	src []byte
	pos int
}

// next is the next character, "\r\n" read as "\n", and "\n" at the end
// of the file, with eof set.
func (p *configParser) next() (c byte, eof bool) {
	if p.pos >= len(p.src) {
		return '\n', true
	}
	c = p.src[p.pos]
	p.pos++
	if c == '\r' && p.pos < len(p.src) && p.src[p.pos] == '\n' {
		p.pos++
		c = '\n'
	}
	return c, false
}

// section reads a header after its "[": the section's name lowercased, and
// a subsection, quoted after a space, as written after a dot.
func (p *configParser) section() (string, bool) {
	var name strings.Builder
	for {
		c, eof := p.next()
		switch {
		case eof:
			return "", false
		case c == ']':
			return name.String(), true
		case isConfigSpace(c):
			return p.subsection(name.String(), c)
		case !isKeyChar(c) && c != '.' || name.Len() > maxSectionName:
			return "", false
		}
		name.WriteByte(lower(c))
	}
}

// subsection reads `"sub"]` after a section's name and the space c.
func (p *configParser) subsection(name string, c byte) (string, bool) {
	for isConfigSpace(c) {
		if c == '\n' {
			return "", false
		}
		c, _ = p.next()
	}
	if c != '"' {
		return "", false
	}
	var sub strings.Builder
	for {
		c, _ := p.next()
		if c == '\n' {
			return "", false
		}
		if c == '"' {
			break
		}
		if c == '\\' {
			if c, _ = p.next(); c == '\n' {
				return "", false
			}
		}
		sub.WriteByte(c)
	}
	if c, _ := p.next(); c != ']' {
		return "", false
	}
	return name + "." + sub.String(), true
}

// entry reads a key, first its letter c, and its value to the end of the
// line.
func (p *configParser) entry(c byte) (configEntry, bool) {
	var key strings.Builder
	key.WriteByte(lower(c))
	for {
		c, _ = p.next()
		if !isKeyChar(c) {
			break
		}
		key.WriteByte(lower(c))
	}
	for c == ' ' || c == '\t' {
		c, _ = p.next()
	}
	if c == '\n' {
		return configEntry{name: key.String()}, true
	}
	if c != '=' {
		return configEntry{}, false
	}
	value, ok := p.value()
	return configEntry{name: key.String(), value: value, hasValue: true}, ok
}

// value reads a value to the end of its line: comments cut, outer spaces
// dropped, quotes removed, the escapes \\, \", \n, \t and \b read, a
// backslash before the line's end continuing it; any other escape, or a
// quote open at the end, is an error.
func (p *configParser) value() (string, bool) {
	var b strings.Builder
	quote, comment := false, false
	space := 0
	for {
		c, _ := p.next()
		if c == '\n' {
			return b.String(), !quote
		}
		if comment {
			continue
		}
		if !quote && isConfigSpace(c) {
			if b.Len() > 0 {
				space++
			}
			continue
		}
		if !quote && (c == ';' || c == '#') {
			comment = true
			continue
		}
		for ; space > 0; space-- {
			b.WriteByte(' ')
		}
		switch c {
		case '"':
			quote = !quote
			continue
		case '\\':
			switch c, _ = p.next(); c {
			case '\n':
				continue
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'n':
				c = '\n'
			case '\\', '"':
			default:
				return "", false
			}
		}
		b.WriteByte(c)
	}
}

// isConfigSpace is git's isspace, which its config parser uses: unlike
// C's, it leaves out vertical tab and form feed.
func isConfigSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// isKeyChar is a character of a config key or section name.
func isKeyChar(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' || c == '-' }

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// maxIncludeDepth is git's limit on config files including each other.
const maxIncludeDepth = 10

// configFilesParse reports whether every config file git reads besides the
// repository's own (the system's, the user's, and each they include)
// parses, as git checks them before it answers anything: a broken one
// makes every git command fail, and then Find must too. HOME and the rest
// come from env, as git takes them. The system's file is looked for at
// /etc/gitconfig (or $GIT_CONFIG_SYSTEM): a git built for another prefix
// keeps it elsewhere, unread here.
func configFilesParse(env []string) bool {
	get := func(name string) (string, bool) { return lookupEnv(env, name) }
	home, ok := get("HOME")
	if ok && home == "" {
		// git would look for "/.gitconfig"; Find leaves that to it.
		return false
	}
	var files []string
	if v, ok := get("GIT_CONFIG_NOSYSTEM"); ok {
		nosystem, ok := configBool(v, true)
		if !ok {
			return false
		}
		if !nosystem {
			files = append(files, systemConfig(get))
		}
	} else {
		files = append(files, systemConfig(get))
	}
	if v, ok := get("GIT_CONFIG_GLOBAL"); ok {
		files = append(files, v)
	} else {
		if xdg, ok := get("XDG_CONFIG_HOME"); ok && xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		} else if home != "" {
			files = append(files, filepath.Join(home, ".config", "git", "config"))
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	for _, f := range files {
		if f == "" {
			// An empty GIT_CONFIG_SYSTEM or GIT_CONFIG_GLOBAL names
			// no file: git reads none.
			continue
		}
		if _, ok := readConfigFile(f, home, 0); !ok {
			return false
		}
	}
	return true
}

// lookupEnv is the value of the variable name in env, the last one set as
// exec takes it.
func lookupEnv(env []string, name string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// systemConfig is the system's config file: $GIT_CONFIG_SYSTEM, else
// /etc/gitconfig, where a git installed under /usr keeps it.
func systemConfig(get func(string) (string, bool)) string {
	if v, ok := get("GIT_CONFIG_SYSTEM"); ok {
		return v
	}
	return "/etc/gitconfig"
}

// readConfigFile parses the config file at path and every file it
// includes, returning its own entries; a file that is not there has none.
// ok is false when one does not parse, or cannot be read or found for
// certain.
func readConfigFile(path, home string, depth int) ([]configEntry, bool) {
	if path == "" || depth > maxIncludeDepth {
		return nil, false
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, true
	}
	if err != nil {
		return nil, false
	}
	entries, ok := parseConfig(b)
	if !ok {
		return nil, false
	}
	for _, e := range entries {
		// include.path and includeif.COND.path: every included file
		// is read whatever the condition, since a broken one only
		// sends Find to git.
		if e.name != "include.path" && !(strings.HasPrefix(e.name, "includeif.") && strings.HasSuffix(e.name, ".path")) {
			continue
		}
		if !e.hasValue {
			return nil, false
		}
		// Joined as strings, as git joins them: a ".." after a symlink
		// goes up from where the symlink leads.
		inc := e.value
		switch {
		case strings.HasPrefix(inc, "~/") && home != "":
			inc = home + inc[1:]
		case strings.HasPrefix(inc, "~"):
			return nil, false
		default:
			inc = resolveFrom(filepath.Dir(path), inc)
		}
		if _, ok := readConfigFile(inc, home, depth+1); !ok {
			return nil, false
		}
	}
	return entries, true
}

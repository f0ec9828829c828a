package lsp

import (
	"encoding/json"
	"fmt"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// The messages that carry a document's whole text, didOpen and didChange,
// are read by the server itself rather than by glsp's handler: encoding/json
// unquotes a string into a buffer of the quoted text's length and copies
// that into the string, and glsp reads each change of didChange once more
// from a copy of it, so that a document of 16 MiB written one bracket a
// line (24 MiB quoted) cost 40 to 64 MiB a message on top of the message.
// Here the text is unquoted once, into a string of its exact length.

// documentText is a document's text in a message, unquoted into a string
// of its exact length.
type documentText string

// UnmarshalJSON reads a JSON string as encoding/json reads it into a Go
// string (escapes, surrogate pairs, invalid UTF-8 made U+FFFD), in two
// passes over it, the first to size the string, and one allocation; null
// leaves the text as it is. Like any UnmarshalJSON, it is given JSON that
// encoding/json has checked.
func (t *documentText) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		return fmt.Errorf("a document's text is a string, not %.20s", data)
	}
	quoted := data[1 : len(data)-1]
	valid := utf8.Valid(quoted)
	size, err := unquote(nil, quoted, valid)
	if err != nil {
		return err
	}
	if size == 0 {
		*t = ""
		return nil
	}
	text := make([]byte, size)
	if _, err := unquote(text, quoted, valid); err != nil {
		return err
	}
	// The string is the bytes just written, which nothing else holds:
	// a strings.Builder makes its string the same way.
	*t = documentText(unsafe.String(unsafe.SliceData(text), len(text)))
	return nil
}

// unquote writes the text of quoted, the inside of a JSON string, to
// text, or only counts it when text is nil, and returns its length in
// bytes. A byte other than a backslash stands for itself when it is ASCII,
// or when quoted is valid UTF-8 (valid); otherwise quoted is read a
// character at a time there, each byte that is no UTF-8 written as U+FFFD.
// It goes a byte at a time: escapes may be a byte or two apart (a newline
// each line), where copying runs or looking for the next backslash with
// bytes.IndexByte costs more than it saves.
func unquote(text, quoted []byte, valid bool) (int, error) {
	n := 0
	for i := 0; i < len(quoted); {
		c := quoted[i]
		if c != '\\' && (c < utf8.RuneSelf || valid) {
			if text != nil {
				text[n] = c
			}
			n++
			i++
			continue
		}
		if c == '\\' && i+1 < len(quoted) && shortEscapes[quoted[i+1]] != 0 {
			if text != nil {
				text[n] = shortEscapes[quoted[i+1]]
			}
			n++
			i += 2
			continue
		}
		r, size, err := quotedChar(quoted[i:])
		if err != nil {
			return 0, err
		}
		switch {
		case r < utf8.RuneSelf:
			if text != nil {
				text[n] = byte(r)
			}
			n++
		case text != nil:
			n += utf8.EncodeRune(text[n:], r)
		default:
			n += utf8.RuneLen(r)
		}
		i += size
	}
	return n, nil
}

// shortEscapes are the characters the two-byte escapes of a JSON string
// (and encoding/json's \' besides) stand for, by the byte after the
// backslash; 0 for another byte.
var shortEscapes = [256]byte{'"': '"', '\\': '\\', '/': '/', '\'': '\'', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// quotedChar reads the character at the start of q, the inside of a JSON
// string, and returns it and the bytes it takes: an escape is the
// character it stands for (an escaped surrogate pair one character, a lone
// surrogate U+FFFD), a byte that is no UTF-8 U+FFFD.
func quotedChar(q []byte) (c rune, n int, err error) {
	switch b := q[0]; {
	case b == '\\':
		if len(q) < 2 {
			return 0, 0, fmt.Errorf("a document's text ends in a backslash")
		}
		if c := shortEscapes[q[1]]; c != 0 {
			return rune(c), 2, nil
		}
		if q[1] != 'u' {
			return 0, 0, fmt.Errorf("a document's text has an invalid escape \\%c", q[1])
		}
		c, ok := hex4(q)
		if !ok {
			return 0, 0, fmt.Errorf("a document's text has an invalid \\u escape")
		}
		if !utf16.IsSurrogate(c) {
			return c, 6, nil
		}
		if c2, ok := hex4(q[6:]); ok {
			if pair := utf16.DecodeRune(c, c2); pair != unicode.ReplacementChar {
				return pair, 12, nil
			}
		}
		return unicode.ReplacementChar, 6, nil
	case b == '"' || b < ' ':
		return 0, 0, fmt.Errorf("a document's text holds an unescaped %q", b)
	case b < utf8.RuneSelf:
		return rune(b), 1, nil
	}
	// An invalid byte is utf8.RuneError, which writes as U+FFFD.
	c, n = utf8.DecodeRune(q)
	return c, n, nil
}

// hex4 reads the \uXXXX escape at the start of s.
func hex4(s []byte) (rune, bool) {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// openParams are didOpen's params, as the server reads them.
type openParams struct {
	TextDocument struct {
		URI        protocol.DocumentUri `json:"uri"`
		LanguageID string               `json:"languageId"`
		Version    protocol.Integer     `json:"version"`
		Text       documentText         `json:"text"`
	} `json:"textDocument"`
}

// changeParams are didChange's params, as the server reads them.
type changeParams struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []struct {
		Range *protocol.Range `json:"range"`
		Text  documentText    `json:"text"`
	} `json:"contentChanges"`
}

// handleText handles didOpen and didChange, as glsp's handler would with
// the server's own reading of their params; handled is false for another
// method. The params are read only once the server is initialized, as glsp
// does.
func (s *server) handleText(ctx *glsp.Context) (handled, validParams bool, err error) {
	switch ctx.Method {
	case protocol.MethodTextDocumentDidOpen, protocol.MethodTextDocumentDidChange:
	default:
		return false, false, nil
	}
	if !s.handler.IsInitialized() {
		return true, true, fmt.Errorf("server not initialized")
	}
	if ctx.Method == protocol.MethodTextDocumentDidOpen {
		var p openParams
		if err := json.Unmarshal(ctx.Params, &p); err != nil {
			return true, false, err
		}
		td := p.TextDocument
		return true, true, s.didOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
			URI: td.URI, LanguageID: td.LanguageID, Version: td.Version, Text: string(td.Text),
		}})
	}
	var p changeParams
	if err := json.Unmarshal(ctx.Params, &p); err != nil {
		return true, false, err
	}
	changes := make([]any, 0, len(p.ContentChanges))
	for _, c := range p.ContentChanges {
		if c.Range != nil {
			changes = append(changes, protocol.TextDocumentContentChangeEvent{Range: c.Range, Text: string(c.Text)})
		} else {
			changes = append(changes, protocol.TextDocumentContentChangeEventWhole{Text: string(c.Text)})
		}
	}
	return true, true, s.didChange(ctx, &protocol.DidChangeTextDocumentParams{TextDocument: p.TextDocument, ContentChanges: changes})
}

package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
)

// maxMessage is the longest message the server reads: a document of the 16
// MiB cairn reads of a file, escaped as JSON, several times over. A longer
// one is skipped and refused.
const maxMessage = 128 << 20

// largeMessage is the length from which the stream collects the garbage
// that earlier messages left before it reads a message (see readMessage).
const largeMessage = 1 << 20

// messageStream is the connection's stream of messages in LSP's base
// protocol: headers (a Content-Length among them), a blank line, that many
// bytes of JSON. It answers a message that is no JSON (-32700) or no JSON-RPC
// request, notification or response (-32600) with its error itself and reads
// on, where jsonrpc2's own stream would end the connection. A message that
// is not framed (no Content-Length, a header line that never ends) ends it:
// where the next message starts is then unknown.
//
// It hands a request or a notification on with its params set aside
// (paramsAside): jsonrpc2 reads a message's params into a map of values and
// writes them back as JSON, which cost a document of 16 MiB over 100 MiB of
// copies before the handler decoded them once more.
type messageStream struct {
	in *bufio.Reader
	// max is the longest message read: maxMessage but in tests.
	max int64
	// aside holds the params of the messages handed on until their
	// handler takes them.
	aside *paramsAside

	mu  sync.Mutex // guards out, written by the connection and by ReadObject
	out *bufio.Writer
}

// newMessageStream returns the stream of messages read from in, answered
// on out.
func newMessageStream(in io.Reader, out io.Writer) *messageStream {
	return &messageStream{in: bufio.NewReader(in), max: maxMessage, out: bufio.NewWriter(out), aside: &paramsAside{}}
}

// WriteObject writes obj as one message.
func (s *messageStream) WriteObject(obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := fmt.Fprintf(s.out, "Content-Length: %d\r\n\r\n", len(data)); err != nil {
		return err
	}
	if _, err := s.out.Write(data); err != nil {
		return err
	}
	return s.out.Flush()
}

// Close closes neither side: they are the command's stdin and stdout.
func (s *messageStream) Close() error { return nil }

// ReadObject reads the next message that is a JSON-RPC request,
// notification or response into v; the ones before it that are not are
// answered with their error.
func (s *messageStream) ReadObject(v any) error {
	for {
		body, err := s.readMessage()
		var tooLong *tooLongError
		switch {
		case errors.As(err, &tooLong):
			err = s.refuse(nil, jsonrpc2.CodeInvalidRequest, tooLong.Error())
		case err != nil:
			return err
		default:
			// The params of a message that is JSON are set aside first:
			// what checkMessage and jsonrpc2 read is then short, however
			// long the params.
			var key json.RawMessage
			if json.Valid(body) {
				body, key = s.aside.put(body)
			}
			id, code, msg, request := checkMessage(body)
			if code == 0 {
				// jsonrpc2 reads the message itself, and may still
				// refuse it (an id that is no integer).
				err := json.Unmarshal(body, v)
				if err == nil && request {
					return nil
				}
				s.aside.take(key) // a response's are not read
				if err == nil {
					return nil
				}
				code, msg = jsonrpc2.CodeInvalidRequest, "invalid request: "+err.Error()
			} else {
				s.aside.take(key)
			}
			err = s.refuse(id, code, msg)
		}
		if err != nil {
			return err
		}
	}
}

// tooLongError is a message longer than the stream reads, skipped.
type tooLongError struct{ length, max int64 }

func (e *tooLongError) Error() string {
	return fmt.Sprintf("invalid request: the message is %d bytes long; the most the server reads is %d bytes", e.length, e.max)
}

// readMessage reads one message's headers and returns its body.
func (s *messageStream) readMessage() ([]byte, error) {
	length := int64(-1)
	for {
		line, err := s.in.ReadSlice('\n')
		if err != nil {
			if errors.Is(err, bufio.ErrBufferFull) {
				return nil, fmt.Errorf("a message header is longer than %d bytes", s.in.Size())
			}
			return nil, err
		}
		header := strings.TrimRight(string(line), "\r\n")
		if header == "" {
			break
		}
		name, value, ok := strings.Cut(header, ":")
		if !ok {
			return nil, fmt.Errorf("message header %q is not a name and a value", header)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("message header %q: the length is no number of bytes", header)
			}
			length = n
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("a message has no Content-Length header")
	}
	if length > s.max {
		if _, err := io.CopyN(io.Discard, s.in, length); err != nil {
			return nil, err
		}
		return nil, &tooLongError{length, s.max}
	}
	if length >= largeMessage {
		// The collector lets the heap grow to three times what it found
		// live (cmd/cairn sets GOGC=200): one that runs while a large
		// message is read finds the document it replaces, the message
		// and the new text live, and the messages after it then pile
		// up their garbage up to three times that. Collecting it before
		// each large message keeps the heap near what is live: a 16 MiB
		// document and its edits peaked at 200 MiB, 73 MiB now.
		runtime.GC()
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.in, body); err != nil {
		return nil, err
	}
	return body, nil
}

// errorResponse is the answer to a message the server could not read: its
// id when it had one it could read, null otherwise.
type errorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   jsonrpc2.Error  `json:"error"`
}

// refuse answers the message of id (nil when it has none the server could
// read) with an error.
func (s *messageStream) refuse(id json.RawMessage, code int64, msg string) error {
	if id == nil {
		id = json.RawMessage("null")
	}
	return s.WriteObject(errorResponse{JSONRPC: "2.0", ID: id, Error: jsonrpc2.Error{Code: code, Message: msg}})
}

// message is what the server reads of a message before handing it on: the
// members that make it a request, a notification or a response. params,
// however long, is skipped.
type message struct {
	JSONRPC *string         `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// checkMessage returns the id of a message when it has one the server can
// read (nil otherwise) and, when the message is no JSON or no JSON-RPC 2.0
// request, notification or response, the error code and message to answer
// it with; code 0 when it is one, and request says whether it is a request
// or a notification (it has a method).
func checkMessage(body []byte) (id json.RawMessage, code int64, msg string, request bool) {
	invalid := func(format string, args ...any) (json.RawMessage, int64, string, bool) {
		return id, jsonrpc2.CodeInvalidRequest, "invalid request: " + fmt.Sprintf(format, args...), false
	}
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return nil, jsonrpc2.CodeParseError, "parse error: " + err.Error(), false
		}
		if trimmed := bytes.TrimLeft(body, " \t\r\n"); len(trimmed) > 0 && trimmed[0] != '{' {
			return invalid("a message is a JSON object (batches are not supported)")
		}
		return invalid("%v", err)
	}
	switch idKind(m.ID) {
	case '"', '0':
		id = m.ID
	case 'n', 0:
	default:
		return invalid("an id is a string, a number or null")
	}
	switch {
	case m.JSONRPC != nil && *m.JSONRPC != "2.0":
		return invalid(`"jsonrpc" is %q, not "2.0"`, *m.JSONRPC)
	case m.Method != nil && idKind(m.Method) != '"':
		return invalid(`"method" is not a string`)
	case m.Method != nil && (m.Result != nil || m.Error != nil):
		return invalid(`a message with a "method" has no "result" or "error"`)
	case m.Method == nil && m.Result == nil && m.Error == nil:
		return invalid(`a message has a "method", a "result" or an "error"`)
	}
	return id, 0, "", m.Method != nil
}

// idKind is the kind of the JSON value raw: '"' for a string, '0' for a
// number, 'n' for null, 0 when it is absent, another byte for another
// kind.
func idKind(raw json.RawMessage) byte {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return 0
	case raw[0] == '"':
		return '"'
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		return '0'
	case raw[0] == 'n':
		return 'n'
	}
	return raw[0]
}

// paramsAside holds the params of the requests and notifications a
// messageStream hands on to jsonrpc2 without them, each under a number that
// stands in for them in the message, until the handler takes them back
// (take): they are a slice of the message read, never copied, and decoded
// once, by the handler. A client cannot forge a number: every message that
// has params gets its own in their place.
type paramsAside struct {
	mu   sync.Mutex
	held map[int64]json.RawMessage
	last int64
}

// put returns body with the value of its member "params" replaced by a
// number, the key under which it holds that value, and the key; body as it
// is and no key when it has no params.
func (a *paramsAside) put(body []byte) (handed []byte, key json.RawMessage) {
	start, end, ok := paramsSpan(body)
	if !ok {
		return body, nil
	}
	a.mu.Lock()
	a.last++
	n := a.last
	if a.held == nil {
		a.held = map[int64]json.RawMessage{}
	}
	a.held[n] = body[start:end:end]
	a.mu.Unlock()
	key = strconv.AppendInt(nil, n, 10)
	handed = make([]byte, 0, len(body)-(end-start)+len(key))
	handed = append(append(append(handed, body[:start]...), key...), body[end:]...)
	return handed, key
}

// take returns the params held under key, a number put returned, and
// forgets them; params that are no such key are returned as they are.
func (a *paramsAside) take(key json.RawMessage) json.RawMessage {
	n, err := strconv.ParseInt(string(bytes.TrimSpace(key)), 10, 64)
	if err != nil {
		return key
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	params, ok := a.held[n]
	if !ok {
		return key
	}
	delete(a.held, n)
	return params
}

// paramsSpan returns where the value of the member "params" of body, a
// JSON object known valid, lies: of the last such member, the one a decoder
// keeps. ok is false when it has none.
func paramsSpan(body []byte) (start, end int, ok bool) {
	i := skipSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return 0, 0, false
	}
	for i++; ; {
		i = skipSpace(body, i)
		if i >= len(body) || body[i] == '}' {
			return start, end, ok
		}
		keyEnd := stringEnd(body, i)
		key := body[i:keyEnd]
		i = skipSpace(body, skipSpace(body, keyEnd)+1) // past the ":"
		valueEnd := jsonValueEnd(body, i)
		if isParamsKey(key) {
			start, end, ok = i, valueEnd, true
		}
		if i = skipSpace(body, valueEnd); i < len(body) && body[i] == ',' {
			i++
		}
	}
}

// isParamsKey reports whether key, a JSON string, is "params" once
// unescaped.
func isParamsKey(key []byte) bool {
	if string(key) == `"params"` {
		return true
	}
	var s string
	return bytes.IndexByte(key, '\\') >= 0 && json.Unmarshal(key, &s) == nil && s == "params"
}

// skipSpace returns the offset of the first byte of b from i on that is no
// JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the offset just past the valid JSON string that starts
// at offset i of b: at the first quote after it that an even number of
// backslashes precedes.
func stringEnd(b []byte, i int) int {
	for i++; ; i++ {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b)
		}
		i += j
		backslashes := 0
		for k := i - 1; b[k] == '\\'; k-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return i + 1
		}
	}
}

// jsonValueEnd returns the offset just past the valid JSON value that
// starts at offset i of b.
func jsonValueEnd(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = stringEnd(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) && strings.IndexByte(",}] \t\r\n", b[i]) < 0 {
		i++
	}
	return i
}

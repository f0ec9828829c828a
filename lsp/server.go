package lsp

import (
	"context"
	"path/filepath"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/ir"
)

// server is the state of one connection: the open documents and the
// diagnostics last published for each.
type server struct {
	ctx     context.Context
	opts    Options
	handler protocol.Handler
	// aside holds the params of the messages the stream hands on.
	aside *paramsAside

	mu   sync.Mutex
	conn *jsonrpc2.Conn
	docs map[protocol.DocumentUri]*document
	// checks are each document's pending check, and gen the number of
	// the latest asked for: an older check's result is dropped.
	checks map[protocol.DocumentUri]*time.Timer
	gen    map[protocol.DocumentUri]int
	// published are the diagnostics last published for each document, for
	// the hovers on their rules and the fixes of code actions, and
	// publishedOf the document (the text) they were found in.
	published   map[protocol.DocumentUri][]ir.Diagnostic
	publishedOf map[protocol.DocumentUri]*document
	running     sync.WaitGroup
	// publishing keeps a check's test of its gen and its notification
	// together, so that an older check never publishes after a newer.
	publishing sync.Mutex

	shutdown, exited bool
}

func newServer(ctx context.Context, o Options) *server {
	s := &server{
		ctx:         ctx,
		opts:        o,
		docs:        map[protocol.DocumentUri]*document{},
		checks:      map[protocol.DocumentUri]*time.Timer{},
		gen:         map[protocol.DocumentUri]int{},
		published:   map[protocol.DocumentUri][]ir.Diagnostic{},
		publishedOf: map[protocol.DocumentUri]*document{},
		aside:       &paramsAside{},
	}
	s.handler = protocol.Handler{
		Initialize:                 s.initialize,
		Initialized:                func(*glsp.Context, *protocol.InitializedParams) error { return nil },
		Shutdown:                   s.shutdownRequest,
		Exit:                       func(*glsp.Context) error { return nil },
		SetTrace:                   func(*glsp.Context, *protocol.SetTraceParams) error { return nil },
		CancelRequest:              func(*glsp.Context, *protocol.CancelParams) error { return nil },
		TextDocumentDidSave:        s.didSave,
		TextDocumentDidClose:       s.didClose,
		TextDocumentHover:          s.hover,
		TextDocumentCompletion:     s.completion,
		TextDocumentDefinition:     s.definition,
		TextDocumentDocumentSymbol: s.documentSymbol,
		TextDocumentCodeAction:     s.codeAction,
		WorkspaceDidChangeConfiguration: func(*glsp.Context, *protocol.DidChangeConfigurationParams) error {
			return nil
		},
	}
	return s
}

func (s *server) setConn(c *jsonrpc2.Conn) {
	s.mu.Lock()
	s.conn = c
	s.mu.Unlock()
}

// stop drops the pending checks and waits for the running ones.
func (s *server) stop() {
	s.mu.Lock()
	for uri := range s.checks {
		s.cancel(uri)
	}
	s.mu.Unlock()
	s.running.Wait()
}

func (s *server) initialize(_ *glsp.Context, _ *protocol.InitializeParams) (any, error) {
	yes := true
	full := protocol.TextDocumentSyncKindFull
	return protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			TextDocumentSync: protocol.TextDocumentSyncOptions{
				OpenClose: &yes,
				Change:    &full,
				Save:      protocol.SaveOptions{},
			},
			HoverProvider:          true,
			CompletionProvider:     &protocol.CompletionOptions{TriggerCharacters: []string{"\"", "=", ":", ".", "[", " "}},
			DefinitionProvider:     true,
			DocumentSymbolProvider: true,
			CodeActionProvider: protocol.CodeActionOptions{
				CodeActionKinds: []protocol.CodeActionKind{protocol.CodeActionKindQuickFix},
			},
		},
		ServerInfo: &protocol.InitializeResultServerInfo{Name: "cairn", Version: &s.opts.Version},
	}, nil
}

func (s *server) shutdownRequest(*glsp.Context) error {
	s.shutdown = true
	return nil
}

// home is $CAIRN_HOME of env as a file's folder sees it.
func home(env []string, path string) string {
	return config.Home(env, filepath.Dir(path), false)
}

func (s *server) didOpen(_ *glsp.Context, p *protocol.DidOpenTextDocumentParams) error {
	td := p.TextDocument
	d := newDocument(td.URI, td.Version, td.Text, home(s.opts.Env, pathOf(td.URI)))
	s.mu.Lock()
	s.docs[td.URI] = d
	s.mu.Unlock()
	s.schedule(td.URI, 0, false)
	return nil
}

func (s *server) didChange(_ *glsp.Context, p *protocol.DidChangeTextDocumentParams) error {
	s.mu.Lock()
	d, ok := s.docs[p.TextDocument.URI]
	if ok {
		text := d.text
		for _, c := range p.ContentChanges {
			switch c := c.(type) {
			case protocol.TextDocumentContentChangeEventWhole:
				text = c.Text
			case protocol.TextDocumentContentChangeEvent:
				// The server asks for whole documents; a client that
				// sends a range anyway gets it applied.
				text = applyChange(indexText(text), c)
			}
		}
		nd := *d
		nd.version = p.TextDocument.Version
		nd.setText(text, home(s.opts.Env, d.path))
		s.docs[p.TextDocument.URI] = &nd
	}
	s.mu.Unlock()
	if ok {
		s.schedule(p.TextDocument.URI, s.opts.Debounce, false)
	}
	return nil
}

// applyChange applies a ranged change to t and returns the text it makes.
func applyChange(t indexedText, c protocol.TextDocumentContentChangeEvent) string {
	start, end := t.offset(c.Range.Start), t.offset(c.Range.End)
	if end < start {
		start, end = end, start
	}
	return t.text[:start] + c.Text + t.text[end:]
}

// offset is the byte offset in t of an LSP position.
func (t *indexedText) offset(p protocol.Position) int {
	p = t.clamp(p)
	return min(t.lineStart(int(p.Line))+t.byteCol(p), len(t.text))
}

func (s *server) didSave(_ *glsp.Context, p *protocol.DidSaveTextDocumentParams) error {
	s.schedule(p.TextDocument.URI, 0, true)
	return nil
}

func (s *server) didClose(ctx *glsp.Context, p *protocol.DidCloseTextDocumentParams) error {
	uri := p.TextDocument.URI
	s.mu.Lock()
	_, had := s.published[uri]
	delete(s.docs, uri)
	delete(s.published, uri)
	delete(s.publishedOf, uri)
	s.cancel(uri)
	s.gen[uri]++
	s.mu.Unlock()
	if had {
		ctx.Notify(protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{URI: uri, Diagnostics: []protocol.Diagnostic{}})
	}
	return nil
}

// schedule checks a document after delay, with the whole rule set (no
// preflight) when full, else the rules that depend on the file alone; a
// check asked for later replaces it.
func (s *server) schedule(uri protocol.DocumentUri, delay time.Duration, full bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.docs[uri] == nil {
		return
	}
	s.cancel(uri)
	s.gen[uri]++
	gen := s.gen[uri]
	s.running.Add(1)
	s.checks[uri] = time.AfterFunc(delay, func() {
		defer s.running.Done()
		s.check(uri, gen, full)
	})
}

// cancel stops the pending check of uri; s.mu is held.
func (s *server) cancel(uri protocol.DocumentUri) {
	if t := s.checks[uri]; t != nil && t.Stop() {
		// A timer stopped before it fired runs nothing.
		s.running.Done()
	}
	delete(s.checks, uri)
}

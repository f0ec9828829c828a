// Package lsp is cairn's language server: diagnostics from the check
// pipeline, hovers, completions, definitions, symbols and quick fixes for
// process files (TOML, HCL, cards), and the front-ends' diagnostics, hovers
// and completions for the config, stubs and test files, over JSON-RPC.
package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// Options are what the command line says of the server.
type Options struct {
	// Version is cairn's, told to the client.
	Version string
	// Debounce is how long after the last change a document is checked.
	Debounce time.Duration
	// Env is cairn's environment, whole, which main reads once: the git
	// that reads a document's repository runs in it.
	Env []string
}

// DefaultDebounce is Options.Debounce when the command line gives none:
// long enough to check once per burst of typing, short enough to feel
// live.
const DefaultDebounce = 200 * time.Millisecond

// Serve runs the server on the messages read from in, answering on out,
// until the client sends exit or closes in, or ctx ends; a message that is
// no JSON-RPC is answered with its error and passed by. It returns an error
// when exit came without shutdown before it, as the protocol asks.
func Serve(ctx context.Context, in io.Reader, out io.Writer, o Options) error {
	if o.Debounce <= 0 {
		o.Debounce = DefaultDebounce
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := newServer(ctx, o)
	stream := newMessageStream(in, out)
	s.aside = stream.aside
	conn := jsonrpc2.NewConn(ctx, stream, jsonrpc2.HandlerWithError(s.handle))
	select {
	case <-conn.DisconnectNotify():
	case <-ctx.Done():
		conn.Close()
	}
	s.stop()
	if s.exited && !s.shutdown {
		return fmt.Errorf("exit without shutdown")
	}
	return nil
}

// handle answers one message through glsp's protocol handler, as glsp's own
// server does, with the connection kept for the notifications the server
// sends on its own (diagnostics after a debounce).
func (s *server) handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	s.setConn(conn)
	gctx := &glsp.Context{
		Method: req.Method,
		Notify: func(method string, params any) { _ = conn.Notify(ctx, method, params) },
		Call:   func(method string, params, result any) { _ = conn.Call(ctx, method, params, result) },
	}
	if req.Params != nil {
		gctx.Params = s.aside.take(*req.Params)
	} else {
		gctx.Params = json.RawMessage("null")
	}
	var r any
	var validMethod, validParams bool
	var err error
	if handled, valid, herr := s.handleText(gctx); handled {
		validMethod, validParams, err = true, valid, herr
	} else {
		r, validMethod, validParams, err = s.handler.Handle(gctx)
	}
	if req.Method == protocol.MethodExit {
		s.exited = true
		return nil, conn.Close()
	}
	switch {
	case !validMethod:
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: fmt.Sprintf("method not supported: %s", req.Method)}
	case !validParams:
		msg := "invalid params"
		if err != nil {
			msg = err.Error()
		}
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: msg}
	case err != nil:
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: err.Error()}
	}
	return r, nil
}

package lsp

import (
	"fmt"
	"path/filepath"
	"unsafe"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/internal/source"
	"github.com/cairn-dev/cairn/ir"
	"github.com/cairn-dev/cairn/load"
	"github.com/cairn-dev/cairn/stubs"
)

// check checks a document and publishes its diagnostics, unless a later
// check was asked for meanwhile (gen is no longer the latest).
func (s *server) check(uri protocol.DocumentUri, gen int, full bool) {
	s.mu.Lock()
	d := s.docs[uri]
	s.mu.Unlock()
	if d == nil {
		return
	}
	diags := s.diagnose(d, full)
	s.publishing.Lock()
	defer s.publishing.Unlock()
	s.mu.Lock()
	conn := s.conn
	current := s.gen[uri] == gen && s.docs[uri] != nil
	if current {
		s.published[uri] = diags
		s.publishedOf[uri] = d
	}
	s.mu.Unlock()
	if !current || conn == nil {
		return
	}
	out := make([]protocol.Diagnostic, 0, len(diags))
	for _, x := range diags {
		out = append(out, d.diagnostic(x))
	}
	version := protocol.UInteger(d.version)
	_ = conn.Notify(s.ctx, protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{
		URI: uri, Version: &version, Diagnostics: out,
	})
}

// diagnose is what cairn says of a document: a process file's check (the
// rules that depend on the file alone, or, when full, every rule without
// preflight), another file's front-end; only what points into the document,
// or nowhere.
func (s *server) diagnose(d *document, full bool) []ir.Diagnostic {
	if len(d.text) > source.MaxFileSize {
		// As cairn check refuses such a file; positions past it would
		// not fit ir.Pos either.
		return []ir.Diagnostic{{
			Rule: ir.RuleSyntax, Severity: ir.Error,
			Range:   ir.Range{File: d.path, Start: ir.Pos{Line: 1, Column: 1}, End: ir.Pos{Line: 1, Column: 1}},
			Message: fmt.Sprintf("the document is larger than %d MiB, the most cairn reads of a file", source.MaxFileSize>>20),
		}}
	}
	src := d.bytes()
	var diags []ir.Diagnostic
	switch d.kind {
	case kindTOML, kindHCL, kindCard:
		ws := load.Open(s.ctx, filepath.Dir(d.path), load.Options{Lint: !full, NoPreflight: true, Env: s.opts.Env})
		diags = ws.CheckSource(s.ctx, d.path, src)
	case kindConfig:
		_, diags = config.Read(d.path, src)
	case kindStubs:
		_, diags = stubs.Read(d.path, src)
	case kindTest:
		_, diags = stubs.ReadTest(d.path, src)
	}
	out := diags[:0:0]
	for _, x := range diags {
		if x.Range.File == d.path || x.Range.File == "" {
			out = append(out, x)
		}
	}
	return out
}

// bytes is the document's text seen as bytes, for the front-ends: not a
// copy of it, which cost as much as the document at each check. The
// front-ends only read a file's bytes (tomldoc's tree shares them, and says
// they must not change), and nothing writes into a document's text.
func (d *document) bytes() []byte {
	return unsafe.Slice(unsafe.StringData(d.text), len(d.text))
}

// diagnostic is x as LSP publishes it: its rule as its code, its related
// ranges in this document as related information.
func (d *document) diagnostic(x ir.Diagnostic) protocol.Diagnostic {
	sev := protocol.DiagnosticSeverityInformation
	switch x.Severity {
	case ir.Error:
		sev = protocol.DiagnosticSeverityError
	case ir.Warning:
		sev = protocol.DiagnosticSeverityWarning
	}
	source := "cairn"
	out := protocol.Diagnostic{
		Range:    d.rng(x.Range),
		Severity: &sev,
		Source:   &source,
		Message:  x.Message,
	}
	if x.Rule != "" {
		out.Code = &protocol.IntegerOrString{Value: x.Rule}
	}
	for _, r := range x.Related {
		if r.Range.File == d.path {
			out.RelatedInformation = append(out.RelatedInformation, protocol.DiagnosticRelatedInformation{
				Location: protocol.Location{URI: d.uri, Range: d.rng(r.Range)},
				Message:  r.Message,
			})
		}
	}
	return out
}

// Package modeldouble is a scripted stand-in, on a local port, for the model
// APIs the agent CLIs call (Anthropic Messages, OpenAI Responses and chat
// completions, Gemini), for tests that run the real CLIs against it.
package modeldouble

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// API names the wire protocol a request spoke.
type API string

// The APIs the double answers.
const (
	Anthropic API = "anthropic" // POST /v1/messages (claude)
	Responses API = "responses" // POST /v1/responses (codex)
	Chat      API = "chat"      // POST /v1/chat/completions (OpenAI-compatible providers)
	Gemini    API = "gemini"    // POST /v1beta/models/M:generateContent (gemini)
)

// Server is a running double. Requests to the model endpoints that offer
// tools are the agent's turns and are answered from the script in order
// (or from a routed script, see Route); the CLIs' side requests (session titles, claude's auto-mode classifier,
// token counts, model lists, reachability probes) are answered without
// spending a turn. Every request is recorded, with the credential it
// carried (Request.APIKey, Request.BearerToken). The double takes any
// credential, or none, except that its Anthropic API refuses a bearer
// token without OAuthBeta, as Anthropic's does.
type Server struct {
	// URL is the base address, http://127.0.0.1:PORT, without a path.
	URL string

	srv *httptest.Server

	mu       sync.Mutex
	script   []Turn
	next     int
	routes   []*route
	calls    int
	requests []Request
}

// route is a script of its own for the turns whose user texts hold mark.
type route struct {
	mark   string
	script []Turn
	next   int
}

// Request is one request the double received.
type Request struct {
	API    API // "" for a path the double does not know (answered 404)
	Method string
	Path   string // with the query, as sent
	Header http.Header
	// Raw is the body as sent; Body is it parsed when it is a JSON object.
	Raw  []byte
	Body map[string]any
	// Turn is the index in the script of the turn that answered it, or -1
	// for a side request.
	Turn int
	// Route is the mark of the routed script that answered it (see
	// Server.Route), "" for the main script or a side request.
	Route string
	// Stream is whether the answer was streamed (SSE).
	Stream bool
	// Billed is the usage the answer reported, as cairn counts it (the
	// input without what was read from the cache); zero for an error, a
	// side request with no usage, or one not answered yet.
	Billed Usage

	index int // in Server.requests
}

// APIKey is the API key r carried in x-api-key, as Anthropic's API takes
// one (claude's ANTHROPIC_API_KEY), or "" for none.
func (r Request) APIKey() string { return r.Header.Get("x-api-key") }

// BearerToken is the token r carried as Authorization: Bearer TOKEN, or ""
// for none: claude's OAuth token (CLAUDE_CODE_OAUTH_TOKEN, sent with
// OAuthBeta), or an OpenAI-compatible API's key.
func (r Request) BearerToken() string {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// Usage is what an answer billed, in the fields cairn records (ir.Usage):
// input tokens not read from the cache, output tokens, and the input
// tokens read from and written to the prompt cache.
type Usage struct {
	InputTokens, OutputTokens, CacheReadTokens, CacheWriteTokens int64
}

// Plus is u + v.
func (u Usage) Plus(v Usage) Usage {
	return Usage{u.InputTokens + v.InputTokens, u.OutputTokens + v.OutputTokens,
		u.CacheReadTokens + v.CacheReadTokens, u.CacheWriteTokens + v.CacheWriteTokens}
}

// New starts a double on 127.0.0.1 at a free port that answers the agent's
// turns with script, in order. When the script runs out every further turn
// is answered with the text "done.". Close stops it.
func New(script ...Turn) *Server {
	s := &Server{script: script}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Route answers the turns whose user texts (Request.UserTexts) hold mark
// from script, in order, apart from the main script and every other route:
// sessions that run at once, each with a mark of its own in its prompt (a
// for_each's item), each get their own conversation whatever the order
// their requests arrive in. A turn holding the marks of several routes
// takes the first routed. When the script runs out every further turn of
// the route is answered with the text "done.". Route before the CLIs start.
func (s *Server) Route(mark string, script ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.routes = append(s.routes, &route{mark: mark, script: script})
}

// Close stops the double, cutting any slow reply short.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Turns returns the requests that were answered from the script, in order.
func (s *Server) Turns() []Request {
	var turns []Request
	for _, r := range s.Requests() {
		if r.Turn >= 0 {
			turns = append(turns, r)
		}
	}
	return turns
}

// Billed is what every answer so far billed, summed: the usage the CLI
// was told it spent.
func (s *Server) Billed() Usage {
	var total Usage
	for _, r := range s.Requests() {
		total = total.Plus(r.Billed)
	}
	return total
}

// Unknown returns the requests to paths the double does not serve.
func (s *Server) Unknown() []Request {
	var unknown []Request
	for _, r := range s.Requests() {
		if r.API == "" {
			unknown = append(unknown, r)
		}
	}
	return unknown
}

// ToolResults returns every tool result the CLI sent back, in the order
// first seen, each once (the CLIs resend the whole conversation each turn).
func (s *Server) ToolResults() []ToolResult {
	var results []ToolResult
	seen := map[string]bool{}
	for _, r := range s.Requests() {
		for _, tr := range r.ToolResults() {
			key := tr.CallID + "\x00" + tr.Output
			if seen[key] {
				continue
			}
			seen[key] = true
			results = append(results, tr)
		}
	}
	return results
}

// record appends r and, for a turn, picks the script's turn that answers it.
func (s *Server) record(r Request, turn bool) (Request, Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var t Turn
	r.Turn = -1
	r.index = len(s.requests)
	if turn {
		script, next := s.script, &s.next
		if rt := s.routeOf(r); rt != nil {
			r.Route, script, next = rt.mark, rt.script, &rt.next
		}
		r.Turn = *next
		switch {
		case *next < len(script):
			t = script[*next]
			if !t.forever {
				*next++
			}
		default:
			t = Text("done.")
			*next++
		}
	}
	s.requests = append(s.requests, r)
	return r, t
}

// routeOf is the first route whose mark one of r's user texts holds, or nil.
func (s *Server) routeOf(r Request) *route {
	if len(s.routes) == 0 {
		return nil
	}
	texts := r.UserTexts()
	for _, rt := range s.routes {
		for _, text := range texts {
			if strings.Contains(text, rt.mark) {
				return rt
			}
		}
	}
	return nil
}

// callID returns a fresh id for a tool call, with the vendor's prefix.
func (s *Server) callID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	return fmt.Sprintf("%s%06d", prefix, s.calls)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	req := Request{Method: r.Method, Path: r.URL.RequestURI(), Header: r.Header.Clone(), Raw: raw}
	if len(bytes.TrimSpace(raw)) > 0 {
		var body map[string]any
		if json.Unmarshal(raw, &body) == nil {
			req.Body = body
		}
	}
	path := r.URL.Path
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/messages/count_tokens"):
		req.API = Anthropic
		if s.refuseOAuth(w, req) {
			return
		}
		s.record(req, false)
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": approxTokens(raw)})
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/messages"):
		req.API = Anthropic
		req.Stream = truthy(req.Body["stream"])
		if s.refuseOAuth(w, req) {
			return
		}
		s.answer(w, r, req, len(anthropicTools(req.Body)) > 0, anthropicReply)
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/responses"):
		req.API = Responses
		req.Stream = truthy(req.Body["stream"])
		s.answer(w, r, req, len(responsesTools(req.Body)) > 0, responsesReply)
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/chat/completions"):
		req.API = Chat
		req.Stream = truthy(req.Body["stream"])
		s.answer(w, r, req, len(chatTools(req.Body)) > 0, chatReply)
	case r.Method == http.MethodPost && strings.Contains(path, "/models/") && strings.HasSuffix(path, ":countTokens"):
		req.API = Gemini
		s.record(req, false)
		writeJSON(w, http.StatusOK, map[string]any{"totalTokens": approxTokens(raw)})
	case r.Method == http.MethodPost && strings.Contains(path, "/models/") &&
		(strings.HasSuffix(path, ":generateContent") || strings.HasSuffix(path, ":streamGenerateContent")):
		req.API = Gemini
		req.Stream = strings.HasSuffix(path, ":streamGenerateContent")
		s.answer(w, r, req, len(geminiTools(req.Body)) > 0, geminiReply)
	case r.Method == http.MethodGet && strings.HasSuffix(path, "/models"):
		req.API = modelsAPI(r)
		if req.API == Anthropic && s.refuseOAuth(w, req) {
			return
		}
		s.record(req, false)
		writeJSON(w, http.StatusOK, modelList(req.API))
	case path == "/api/hello":
		// Claude Code's reachability probe of its base URL.
		req.API = Anthropic
		s.record(req, false)
		w.WriteHeader(http.StatusOK)
	default:
		s.record(req, false)
		writeJSON(w, http.StatusNotFound, map[string]any{
			"error": map[string]any{"type": "not_found_error", "message": fmt.Sprintf("modeldouble: no route for %s %s", r.Method, path)},
		})
	}
}

// reply writes the answer to one turn (or side request) in a vendor's shape.
type reply func(s *Server, w http.ResponseWriter, req Request, t Turn)

// answer records req, waits out a slow turn, then answers it with the
// script's turn when it offers tools, else as a side request. A slow
// streamed answer sends its headers first and waits before the first
// event, as a model slow to its first token does.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, req Request, offersTools bool, write reply) {
	req, t := s.record(req, offersTools)
	if req.Turn < 0 {
		t = Text("ok")
	}
	if t.delay > 0 && req.Stream && t.status == 0 {
		newSSE(w)
		w = started{w}
	}
	if t.delay > 0 {
		timer := time.NewTimer(t.delay)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-r.Context().Done():
			return
		}
	}
	if t.status != 0 {
		writeStatus(w, req.API, t.status, t.text, t.retryAfter)
		return
	}
	write(s, w, req, t)
	if req.API != Chat || !req.Stream || truthy(object(req.Body["stream_options"])["include_usage"]) {
		s.bill(req)
	}
}

// bill records what the answer to req reported it used: every answer
// reports approxTokens of its request as input besides the cache's and
// the fixed figures below (a streamed chat completion only when asked
// to include its usage).
func (s *Server) bill(req Request) {
	u := Usage{InputTokens: int64(approxTokens(req.Raw)), OutputTokens: OutputTokens, CacheReadTokens: CacheReadTokens}
	if req.API == Anthropic {
		u.CacheWriteTokens = CacheWriteTokens
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests[req.index].Billed = u
}

// started is a response whose headers are sent: newSSE on it sends them
// no second time.
type started struct{ http.ResponseWriter }

func (started) WriteHeader(int) {}

func (w started) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// writeStatus answers with an HTTP error in the vendor's error shape; a
// 429 with a retryAfter says when to retry as the vendor does.
func writeStatus(w http.ResponseWriter, api API, status int, message string, retryAfter time.Duration) {
	if message == "" {
		message = http.StatusText(status)
	}
	hint := status == http.StatusTooManyRequests && retryAfter > 0
	seconds := int64((retryAfter + time.Second - 1) / time.Second)
	switch api {
	case Anthropic:
		kind := "api_error"
		switch status {
		case http.StatusTooManyRequests:
			kind = "rate_limit_error"
		case 529:
			kind = "overloaded_error"
		case http.StatusBadRequest:
			kind = "invalid_request_error"
		case http.StatusUnauthorized:
			kind = "authentication_error"
		}
		if hint {
			w.Header().Set("retry-after", strconv.FormatInt(seconds, 10))
		}
		writeJSON(w, status, map[string]any{"type": "error", "error": map[string]any{"type": kind, "message": message}})
	case Gemini:
		state := "INTERNAL"
		if status == http.StatusTooManyRequests {
			state = "RESOURCE_EXHAUSTED"
		}
		e := map[string]any{"code": status, "message": message, "status": state}
		if hint {
			delay := strconv.FormatFloat(retryAfter.Seconds(), 'f', -1, 64) + "s"
			e["message"] = message + " Please retry in " + delay + "."
			e["details"] = []any{
				map[string]any{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []any{map[string]any{
					"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
					"quotaId":     "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
				}}},
				map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay},
			}
		}
		writeJSON(w, status, map[string]any{"error": e})
	default:
		kind := "server_error"
		if status == http.StatusTooManyRequests {
			kind = "rate_limit_exceeded"
		}
		if hint {
			w.Header().Set("retry-after", strconv.FormatInt(seconds, 10))
			message += fmt.Sprintf(" Please try again in %ds.", seconds)
		}
		writeJSON(w, status, map[string]any{"error": map[string]any{"type": kind, "code": kind, "message": message}})
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// sse writes server-sent events, flushing each.
type sse struct{ w http.ResponseWriter }

func newSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	return sse{w}
}

// event writes one event; an empty name writes a data line only.
func (e sse) event(name string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("modeldouble: encode event: %v", err))
	}
	if name != "" {
		fmt.Fprintf(e.w, "event: %s\n", name)
	}
	fmt.Fprintf(e.w, "data: %s\n\n", data)
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (e sse) done() {
	fmt.Fprint(e.w, "data: [DONE]\n\n")
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

// approxTokens is a token count good enough for the CLIs' context meters.
func approxTokens(raw []byte) int { return len(raw)/4 + 1 }

// The usage every answer reports besides its input tokens (approxTokens of
// the request): fixed and above zero, in each API's own fields, so that a
// CLI's sums of what a session used, and the cost it computes from them,
// are figures a test can see arrive.
const (
	// OutputTokens is every answer's output tokens.
	OutputTokens = 10
	// CacheReadTokens is every answer's input tokens read from the
	// prompt cache (within its input tokens, or beside them for
	// Anthropic's API, which counts them apart).
	CacheReadTokens = 4
	// CacheWriteTokens is every Anthropic answer's input tokens written
	// to the prompt cache; the other APIs report none.
	CacheWriteTokens = 2
)

func truthy(v any) bool {
	b, _ := v.(bool)
	return b
}

// modelsAPI tells an Anthropic model listing from an OpenAI one by the
// headers the SDKs send.
func modelsAPI(r *http.Request) API {
	if r.Header.Get("anthropic-version") != "" || r.Header.Get("x-api-key") != "" {
		return Anthropic
	}
	return Responses
}

// modelList lists the one model the double serves, in the API's shape.
func modelList(api API) map[string]any {
	const id = "double-model"
	if api == Anthropic {
		model := map[string]any{"type": "model", "id": id, "display_name": id, "created_at": "2025-01-01T00:00:00Z"}
		return map[string]any{"data": []any{model}, "has_more": false, "first_id": id, "last_id": id}
	}
	model := map[string]any{"id": id, "object": "model", "created": 1735689600, "owned_by": "modeldouble"}
	return map[string]any{"object": "list", "data": []any{model}}
}

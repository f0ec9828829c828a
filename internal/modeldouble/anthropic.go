package modeldouble

import (
	"net/http"
	"strings"
)

// anthropicTools is the tools a Messages request offers.
func anthropicTools(body map[string]any) []offered {
	var tools []offered
	for _, t := range list(body["tools"]) {
		if name := str(object(t)["name"]); name != "" {
			tools = append(tools, offered{name: name})
		}
	}
	return tools
}

// anthropicReply answers a Messages request: a text block, or a tool_use
// block with stop_reason "tool_use".
func anthropicReply(s *Server, w http.ResponseWriter, req Request, t Turn) {
	model := str(req.Body["model"])
	block := map[string]any{"type": "text", "text": t.text}
	stop := "end_turn"
	var call toolCall
	if t.kind == structuredTurn && offers(anthropicTools(req.Body), StructuredOutputTool) {
		call = structuredCall(t)
		block = map[string]any{"type": "tool_use", "id": s.callID("toolu_double"), "name": call.name, "input": call.args}
		stop = "tool_use"
	}
	if t.kind == shellTurn || t.kind == writeTurn {
		call = callFor(t, req, anthropicTools(req.Body))
		block = map[string]any{"type": "tool_use", "id": s.callID("toolu_double"), "name": call.name, "input": call.args}
		stop = "tool_use"
	}
	id := s.callID("msg_double")
	usage := map[string]any{"input_tokens": approxTokens(req.Raw), "output_tokens": OutputTokens, "cache_creation_input_tokens": CacheWriteTokens, "cache_read_input_tokens": CacheReadTokens}
	if !req.Stream {
		writeJSON(w, http.StatusOK, map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": model,
			"content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
		})
		return
	}
	e := newSSE(w)
	e.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": usage["input_tokens"], "output_tokens": 1, "cache_creation_input_tokens": CacheWriteTokens, "cache_read_input_tokens": CacheReadTokens},
	}})
	switch block["type"] {
	case "text":
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": t.text}})
	case "tool_use":
		start := map[string]any{"type": "tool_use", "id": block["id"], "name": block["name"], "input": map[string]any{}}
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": start})
		e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": call.arguments()}})
	}
	e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	e.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": OutputTokens}})
	e.event("message_stop", map[string]any{"type": "message_stop"})
}

// anthropicResults is the tool_result blocks of a Messages request.
func anthropicResults(body map[string]any) []ToolResult {
	names := map[string]string{}
	var results []ToolResult
	for _, m := range list(body["messages"]) {
		for _, c := range list(object(m)["content"]) {
			block := object(c)
			switch str(block["type"]) {
			case "tool_use":
				names[str(block["id"])] = str(block["name"])
			case "tool_result":
				id := str(block["tool_use_id"])
				results = append(results, ToolResult{
					API: Anthropic, CallID: id, Name: names[id],
					Output: text(block["content"]), IsError: truthy(block["is_error"]),
				})
			}
		}
	}
	return results
}

// OAuthBeta is the anthropic-beta value without which Anthropic's API
// refuses an OAuth token: Claude Code sends the token `claude setup-token`
// prints (CLAUDE_CODE_OAUTH_TOKEN), or that of a /login, as
// Authorization: Bearer TOKEN with this beta, where it sends an API key as
// x-api-key.
const OAuthBeta = "oauth-2025-04-20"

// oauthUnsupported is the message of Anthropic's 401 for a bearer token
// sent without OAuthBeta.
const oauthUnsupported = "OAuth authentication is currently not supported."

// refuseOAuth answers req, a request to the Anthropic API, as Anthropic's
// does when it carries a bearer token but not OAuthBeta: 401, an
// authentication_error. It records req as a side request, which spends no
// turn, and reports whether it refused it; a request without a bearer
// token (with an x-api-key, or no credential) is left to be answered.
func (s *Server) refuseOAuth(w http.ResponseWriter, req Request) bool {
	if req.BearerToken() == "" || hasBeta(req.Header, OAuthBeta) {
		return false
	}
	s.record(req, false)
	writeStatus(w, Anthropic, http.StatusUnauthorized, oauthUnsupported, 0)
	return true
}

// hasBeta reports whether the anthropic-beta headers of h, each a
// comma-separated list, name beta.
func hasBeta(h http.Header, beta string) bool {
	for _, v := range h.Values("anthropic-beta") {
		for b := range strings.SplitSeq(v, ",") {
			if strings.TrimSpace(b) == beta {
				return true
			}
		}
	}
	return false
}

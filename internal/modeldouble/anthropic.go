package modeldouble

import (
	"net/http"
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

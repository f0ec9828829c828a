package modeldouble

import (
	"net/http"
	"time"
)

// responsesTools is the tools a Responses request offers: function tools
// by name, custom (freeform) tools flagged.
func responsesTools(body map[string]any) []offered {
	var tools []offered
	for _, t := range list(body["tools"]) {
		tool := object(t)
		name := str(tool["name"])
		if name == "" {
			continue
		}
		tools = append(tools, offered{name: name, freeform: str(tool["type"]) == "custom"})
	}
	return tools
}

// responsesReply answers a Responses request with one output item: an
// assistant message, a function_call or a custom_tool_call.
func responsesReply(s *Server, w http.ResponseWriter, req Request, t Turn) {
	var item map[string]any
	switch t.kind {
	case shellTurn, writeTurn:
		call := callFor(t, req, responsesTools(req.Body))
		if call.freeform {
			item = map[string]any{"type": "custom_tool_call", "id": s.callID("ctc_double"), "call_id": s.callID("call_double"), "name": call.name, "input": call.input, "status": "completed"}
		} else {
			item = map[string]any{"type": "function_call", "id": s.callID("fc_double"), "call_id": s.callID("call_double"), "name": call.name, "arguments": call.arguments(), "status": "completed"}
		}
	default:
		item = map[string]any{
			"type": "message", "id": s.callID("msg_double"), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": t.text, "annotations": []any{}}},
		}
	}
	id := s.callID("resp_double")
	input := approxTokens(req.Raw) + CacheReadTokens
	usage := map[string]any{
		"input_tokens": input, "input_tokens_details": map[string]any{"cached_tokens": CacheReadTokens},
		"output_tokens": OutputTokens, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
		"total_tokens": input + OutputTokens,
	}
	response := map[string]any{
		"id": id, "object": "response", "created_at": time.Now().Unix(), "status": "completed",
		"model": str(req.Body["model"]), "output": []any{item}, "usage": usage,
	}
	if !req.Stream {
		writeJSON(w, http.StatusOK, response)
		return
	}
	e := newSSE(w)
	started := map[string]any{"id": id, "object": "response", "created_at": response["created_at"], "status": "in_progress", "model": response["model"], "output": []any{}}
	e.event("response.created", map[string]any{"type": "response.created", "sequence_number": 0, "response": started})
	e.event("response.in_progress", map[string]any{"type": "response.in_progress", "sequence_number": 1, "response": started})
	e.event("response.output_item.added", map[string]any{"type": "response.output_item.added", "sequence_number": 2, "output_index": 0, "item": item})
	if item["type"] == "message" {
		e.event("response.output_text.delta", map[string]any{"type": "response.output_text.delta", "sequence_number": 3, "item_id": item["id"], "output_index": 0, "content_index": 0, "delta": t.text})
	}
	e.event("response.output_item.done", map[string]any{"type": "response.output_item.done", "sequence_number": 4, "output_index": 0, "item": item})
	e.event("response.completed", map[string]any{"type": "response.completed", "sequence_number": 5, "response": response})
}

// responsesResults is the function_call_output and custom_tool_call_output
// items of a Responses request's input.
func responsesResults(body map[string]any) []ToolResult {
	names := map[string]string{}
	var results []ToolResult
	for _, i := range list(body["input"]) {
		item := object(i)
		switch str(item["type"]) {
		case "function_call", "custom_tool_call":
			names[str(item["call_id"])] = str(item["name"])
		case "function_call_output", "custom_tool_call_output":
			id := str(item["call_id"])
			results = append(results, ToolResult{API: Responses, CallID: id, Name: names[id], Output: text(item["output"])})
		}
	}
	return results
}

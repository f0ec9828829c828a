package modeldouble

import (
	"net/http"
	"time"
)

// chatTools is the function tools a chat completions request offers.
func chatTools(body map[string]any) []offered {
	var tools []offered
	for _, t := range list(body["tools"]) {
		if name := str(object(object(t)["function"])["name"]); name != "" {
			tools = append(tools, offered{name: name})
		}
	}
	return tools
}

// chatReply answers a chat completions request: an assistant message with
// content, or with one tool call and finish_reason "tool_calls".
func chatReply(s *Server, w http.ResponseWriter, req Request, t Turn) {
	message := t.text
	var calls []any
	if t.kind == shellTurn || t.kind == writeTurn {
		call := callFor(t, req, chatTools(req.Body))
		calls = []any{map[string]any{"index": 0, "id": s.callID("call_double"), "type": "function", "function": map[string]any{"name": call.name, "arguments": call.arguments()}}}
	}
	finish := "stop"
	if calls != nil {
		finish = "tool_calls"
	}
	id := s.callID("chatcmpl-double")
	created := time.Now().Unix()
	model := str(req.Body["model"])
	input := approxTokens(req.Raw) + CacheReadTokens
	usage := map[string]any{
		"prompt_tokens": input, "prompt_tokens_details": map[string]any{"cached_tokens": CacheReadTokens},
		"completion_tokens": OutputTokens, "total_tokens": input + OutputTokens,
	}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": message}
		if calls != nil {
			msg["content"] = nil
			msg["tool_calls"] = calls
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"id": id, "object": "chat.completion", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
			"usage":   usage,
		})
		return
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		}
	}
	e := newSSE(w)
	e.event("", chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	if calls != nil {
		e.event("", chunk(map[string]any{"tool_calls": calls}, nil))
	} else {
		e.event("", chunk(map[string]any{"content": message}, nil))
	}
	e.event("", chunk(map[string]any{}, finish))
	if truthy(object(req.Body["stream_options"])["include_usage"]) {
		e.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model, "choices": []any{}, "usage": usage})
	}
	e.done()
}

// chatResults is the tool messages of a chat completions request.
func chatResults(body map[string]any) []ToolResult {
	names := map[string]string{}
	var results []ToolResult
	for _, m := range list(body["messages"]) {
		msg := object(m)
		for _, c := range list(msg["tool_calls"]) {
			call := object(c)
			names[str(call["id"])] = str(object(call["function"])["name"])
		}
		if str(msg["role"]) == "tool" {
			id := str(msg["tool_call_id"])
			results = append(results, ToolResult{API: Chat, CallID: id, Name: names[id], Output: text(msg["content"])})
		}
	}
	return results
}

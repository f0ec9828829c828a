package modeldouble

import (
	"net/http"
)

// geminiTools is the function declarations a generateContent request
// offers.
func geminiTools(body map[string]any) []offered {
	var tools []offered
	for _, t := range list(body["tools"]) {
		for _, d := range list(object(t)["functionDeclarations"]) {
			if name := str(object(d)["name"]); name != "" {
				tools = append(tools, offered{name: name})
			}
		}
	}
	return tools
}

// geminiReply answers generateContent (one JSON object) or
// streamGenerateContent (server-sent events, ?alt=sse): a text part or a
// functionCall part.
func geminiReply(s *Server, w http.ResponseWriter, req Request, t Turn) {
	part := map[string]any{"text": t.text}
	if t.kind == shellTurn || t.kind == writeTurn {
		call := callFor(t, req, geminiTools(req.Body))
		part = map[string]any{"functionCall": map[string]any{"id": s.callID("gemini_double"), "name": call.name, "args": call.args}}
	}
	input := approxTokens(req.Raw) + CacheReadTokens
	response := map[string]any{
		"candidates": []any{map[string]any{
			"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": map[string]any{
			"promptTokenCount": input, "cachedContentTokenCount": CacheReadTokens,
			"candidatesTokenCount": OutputTokens, "totalTokenCount": input + OutputTokens,
		},
		"modelVersion": "double-model",
		"responseId":   s.callID("gemini_response_"),
	}
	if !req.Stream {
		writeJSON(w, http.StatusOK, response)
		return
	}
	newSSE(w).event("", response)
}

// geminiResults is the functionResponse parts of a generateContent
// request's contents.
func geminiResults(body map[string]any) []ToolResult {
	var results []ToolResult
	for _, c := range list(body["contents"]) {
		for _, p := range list(object(c)["parts"]) {
			fr := object(object(p)["functionResponse"])
			if fr == nil {
				continue
			}
			response := object(fr["response"])
			tr := ToolResult{API: Gemini, CallID: str(fr["id"]), Name: str(fr["name"])}
			if e, ok := response["error"]; ok {
				tr.IsError = true
				tr.Output = text(e)
			} else if o, ok := response["output"]; ok {
				tr.Output = text(o)
			} else {
				tr.Output = text(response)
			}
			results = append(results, tr)
		}
	}
	return results
}

package modeldouble

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"
)

// ToolResult is a tool's result the CLI sent back to the model.
type ToolResult struct {
	API    API
	CallID string
	// Name is the tool's name, found from the call in the same request;
	// "" when the call is not in it.
	Name   string
	Output string
	// IsError is the CLI's own error flag (Anthropic's is_error, Gemini's
	// error response); Responses and chat completions have none, so there
	// the CLI's refusal is only in Output.
	IsError bool
}

// The tool names the CLIs advertise, most specific first.
var (
	shellTools = []string{"Bash", "run_shell_command", "bash", "exec_command", "shell_command", "shell"}
	writeTools = []string{"Write", "write_file", "write", "apply_patch"}
)

// toolCall is a call the double makes: the tool's name and, for a function
// tool, its arguments as JSON; for a freeform tool (codex's apply_patch as
// a custom tool), its raw input.
type toolCall struct {
	name     string
	args     map[string]any
	freeform bool
	input    string
}

// arguments is args as the JSON string the OpenAI shapes carry.
func (c toolCall) arguments() string {
	b, err := json.Marshal(c.args)
	if err != nil {
		panic(fmt.Sprintf("modeldouble: encode arguments: %v", err))
	}
	return string(b)
}

// offered is a tool a request advertises: its name and whether it is a
// freeform (custom) tool.
type offered struct {
	name     string
	freeform bool
}

// usual is the tool each API's CLI names for a shell command and for a
// file write, called when a request does not offer one: the CLI then
// answers the call with its own "no such tool" error, as it would a model's
// call of a tool it withheld.
var usual = map[API][2]string{
	Anthropic: {"Bash", "Write"},
	Responses: {"exec_command", "apply_patch"},
	Chat:      {"bash", "write"},
	Gemini:    {"run_shell_command", "write_file"},
}

// callFor turns a shell or write turn into a call of the tool req offers
// for it, or of the API's usual tool when it offers none.
func callFor(t Turn, req Request, tools []offered) toolCall {
	candidates, which := shellTools, 0
	if t.kind == writeTurn {
		candidates, which = writeTools, 1
	}
	tool := offered{name: usual[req.API][which]}
found:
	for _, c := range candidates {
		for _, o := range tools {
			if o.name == c {
				tool = o
				break found
			}
		}
	}
	name := tool.name
	if t.kind == shellTurn {
		switch name {
		case "exec_command":
			args := map[string]any{"cmd": t.command}
			if t.unsandboxed {
				args["sandbox_permissions"] = "require_escalated"
				args["justification"] = "The command must run outside the sandbox."
			}
			return toolCall{name: name, args: args}
		case "shell":
			return toolCall{name: name, args: map[string]any{"command": []string{"bash", "-lc", t.command}}}
		case "shell_command":
			return toolCall{name: name, args: map[string]any{"command": t.command}}
		default:
			args := map[string]any{"command": t.command, "description": "Run " + t.command}
			if t.unsandboxed && name == "Bash" {
				args["dangerouslyDisableSandbox"] = true
			}
			return toolCall{name: name, args: args}
		}
	}
	file := t.path
	switch name {
	case "apply_patch":
		// apply_patch takes paths relative to the working directory.
		patch := "*** Begin Patch\n*** Add File: " + file + "\n"
		for _, line := range strings.SplitAfter(strings.TrimSuffix(t.content, "\n"), "\n") {
			patch += "+" + strings.TrimSuffix(line, "\n") + "\n"
		}
		patch += "*** End Patch\n"
		if tool.freeform {
			return toolCall{name: name, freeform: true, input: patch}
		}
		return toolCall{name: name, args: map[string]any{"input": patch}}
	case "write":
		return toolCall{name: name, args: map[string]any{"filePath": absolute(file, req), "content": t.content}}
	default:
		return toolCall{name: name, args: map[string]any{"file_path": absolute(file, req), "content": t.content}}
	}
}

// workingDir finds the working directory a CLI tells its model about in
// the system prompt or environment context of a request.
var workingDir = regexp.MustCompile(`(?:[Ww]orking directory: ?|<cwd>|working in the directory: ?)(/[^\s"<\\]+)`)

// absolute joins a relative path to the working directory req names.
func absolute(file string, req Request) string {
	if path.IsAbs(file) {
		return file
	}
	m := workingDir.FindSubmatch(req.Raw)
	if m == nil {
		return file
	}
	return path.Join(string(m[1]), file)
}

// ToolResults returns the tool results in r, in order, whatever its API.
func (r Request) ToolResults() []ToolResult {
	switch r.API {
	case Anthropic:
		return anthropicResults(r.Body)
	case Responses:
		return responsesResults(r.Body)
	case Chat:
		return chatResults(r.Body)
	case Gemini:
		return geminiResults(r.Body)
	}
	return nil
}

// Offered returns the names of the tools r advertises to the model.
func (r Request) Offered() []string {
	var tools []offered
	switch r.API {
	case Anthropic:
		tools = anthropicTools(r.Body)
	case Responses:
		tools = responsesTools(r.Body)
	case Chat:
		tools = chatTools(r.Body)
	case Gemini:
		tools = geminiTools(r.Body)
	}
	names := make([]string, len(tools))
	for i, o := range tools {
		names[i] = o.name
	}
	return names
}

// UserTexts returns the text of each text part of the user's messages in
// r, in order, whatever its API: what the model was given to read as the
// user's words (the prompt among them), decoded from the body, not tool
// results.
func (r Request) UserTexts() []string {
	var texts []string
	add := func(content any, kinds ...string) {
		if s, ok := content.(string); ok {
			texts = append(texts, s)
			return
		}
		for _, p := range list(content) {
			part := object(p)
			for _, k := range kinds {
				if str(part["type"]) == k {
					texts = append(texts, str(part["text"]))
				}
			}
		}
	}
	switch r.API {
	case Anthropic:
		for _, m := range list(r.Body["messages"]) {
			if str(object(m)["role"]) == "user" {
				add(object(m)["content"], "text")
			}
		}
	case Responses:
		for _, i := range list(r.Body["input"]) {
			if item := object(i); str(item["role"]) == "user" {
				add(item["content"], "input_text")
			}
		}
	case Chat:
		for _, m := range list(r.Body["messages"]) {
			if str(object(m)["role"]) == "user" {
				add(object(m)["content"], "text")
			}
		}
	case Gemini:
		for _, c := range list(r.Body["contents"]) {
			if str(object(c)["role"]) != "user" {
				continue
			}
			for _, p := range list(object(c)["parts"]) {
				if s, ok := object(p)["text"].(string); ok {
					texts = append(texts, s)
				}
			}
		}
	}
	return texts
}

// Contains reports whether the request's body holds s, as sent (JSON
// escaped) or as text: a test asks whether an earlier turn was resent.
func (r Request) Contains(s string) bool {
	if strings.Contains(string(r.Raw), s) {
		return true
	}
	quoted, _ := json.Marshal(s)
	return strings.Contains(string(r.Raw), strings.Trim(string(quoted), `"`))
}

// Helpers to walk parsed JSON without a type per vendor.

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func object(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// text flattens a tool result's content: a string, or a list of parts with
// text in them.
func text(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, p := range c {
			if s, ok := p.(string); ok {
				b.WriteString(s)
				continue
			}
			part := object(p)
			for _, k := range []string{"text", "output", "content"} {
				if s := str(part[k]); s != "" {
					b.WriteString(s)
					break
				}
			}
		}
		return b.String()
	case map[string]any:
		b, _ := json.Marshal(c)
		return string(b)
	}
	return ""
}

// StructuredOutputTool is the tool Claude Code offers, given --json-schema,
// for the model's structured output.
const StructuredOutputTool = "StructuredOutput"

// offers reports whether tools hold one called name.
func offers(tools []offered, name string) bool {
	for _, o := range tools {
		if o.name == name {
			return true
		}
	}
	return false
}

// structuredCall is the call of StructuredOutputTool with t's value, a
// JSON object, as its input.
func structuredCall(t Turn) toolCall {
	var args map[string]any
	if err := json.Unmarshal([]byte(t.text), &args); err != nil {
		panic(fmt.Sprintf("modeldouble: a structured output must be a JSON object: %v", err))
	}
	return toolCall{name: StructuredOutputTool, args: args}
}

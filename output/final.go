package output

import (
	"encoding/json"
	"strings"
)

// FromText is the output a session gave in its final text: the last
// ```json fence's content, else the whole text when it is one JSON value;
// false when it holds neither.
func FromText(text string) ([]byte, bool) {
	if body, ok := lastFence(text); ok {
		return []byte(body), true
	}
	t := strings.TrimSpace(text)
	if t != "" && json.Valid([]byte(t)) {
		return []byte(t), true
	}
	return nil, false
}

// lastFence is the content of text's last fenced block opened by a line
// "```json".
func lastFence(text string) (string, bool) {
	lines := strings.Split(text, "\n")
	found, body := false, ""
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(strings.TrimRight(lines[i], "\r")) != "```json" {
			continue
		}
		var b strings.Builder
		closed := false
		j := i + 1
		for ; j < len(lines); j++ {
			if strings.TrimSpace(strings.TrimRight(lines[j], "\r")) == "```" {
				closed = true
				break
			}
			b.WriteString(lines[j])
			b.WriteByte('\n')
		}
		if !closed {
			break
		}
		found, body = true, b.String()
		i = j
	}
	return body, found
}

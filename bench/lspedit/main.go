//go:build unix

// Command lspedit measures what `cairn lsp` costs for one document, for
// bench/nesting.sh: it starts the server, opens FILE in it (didOpen with the
// file's text), sends EDITS changes, each a space added at the end of the
// document, and waits for the diagnostics of each version. It prints, on
// one line: the wall time of the whole session; the longest wait for a
// version's diagnostics, from writing its message (encoded beforehand) to
// reading them, the server's debounce of a change included; the server's
// CPU time (user + system), all three in nanoseconds; the server's peak
// resident set size in KiB (VmHWM, read from /proc before it exits: a
// child's rusage would count this program's own peak); and the number of
// diagnostics of the last version. With -ranged a change is a range and
// its text, else the whole document, as the server asks of its clients.
//
//	lspedit [-cairn cairn] [-edits 5] [-ranged] FILE
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	cairn := flag.String("cairn", "cairn", "the cairn binary")
	edits := flag.Int("edits", 5, "changes sent after the document is opened")
	ranged := flag.Bool("ranged", false, "send each change as a range and its text, not the whole document")
	flag.Parse()
	if flag.NArg() != 1 || *edits < 0 {
		fmt.Fprintln(os.Stderr, "usage: lspedit [-cairn cairn] [-edits N] [-ranged] FILE")
		os.Exit(2)
	}
	if err := run(*cairn, flag.Arg(0), *edits, *ranged); err != nil {
		fmt.Fprintln(os.Stderr, "lspedit:", err)
		os.Exit(1)
	}
}

// published is what the driver reads of a publishDiagnostics notification.
type published struct {
	URI         string            `json:"uri"`
	Version     int               `json:"version"`
	Diagnostics []json.RawMessage `json:"diagnostics"`
}

// session is a running server and the pipes to it.
type session struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func run(cairn, file string, edits int, ranged bool) error {
	abs, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	src, err := os.ReadFile(abs)
	if err != nil {
		return err
	}
	text := string(src)
	uri := "file://" + filepath.ToSlash(abs)

	cmd := exec.Command(cairn, "lsp", "--stdio")
	cmd.Dir = filepath.Dir(abs)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	s := &session{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16)}
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()

	if err := s.send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize",
		"params": map[string]any{"processId": nil, "rootUri": "file://" + filepath.ToSlash(filepath.Dir(abs)), "capabilities": map[string]any{}}}); err != nil {
		return err
	}
	if _, err := s.wait(func(m incoming) bool { return string(m.ID) == "1" }); err != nil {
		return err
	}
	if err := s.send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}}); err != nil {
		return err
	}

	var longest time.Duration
	var last published
	lines := strings.Count(text, "\n")
	for version := 1; version <= 1+edits; version++ {
		var msg map[string]any
		if version == 1 {
			msg = map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{
				"textDocument": map[string]any{"uri": uri, "languageId": "cairn", "version": 1, "text": text}}}
		} else {
			var change map[string]any
			if ranged {
				// The end of the document is at the start of the line
				// after its last newline, where the spaces already added
				// lie.
				at := map[string]any{"line": lines, "character": version - 2}
				change = map[string]any{"range": map[string]any{"start": at, "end": at}, "text": " "}
			} else {
				change = map[string]any{"text": text + strings.Repeat(" ", version-1)}
			}
			msg = map[string]any{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": map[string]any{
				"textDocument": map[string]any{"uri": uri, "version": version}, "contentChanges": []any{change}}}
		}
		data, err := json.Marshal(msg)
		if err != nil {
			return err
		}
		sent := time.Now()
		if err := s.write(data); err != nil {
			return err
		}
		m, err := s.wait(func(m incoming) bool {
			if m.Method != "textDocument/publishDiagnostics" {
				return false
			}
			var p published
			return json.Unmarshal(m.Params, &p) == nil && p.URI == uri && p.Version == version
		})
		if err != nil {
			return fmt.Errorf("version %d: %w", version, err)
		}
		longest = max(longest, time.Since(sent))
		if err := json.Unmarshal(m.Params, &last); err != nil {
			return err
		}
	}

	peak, err := peakMemory(cmd.Process.Pid)
	if err != nil {
		return err
	}
	if err := s.send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "shutdown"}); err != nil {
		return err
	}
	if _, err := s.wait(func(m incoming) bool { return string(m.ID) == "2" }); err != nil {
		return err
	}
	if err := s.send(map[string]any{"jsonrpc": "2.0", "method": "exit"}); err != nil {
		return err
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("cairn lsp: %w", err)
	}
	wall := time.Since(start)
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return errors.New("no resource usage on this system")
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	fmt.Printf("%d %d %d %d %d\n", wall.Nanoseconds(), longest.Nanoseconds(), cpu.Nanoseconds(), peak, len(last.Diagnostics))
	if len(last.Diagnostics) > 0 {
		var first struct{ Message string }
		_ = json.Unmarshal(last.Diagnostics[0], &first)
		fmt.Fprintf(os.Stderr, "lspedit: %s: %.120s\n", filepath.Base(file), first.Message)
	}
	return nil
}

// incoming is what the driver reads of a message from the server.
type incoming struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Error  json.RawMessage `json:"error"`
}

// send writes v as one message.
func (s *session) send(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.write(data)
}

// write writes data, JSON, as one message.
func (s *session) write(data []byte) error {
	if _, err := fmt.Fprintf(s.in, "Content-Length: %d\r\n\r\n", len(data)); err != nil {
		return err
	}
	_, err := s.in.Write(data)
	return err
}

// wait reads messages until one that ok accepts, and returns it; an error
// answer ends the wait with that error.
func (s *session) wait(ok func(incoming) bool) (incoming, error) {
	for {
		body, err := s.read()
		if err != nil {
			return incoming{}, err
		}
		var m incoming
		if err := json.Unmarshal(body, &m); err != nil {
			return incoming{}, fmt.Errorf("the server sent no JSON: %w", err)
		}
		if m.Error != nil {
			return incoming{}, fmt.Errorf("the server answered an error: %s", m.Error)
		}
		if ok(m) {
			return m, nil
		}
	}
}

// read reads one message's body.
func (s *session) read() ([]byte, error) {
	length := -1
	for {
		line, err := s.out.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
			if length, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
				return nil, err
			}
		}
	}
	if length < 0 {
		return nil, errors.New("a message without Content-Length")
	}
	body := make([]byte, length)
	_, err := io.ReadFull(s.out, body)
	return body, err
}

// peakMemory is the peak resident set size of process pid, in KiB.
func peakMemory(pid int) (int64, error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		}
	}
	return 0, errors.New("no VmHWM in /proc/PID/status")
}

package main

// The sessions of the corruption sweep (damage_sweep_test.go): raw
// JSON-RPC with hubsnap serve over stdio and over Streamable HTTP, each
// call with its own deadline.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// stdioSession is a raw JSON-RPC session with hubsnap serve over stdio.
type stdioSession struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *lockedBuffer
	lines  chan string // stdout, a line at a time; closed at its end
	next   int
}

func startStdio(t testing.TB, c *cli) *stdioSession {
	t.Helper()
	cmd := hubsnapCmd(t, c, "serve")
	s := &stdioSession{cmd: cmd, stderr: &lockedBuffer{}, lines: make(chan string, 64), next: 100}
	cmd.Stderr = s.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if s.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() }) // harmless once waited for
	go func() {
		defer close(s.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
	}()
	if _, err := io.WriteString(s.stdin, initializeLine+"\n"); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.wait("1", startLimit); !ok {
		t.Fatalf("hubsnap serve: no answer to initialize; stderr: %s", s.stderr)
	}
	if _, err := io.WriteString(s.stdin, initializedLine+"\n"); err != nil {
		t.Fatal(err)
	}
	return s
}

// wait returns the response with id, or false after limit or once stdout
// ended.
func (s *stdioSession) wait(id string, limit time.Duration) (rpcResponse, bool) {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				return rpcResponse{}, false
			}
			var r rpcResponse
			if json.Unmarshal([]byte(l), &r) == nil && string(r.ID) == id {
				return r, true
			}
		case <-deadline.C:
			return rpcResponse{}, false
		}
	}
}

func (s *stdioSession) call(t testing.TB, c sweepCall) sweepAnswer {
	t.Helper()
	s.next++
	id := fmt.Sprint(s.next)
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.next, "method": "tools/call",
		"params": map[string]any{"name": c.tool, "arguments": c.args}})
	if _, err := s.stdin.Write(append(req, '\n')); err != nil {
		return sweepAnswer{rpcErr: "write: " + err.Error()}
	}
	r, ok := s.wait(id, sweepCallLimit)
	switch {
	case !ok:
		return sweepAnswer{hang: true}
	case r.Error != nil:
		return sweepAnswer{rpcErr: fmt.Sprintf("%d %s", r.Error.Code, r.Error.Message)}
	}
	return toolResult(r.Result)
}

func (s *stdioSession) log() string { return s.stderr.String() }

// close ends the session (stdin closed; killed if it does not exit within
// sessionLimit) and returns the child's stderr.
func (s *stdioSession) close(t testing.TB) string {
	t.Helper()
	s.stdin.Close()
	done := make(chan struct{})
	go func() {
		for range s.lines { // drain, so the reader ends
		}
		s.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(sessionLimit):
		s.cmd.Process.Kill()
		<-done
		t.Errorf("hubsnap serve did not exit within %s of its stdin closing", sessionLimit)
	}
	return s.stderr.String()
}

// httpSweepSession is a raw Streamable HTTP session with hubsnap serve
// --http.
type httpSweepSession struct {
	srv     *httpServe
	session string
	next    int
}

func startSweepHTTP(t testing.TB, c *cli) *httpSweepSession {
	t.Helper()
	s := &httpSweepSession{srv: startHTTPServe(t, c, "127.0.0.1:0"), next: 100}
	status, header, _, err := s.post(initializeLine, startLimit)
	if err != nil || status != 200 || header.Get("Mcp-Session-Id") == "" {
		t.Fatalf("initialize over HTTP: status %d, err %v; stderr: %s", status, err, s.srv.stderr)
	}
	s.session = header.Get("Mcp-Session-Id")
	if status, _, _, err := s.post(initializedLine, startLimit); err != nil || status != 202 {
		t.Fatalf("notifications/initialized over HTTP: status %d, err %v", status, err)
	}
	return s
}

// post sends one JSON-RPC message and returns the status, the headers and
// the JSON-RPC messages of the reply (a JSON body or an event stream).
func (s *httpSweepSession) post(body string, limit time.Duration) (int, http.Header, []rpcResponse, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.srv.url, strings.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.session != "" {
		req.Header.Set("Mcp-Session-Id", s.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, resp.Header, nil, err
	}
	var msgs []rpcResponse
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for l := range strings.SplitSeq(string(data), "\n") {
			if d, ok := strings.CutPrefix(l, "data: "); ok {
				var r rpcResponse
				if json.Unmarshal([]byte(d), &r) == nil {
					msgs = append(msgs, r)
				}
			}
		}
	} else if len(bytes.TrimSpace(data)) > 0 {
		var r rpcResponse
		if json.Unmarshal(data, &r) == nil {
			msgs = append(msgs, r)
		}
	}
	return resp.StatusCode, resp.Header, msgs, nil
}

func (s *httpSweepSession) call(t testing.TB, c sweepCall) sweepAnswer {
	t.Helper()
	s.next++
	id := fmt.Sprint(s.next)
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.next, "method": "tools/call",
		"params": map[string]any{"name": c.tool, "arguments": c.args}})
	status, _, msgs, err := s.post(string(req), sweepCallLimit)
	if errors.Is(err, context.DeadlineExceeded) {
		return sweepAnswer{hang: true}
	}
	if err != nil {
		return sweepAnswer{rpcErr: "HTTP: " + err.Error()}
	}
	for _, r := range msgs {
		if string(r.ID) != id {
			continue
		}
		if r.Error != nil {
			return sweepAnswer{rpcErr: fmt.Sprintf("%d %s", r.Error.Code, r.Error.Message)}
		}
		return toolResult(r.Result)
	}
	if status == http.StatusOK {
		return sweepAnswer{empty: true}
	}
	return sweepAnswer{rpcErr: fmt.Sprintf("HTTP %d without a response", status)}
}

func (s *httpSweepSession) log() string { return s.srv.stderr.String() }

// close stops the server and returns its stderr.
func (s *httpSweepSession) close(t testing.TB) string {
	t.Helper()
	s.srv.stop(t)
	return s.srv.stderr.String()
}

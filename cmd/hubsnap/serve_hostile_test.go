package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Hostile arguments against the real `hubsnap serve` over stdio (issue 23,
// item 9): a tools/call whose arguments are huge (a 1,000,000-element
// kinds, a 10 MiB query, deep nesting, a huge array where no argument is)
// is refused with a JSON-RPC error naming its id (a message over the size
// limit or of too many values) or the tool error INVALID_ARGUMENT
// (arguments over their bounds),
// the session keeps working, and the server's memory stays small. Before,
// the 1,000,000-element kinds was accepted, a message nested 100,000 deep
// was answered with a null id, and the server's peak resident set grew
// from 28 to 213 MiB over these calls (over HTTP, whose bodies were
// already bounded, from 30 to 105 MiB); now it peaks at 38-42 MiB.

// hostileCalls are the calls, each with what it must get: a JSON-RPC
// error code, or an INVALID_ARGUMENT whose message holds want.
var hostileCalls = []struct {
	name   string
	args   func() string // the arguments of a schema_search call
	idLast bool          // the id after the params, as mcp-remote writes it
	code   int           // a JSON-RPC error code, or 0 for a tool error
	want   string        // in the message
	// raw, when set, is the whole message instead (with id), and noID
	// says it has none to answer with (a batch).
	raw  func(id int) string
	noID bool
}{
	{"kinds of 1,000,000 items (8 MB)", kindsOf(1_000_000), false, -32600, "over 1048576 bytes", nil, false},
	{"kinds of 1,000,000 items (8 MB), the id last", kindsOf(1_000_000), true, -32600, "over 1048576 bytes", nil, false},
	{"kinds of 100,000 items (800 KB)", kindsOf(100_000), false, -32600, "more than 10000 values", nil, false},
	{"kinds of 5,000 items (40 KB)", kindsOf(5_000), false, 0, "kinds: at most 3 items", nil, false},
	{"a 10 MiB query", func() string { return `{"query":"` + strings.Repeat("a", 10<<20) + `"}` }, false, -32600,
		"over 1048576 bytes", nil, false},
	{"a 900 KB query", func() string { return `{"query":"` + strings.Repeat("a", 900<<10) + `"}` }, false, 0,
		"query: at most 1024 characters", nil, false},
	{"kinds nested 100,000 deep", nestedKinds(100_000), true, -32600, "nested deeper than 1000 levels", nil, false},
	{"kinds nested 50 deep", nestedKinds(50), false, 0, "nested deeper than 8 levels", nil, false},
	{"an unknown argument of 300,000 objects", objectsArg(300_000), false, -32600, "more than 10000 values", nil, false},
	{"an unknown argument of 2,000 objects", objectsArg(2_000), false, 0, "more than 1024 values", nil, false},
	{name: "300,000 objects in a call's _meta", raw: func(id int) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"release_info",` +
			`"arguments":{},"_meta":{"x":[` + strings.Repeat(`{},`, 299_999) + `{}]}}}`
	}, code: -32600, want: "more than 10000 values"},
	{name: "a batch of 300,000 empty objects", raw: func(int) string {
		return `[` + strings.Repeat(`{},`, 299_999) + `{}]`
	}, code: -32600, want: "more than 10000 values", noID: true},
}

// hostileLine is the message of hostile call i, with id.
func hostileLine(i, id int) string {
	h := hostileCalls[i]
	switch {
	case h.raw != nil:
		return h.raw(id)
	case h.idLast:
		return `{"method":"tools/call","params":{"name":"schema_search","arguments":` + h.args() + `},"jsonrpc":"2.0","id":` +
			strconv.Itoa(id) + `}`
	}
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"schema_search","arguments":` +
		h.args() + `}}`
}

func kindsOf(n int) func() string {
	return func() string { return `{"query":"user","kinds":[` + strings.Repeat(`"table",`, n-1) + `"table"]}` }
}

func objectsArg(n int) func() string {
	return func() string { return `{"query":"user","x":[` + strings.Repeat(`{},`, n-1) + `{}]}` }
}

func nestedKinds(depth int) func() string {
	return func() string {
		return `{"query":"user","kinds":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`
	}
}

func TestServeHostileArguments(t *testing.T) {
	t.Parallel()
	c, _ := servedCLI(t)
	p := startChild(t, c, "serve")
	out := &stdioReader{p: p}
	out.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"hostile","version":"0"}}}`)
	out.await(t, 1)
	out.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	normal := func(id int) {
		t.Helper()
		out.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"release_info","arguments":{}}}`, id))
		if m := out.await(t, id); m.Error != nil || m.Result.IsError {
			t.Fatalf("release_info after hostile calls: %s", m.raw)
		}
	}
	normal(2)
	rss0, _ := procMemory(t, p.cmd.Process.Pid)
	for i, h := range hostileCalls {
		id := 100 + i
		line := hostileLine(i, id)
		start := time.Now()
		out.send(t, line)
		m := out.await(t, id)
		took := time.Since(start)
		switch {
		case h.noID && string(m.ID) != "null":
			t.Errorf("%s: %.300s; want an answer with a null id", h.name, m.raw)
		case !h.noID && string(m.ID) != strconv.Itoa(id):
			t.Errorf("%s: %.300s; want an answer with the request's id, %d", h.name, m.raw, id)
		case h.code != 0 && (m.Error == nil || m.Error.Code != h.code || !strings.Contains(m.Error.Message, h.want)):
			t.Errorf("%s: %.300s; want the JSON-RPC error %d saying %q", h.name, m.raw, h.code, h.want)
		case h.code == 0 && (m.Error != nil || !m.Result.IsError || !strings.Contains(m.text(), `"INVALID_ARGUMENT"`) ||
			!strings.Contains(m.text(), h.want)):
			t.Errorf("%s: %.300s; want INVALID_ARGUMENT saying %q", h.name, m.raw, h.want)
		}
		t.Logf("%s (%d bytes): answered in %v: %.160s", h.name, len(line), took.Round(time.Millisecond), m.raw)
		normal(200 + i)
	}
	rss, hwm := procMemory(t, p.cmd.Process.Pid)
	t.Logf("serve's resident set: %.0f MiB after the first call, %.0f MiB after the hostile calls, peak %.0f MiB", rss0, rss, hwm)
	if hwm > 0 && hwm-rss0 > 64 {
		t.Errorf("serve's peak resident set grew from %.0f to %.0f MiB under the hostile calls; want under 64 MiB more", rss0, hwm)
	}
	p.stdin.Close()
	if code := p.wait(t, sessionLimit); code != exitOK {
		t.Errorf("serve: exit %d; stderr: %s", code, p.stderr)
	}
	noPanic(t, "serve", p.stderr.String())
}

// stdioReader reads a stdio child's answers, one JSON line each.
type stdioReader struct {
	p    *child
	seen int // bytes of stdout already read
}

// rpcAnswer is one answer line.
type rpcAnswer struct {
	raw   string
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Result struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
}

func (a rpcAnswer) text() string {
	if len(a.Result.Content) == 0 {
		return ""
	}
	return a.Result.Content[0].Text
}

// send writes one line to the child's stdin.
func (r *stdioReader) send(tb testing.TB, line string) {
	tb.Helper()
	if _, err := io.WriteString(r.p.stdin, line+"\n"); err != nil {
		tb.Fatalf("write to serve: %v; stderr: %s", err, r.p.stderr)
	}
}

// await returns the answer with id, or one with a null id (an answer to
// a message whose id the server could not read), skipping notifications
// and other answers, or fails after startLimit.
func (r *stdioReader) await(tb testing.TB, id int) rpcAnswer {
	tb.Helper()
	deadline := time.Now().Add(startLimit)
	want := strconv.Itoa(id)
	for time.Now().Before(deadline) {
		all := r.p.stdout.String()
		for {
			i := strings.IndexByte(all[r.seen:], '\n')
			if i < 0 {
				break
			}
			line := all[r.seen : r.seen+i]
			r.seen += i + 1
			var a rpcAnswer
			if err := json.Unmarshal([]byte(line), &a); err != nil {
				tb.Fatalf("serve wrote a line that is not JSON: %.200q", line)
			}
			a.raw = line
			if string(a.ID) == want || string(a.ID) == "null" {
				return a
			}
		}
		select {
		case <-r.p.done:
			tb.Fatalf("serve exited while an answer to %d was awaited: %v; stderr: %s", id, r.p.waitErr, r.p.stderr)
		case <-time.After(5 * time.Millisecond):
		}
	}
	tb.Fatalf("no answer to %d within %v; stderr: %s", id, startLimit, r.p.stderr)
	return rpcAnswer{}
}

// procMemory reads VmRSS and VmHWM of a process, in MiB; 0, 0 where
// /proc is missing (not Linux).
func procMemory(tb testing.TB, pid int) (rss, hwm float64) {
	tb.Helper()
	if runtime.GOOS != "linux" {
		return 0, 0
	}
	f, err := os.Open(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, val, _ := strings.Cut(sc.Text(), ":")
		kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(val), "kB")), 64)
		switch key {
		case "VmRSS":
			rss = kb / 1024
		case "VmHWM":
			hwm = kb / 1024
		}
	}
	return rss, hwm
}

// The same calls over HTTP, in a session: a body over the limit is 413
// before anything is decoded, arguments over their bounds INVALID_ARGUMENT,
// and the server's memory stays small.
func TestServeHTTPHostileArguments(t *testing.T) {
	t.Parallel()
	c, _ := servedCLI(t)
	s := startHTTPServe(t, c, "127.0.0.1:0")
	init := rawPost(t, s.url, "", "", initializeLine)
	checkInitialized(t, "initialize", init)
	rawRequest(t, http.MethodPost, s.url, "", "", initializedLine, init.session)
	normal := func() {
		t.Helper()
		r := rawRequest(t, http.MethodPost, s.url, "", "", releaseInfoLine, init.session)
		if r.status != http.StatusOK || !strings.Contains(r.body, `rel_42`) {
			t.Fatalf("release_info: %d %.300s", r.status, r.body)
		}
	}
	normal()
	rss0, _ := procMemory(t, s.cmd.Process.Pid)
	for i, h := range hostileCalls {
		line := hostileLine(i, 100+i)
		start := time.Now()
		r, err := postSession(s.url, init.session, line)
		took := time.Since(start)
		switch {
		case len(line) > 1<<20:
			// 413 once the first MiB is read; the client, still writing,
			// may see the connection closed instead.
			if err == nil && r.status != http.StatusRequestEntityTooLarge {
				t.Errorf("%s: %d %.300s; want 413", h.name, r.status, r.body)
			}
			if err != nil {
				r.body = "(the connection was closed while the client wrote: " + err.Error() + ")"
			}
		case err != nil:
			t.Fatalf("%s: %v", h.name, err)
		case h.code == 0 && (r.status != http.StatusOK || !strings.Contains(r.body, `INVALID_ARGUMENT`) ||
			!strings.Contains(r.body, h.want)):
			t.Errorf("%s: %d %.300s; want INVALID_ARGUMENT saying %q", h.name, r.status, r.body, h.want)
		case h.code != 0 && (r.status != http.StatusBadRequest || !strings.Contains(r.body, strconv.Itoa(h.code)) ||
			!strings.Contains(r.body, h.want) && !strings.Contains(r.body, "nesting depth of 1000")):
			t.Errorf("%s: %d %.300s; want 400 with the JSON-RPC error %d saying %q", h.name, r.status, r.body, h.code, h.want)
		}
		t.Logf("%s (%d bytes): %d in %v: %.160s", h.name, len(line), r.status, took.Round(time.Millisecond), r.body)
		normal()
	}
	rss, hwm := procMemory(t, s.cmd.Process.Pid)
	t.Logf("serve --http's resident set: %.0f MiB after the first call, %.0f MiB after the hostile calls, peak %.0f MiB",
		rss0, rss, hwm)
	if hwm > 0 && hwm-rss0 > 64 {
		t.Errorf("serve --http's peak resident set grew from %.0f to %.0f MiB under the hostile calls; want under 64 MiB more",
			rss0, hwm)
	}
	if code, _ := s.stop(t); code != exitOK {
		t.Errorf("serve --http: exit %d; stderr: %s", code, s.stderr)
	}
	noPanic(t, "serve --http", s.stderr.String())
}

// releaseInfoLine calls release_info.
const releaseInfoLine = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"release_info","arguments":{}}}`

// postSession posts body in session, as rawRequest does, and returns the
// error rather than failing.
func postSession(url, session, body string) (rawReply, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return rawReply{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: startLimit}).Do(req)
	if err != nil {
		return rawReply{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return rawReply{status: resp.StatusCode, header: resp.Header, body: string(b)}, err
}

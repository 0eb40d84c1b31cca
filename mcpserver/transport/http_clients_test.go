package transport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Real clients' requests, replayed byte for byte (issue 23, item 5):
// testdata/clients/mcp-remote-0.15.1 holds every request mcp-remote 0.15.1
// sent to `hubsnap serve --http` (see its README). mcp-remote speaks
// protocol 2025-11-25 and sends the Mcp-Method header with it; before the
// era was read from the protocol version, that header sent it to the
// stateless handler: its initialize got no session, so no notification
// and no subscription.

// capturedRequest is one request of a capture, its bytes as sent.
type capturedRequest struct {
	name string
	raw  []byte
}

// readCapture returns the requests of testdata/clients/DIR, in order.
func readCapture(tb testing.TB, dir string) []capturedRequest {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "clients", dir, "*.http"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no captured requests in testdata/clients/%s: %v", dir, err)
	}
	var out []capturedRequest
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, capturedRequest{name: filepath.Base(f), raw: raw})
	}
	return out
}

// sessionHeader finds a request's mcp-session-id header (any case).
var sessionHeader = regexp.MustCompile(`(?im)^mcp-session-id: *([^\r\n]*)\r$`)

// replayer sends captured requests to a server, each on its own TCP
// connection, with the captured session ids replaced by the ones the
// server gave: the first captured id by the session of the first
// initialize answered, and so on.
type replayer struct {
	addr  string
	ids   map[string]string // captured -> live
	given []string          // live ids not yet matched to a captured one
}

// replayed is a captured request's answer.
type replayed struct {
	resp *http.Response
	body string        // the body, or for an event stream its data lines (all but a GET stream's)
	data chan string   // a GET stream's data lines, as they come
	conn net.Conn      // open while a GET stream is read
	req  *http.Request // the captured request, parsed
}

func (p *replayer) send(tb testing.TB, c capturedRequest) replayed {
	tb.Helper()
	raw := c.raw
	if m := sessionHeader.FindSubmatchIndex(raw); m != nil {
		captured := string(raw[m[2]:m[3]])
		live, ok := p.ids[captured]
		if !ok {
			if len(p.given) == 0 {
				tb.Fatalf("%s: sends session %s, but no initialize before it was given a session", c.name, captured)
			}
			live, p.given = p.given[0], p.given[1:]
			p.ids[captured] = live
		}
		if len(live) != len(captured) {
			tb.Fatalf("session ids of %d and %d bytes: the replay would change content-length", len(live), len(captured))
		}
		raw = bytes.Clone(raw)
		copy(raw[m[2]:m[3]], live)
	}
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(raw)))
	if err != nil {
		tb.Fatalf("%s is not an HTTP request: %v", c.name, err)
	}
	conn, err := net.Dial("tcp", p.addr)
	if err != nil {
		tb.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(hangGuard))
	if _, err := conn.Write(raw); err != nil {
		tb.Fatalf("%s: %v", c.name, err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		tb.Fatalf("%s: no answer: %v", c.name, err)
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" && isInitialize(raw) {
		p.given = append(p.given, id)
	}
	r := replayed{resp: resp, req: req}
	stream := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	if req.Method == http.MethodGet && stream {
		r.data, r.conn = make(chan string, 100), conn
		tb.Cleanup(func() { conn.Close() })
		go func() {
			defer close(r.data)
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				if d, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
					r.data <- strings.TrimSpace(d)
				}
			}
		}()
		return r
	}
	defer conn.Close()
	r.body = readSSE(tb, resp)
	return r
}

func isInitialize(raw []byte) bool { return bytes.Contains(raw, []byte(`"method":"initialize"`)) }

// waitData returns the first data line of a GET stream that contains
// want, or fails after patience.
func waitData(tb testing.TB, r replayed, want string) string {
	tb.Helper()
	timeout := time.After(patience)
	for {
		select {
		case d, ok := <-r.data:
			if !ok {
				tb.Fatalf("the GET stream ended before %s came", want)
			}
			if strings.Contains(d, want) {
				return d
			}
		case <-timeout:
			tb.Fatalf("no %s on the GET stream within %v", want, patience)
		}
	}
}

// TestHTTPReplayMCPRemote replays mcp-remote 0.15.1's requests against the
// default endpoint: both of its initializes get a session, its
// subscription is accepted, and after the release changes its GET stream
// carries notifications/resources/updated and its next call sees the new
// release.
func TestHTTPReplayMCPRemote(t *testing.T) {
	env := startHTTP(t, HTTPOptions{})
	p := &replayer{addr: env.ts.Listener.Addr().String(), ids: map[string]string{}}
	reqs := readCapture(t, "mcp-remote-0.15.1")
	last := reqs[len(reqs)-1]
	answers := map[string]replayed{}
	for _, c := range reqs[:len(reqs)-1] {
		r := p.send(t, c)
		answers[c.name] = r
		t.Logf("%s: %s %s -> %s session=%q %.80s", c.name, r.req.Method, r.req.URL.Path, r.resp.Status,
			r.resp.Header.Get("Mcp-Session-Id"), r.body)
		if isInitialize(c.raw) && r.resp.Header.Get("Mcp-Session-Id") == "" {
			t.Fatalf("%s: mcp-remote's initialize (protocol 2025-11-25, with an Mcp-Method header) got no session:"+
				" %s %s", c.name, r.resp.Status, r.body)
		}
		if strings.Contains(r.body, `"error"`) || r.resp.StatusCode >= 500 {
			t.Errorf("%s: %s %s", c.name, r.resp.Status, r.body)
		}
	}
	if n := sessionCount(env.srv); n != 2 {
		t.Errorf("%d sessions open, want 2 (mcp-remote's fallback test and its own)", n)
	}
	if len(p.ids) != 2 {
		t.Errorf("the capture used %d session ids, want 2", len(p.ids))
	}
	for name, want := range map[string]int{"01-conn1.http": 400, "02-conn2.http": 404, "09-conn1.http": 200,
		"10-conn1.http": 202, "11-conn1.http": 200, "14-conn2.http": 200, "15-conn3.http": 200, "16-conn3.http": 200} {
		if got := answers[name].resp.StatusCode; got != want {
			t.Errorf("%s: status %d, want %d", name, got, want)
		}
	}
	if !strings.Contains(answers["15-conn3.http"].body, `"schema_search"`) {
		t.Errorf("tools/list: %.200s", answers["15-conn3.http"].body)
	}
	if got := answers["16-conn3.http"].body; got != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Errorf("resources/subscribe: %s, want an empty result", got)
	}
	if !strings.Contains(answers["17-conn3.http"].body, `\"id\":\"rel_42\"`) {
		t.Errorf("release_info: %.200s, want rel_42", answers["17-conn3.http"].body)
	}

	// hubsnap snapshot use, as the server sees it.
	next := shopSnapshot(t)
	next.Release.ID, next.Release.Version = "rel_43", 43
	putCurrent(t, env.st, next)
	env.srv.CheckRelease(t.Context())
	stream := answers["14-conn2.http"]
	got := waitData(t, stream, "notifications/resources/updated")
	var n struct {
		Params struct {
			URI string `json:"uri"`
		} `json:"params"`
	}
	if json.Unmarshal([]byte(got), &n) != nil || n.Params.URI != "hubsnap://release" {
		t.Errorf("notification: %s, want resources/updated for %s", got, "hubsnap://release")
	}
	waitData(t, answers["11-conn1.http"], "notifications/resources/list_changed")
	r := p.send(t, last)
	if !strings.Contains(r.body, `\"id\":\"rel_43\"`) {
		t.Errorf("%s: release_info after the change: %s %.200s, want rel_43", last.name, r.resp.Status, r.body)
	}
}

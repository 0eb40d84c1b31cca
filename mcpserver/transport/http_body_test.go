package transport

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Slow request bodies (issue 17, item 8): a request without valid
// credentials is refused from its headers, before its body is read, and
// its connection closed; a body that does arrive is read within
// HTTPOptions.BodyTimeout.
//
// Before: `POST /mcp` with Content-Length 100000, no Authorization and one
// byte of body now and then was never answered until its body was complete
// (net/http reads what is left of a body before it sends the answer): 50
// such connections were all open 3 s later, 50 goroutines more.

// slowBody is a raw connection that sent a POST's headers (with token,
// when not empty) and the first byte of a 100,000-byte body.
type slowBody struct {
	c net.Conn
	r *bufio.Reader
}

func startSlowBody(tb testing.TB, addr, token string) *slowBody {
	tb.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	auth := ""
	if token != "" {
		auth = "Authorization: Bearer " + token + "\r\n"
	}
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{", addr, auth)
	return &slowBody{c: c, r: bufio.NewReader(c)}
}

// answer reads the answer's status and then waits for the server to close
// the connection, sending a byte of body now and then meanwhile; it
// returns the status and whether the server closed the connection within
// the time given.
func (s *slowBody) answer(tb testing.TB, within time.Duration) (int, bool) {
	tb.Helper()
	deadline := time.Now().Add(within)
	s.c.SetReadDeadline(deadline)
	resp, err := http.ReadResponse(s.r, nil)
	if err != nil {
		return 0, false
	}
	go func() { // the client keeps sending, slowly, as the attack does
		for time.Now().Before(deadline) {
			if _, err := s.c.Write([]byte(" ")); err != nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return resp.StatusCode, false
	}
	// EOF, or a reset once the server closed while the client was still
	// sending: either way the server closed the connection. A timeout
	// means it did not.
	_, err = s.r.ReadByte()
	var ne net.Error
	return resp.StatusCode, err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

// openFDs counts this process's open files (Linux), or -1.
func openFDs() int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(entries)
}

func TestHTTPSlowBodyWithoutCredentials(t *testing.T) {
	const conns = 50
	env := startHTTP(t, HTTPOptions{}, tokenSpec{"alice", []string{"*"}})
	addr := strings.TrimPrefix(env.base, "http://")
	g0, fd0 := runtime.NumGoroutine(), openFDs()
	start := time.Now()
	slow := make([]*slowBody, conns)
	for i := range slow {
		token := ""
		if i%2 == 1 {
			token = wrongSecret
		}
		slow[i] = startSlowBody(t, addr, token)
	}
	for i, s := range slow {
		status, closed := s.answer(t, 5*time.Second)
		if status != http.StatusUnauthorized || !closed {
			t.Errorf("slow body %d without a valid token: status %d, closed %v; want 401 and the connection closed", i, status, closed)
		}
		s.c.Close()
	}
	took := time.Since(start)
	var g1, fd1 int
	eventually(t, patience, "the server's goroutines gone", func() bool {
		g1, fd1 = runtime.NumGoroutine(), openFDs()
		return g1 <= g0+2
	})
	t.Logf("%d slow bodies without credentials: all answered 401 and closed within %v; goroutines %d -> %d, fds %d -> %d",
		conns, took.Round(time.Millisecond), g0, g1, fd0, fd1)
	if fd0 >= 0 && fd1 > fd0+2 {
		t.Errorf("open files %d -> %d after the server closed every slow connection", fd0, fd1)
	}
}

// A body that a valid token (or the open server) sends too slowly is cut
// off after BodyTimeout with 408, and its connection closed.
func TestHTTPSlowBodyTimesOut(t *testing.T) {
	const within = 300 * time.Millisecond
	for name, token := range map[string]string{"with a token": "alice", "open": ""} {
		t.Run(name, func(t *testing.T) {
			var env *httpEnv
			secret := ""
			if token != "" {
				env = startHTTP(t, HTTPOptions{BodyTimeout: within}, tokenSpec{token, []string{"*"}})
				secret = env.secrets[token]
			} else {
				env = startHTTP(t, HTTPOptions{BodyTimeout: within})
			}
			start := time.Now()
			s := startSlowBody(t, strings.TrimPrefix(env.base, "http://"), secret)
			status, closed := s.answer(t, 5*time.Second)
			took := time.Since(start)
			if status != http.StatusRequestTimeout || !closed {
				t.Errorf("a slow body: status %d, closed %v; want 408 and the connection closed", status, closed)
			}
			if took < within || took > within+2*time.Second {
				t.Errorf("answered after %v, want about BodyTimeout %v", took, within)
			}
			t.Logf("a slow body %s: %d after %v", name, status, took.Round(time.Millisecond))
			// A normal request is not affected by the deadline of the last.
			if resp, body := (rawHTTP{url: env.url, token: secret, body: initializeBody}).do(t); resp.StatusCode != http.StatusOK {
				t.Errorf("initialize after: %s: %.100s", resp.Status, body)
			}
		})
	}
}

// With OAuth too, a request without a token is answered 401 from its
// headers and its connection closed, however slowly its body comes.
func TestHTTPOAuthSlowBodyWithoutToken(t *testing.T) {
	env := startOAuth(t, false)
	s := startSlowBody(t, strings.TrimPrefix(env.base, "http://"), "")
	if status, closed := s.answer(t, 5*time.Second); status != http.StatusUnauthorized || !closed {
		t.Errorf("a slow body without a token: status %d, closed %v; want 401 and the connection closed", status, closed)
	}
}

// A session's GET stream is not cut by the body deadline: it lasts.
func TestHTTPStreamOutlivesBodyTimeout(t *testing.T) {
	env := startHTTP(t, HTTPOptions{BodyTimeout: 100 * time.Millisecond})
	sid := env.initialize(t, "")
	stream := openGET(t, env.url, "", sid)
	select {
	case <-stream:
		t.Fatal("the GET stream ended")
	case <-time.After(500 * time.Millisecond):
	}
	if resp, body := (rawHTTP{url: env.url, session: sid, body: toolsListBody}).do(t); resp.StatusCode != http.StatusOK {
		t.Errorf("tools/list: %s: %.100s", resp.Status, body)
	}
}

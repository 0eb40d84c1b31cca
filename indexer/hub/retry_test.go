package hub

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hubsnap/hubsnap/indexer/hubtest"
)

var snapshotBody = []byte(`{"formatVersion":1}`)

// newHub starts a real Hub holding one release of project shop.
func newHub(tb testing.TB) (*hubtest.Hub, Listing) {
	tb.Helper()
	h := hubtest.New()
	tb.Cleanup(h.Close)
	r := hubtest.Release{ID: "rel_1", Version: 1, Environment: "dev", Digest: hubtest.Digest(snapshotBody)}
	h.AddListed("shop", r, snapshotBody)
	return h, Listing{ID: r.ID, Digest: r.Digest}
}

// newClient returns a client of h with fast retries whose log goes to buf.
func newClient(tb testing.TB, h *hubtest.Hub, retries int, buf *syncBuffer) *Client {
	tb.Helper()
	c, err := New(h.URL(), Options{Log: slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		tb.Fatal(err)
	}
	c.Retries, c.Backoff, c.MaxBackoff = retries, time.Millisecond, 4*time.Millisecond
	return c
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) count(sub string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Count(s.b.String(), sub)
}

// cutOff answers 200 with half the promised body, then drops the connection.
func cutOff(tb testing.TB, w http.ResponseWriter) {
	conn, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		tb.Error(err)
		return
	}
	defer conn.Close()
	fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(snapshotBody))
	buf.Write(snapshotBody[:len(snapshotBody)/2])
	buf.Flush()
}

// hangUp drops the connection without answering.
func hangUp(tb testing.TB, w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		tb.Error(err)
		return
	}
	conn.Close()
}

// TestFailingHubGetsRetriesPlusOneRequests counts the requests a Hub that
// never succeeds receives: one loop sends each request at most Retries+1
// times, whatever mix of failures the Hub answers with, and logs each.
func TestFailingHubGetsRetriesPlusOneRequests(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		listing  bool // fail the listing, not the snapshot
		fail     func(t *testing.T, n int64, w http.ResponseWriter)
		wantText string
	}{
		{"listing 500", true, func(t *testing.T, n int64, w http.ResponseWriter) {
			w.WriteHeader(http.StatusInternalServerError)
		}, "answered 500 Internal Server Error"},
		{"snapshot 503", false, func(t *testing.T, n int64, w http.ResponseWriter) {
			w.WriteHeader(http.StatusServiceUnavailable)
		}, "answered 503 Service Unavailable"},
		{"snapshot cut off", false, func(t *testing.T, n int64, w http.ResponseWriter) {
			cutOff(t, w)
		}, "cut off"},
		{"snapshot hang-up", false, func(t *testing.T, n int64, w http.ResponseWriter) {
			hangUp(t, w)
		}, "cannot reach the hub"},
		// Before one loop, a body cut off was retried around a get that
		// retried a 503 again: (Retries+1)^2 requests.
		{"snapshot 503 then cut off, in turn", false, func(t *testing.T, n int64, w http.ResponseWriter) {
			if n%2 == 1 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			cutOff(t, w)
		}, ""},
	} {
		for _, retries := range []int{0, 1, 3} {
			t.Run(fmt.Sprintf("%s/retries %d", tc.name, retries), func(t *testing.T) {
				t.Parallel()
				h, l := newHub(t)
				var n atomic.Int64
				h.Fault = func(w http.ResponseWriter, r *http.Request) bool {
					if strings.HasSuffix(r.URL.Path, "/snapshot") == tc.listing {
						return false
					}
					tc.fail(t, n.Add(1), w)
					return true
				}
				var log syncBuffer
				c := newClient(t, h, retries, &log)
				var err error
				if tc.listing {
					_, err = c.ListReleases(context.Background(), "shop", "dev")
				} else {
					_, err = c.FetchSnapshot(context.Background(), "shop", l, "", t.TempDir())
				}
				if err == nil || !strings.Contains(err.Error(), tc.wantText) {
					t.Errorf("err = %v, want it to say %q", err, tc.wantText)
				}
				if got, want := n.Load(), int64(retries+1); got != want {
					t.Errorf("the Hub received %d requests, want %d (Retries+1)", got, want)
				}
				if got, want := log.count("msg=\"hub request\""), retries+1; got != want {
					t.Errorf("%d attempts logged, want %d", got, want)
				}
				if got, want := log.count("msg=\"hub retry\""), retries; got != want {
					t.Errorf("%d retries logged, want %d", got, want)
				}
			})
		}
	}
}

// TestRetryAfterOverTheCapFailsAtOnce checks that a Retry-After longer than
// MaxRetryAfter is not waited for, and a shorter one is.
func TestRetryAfterOverTheCapFailsAtOnce(t *testing.T) {
	t.Parallel()
	h, l := newHub(t)
	var n atomic.Int64
	h.Fault = func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasSuffix(r.URL.Path, "/snapshot") {
			return false
		}
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
		} else {
			w.Header().Set("Retry-After", "120")
		}
		w.WriteHeader(http.StatusTooManyRequests)
		return true
	}
	c := newClient(t, h, 3, &syncBuffer{})
	start := time.Now()
	_, err := c.FetchSnapshot(context.Background(), "shop", l, "", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "asks to retry after 2m0s") {
		t.Errorf("err = %v, want it to say the Hub asks to retry after 2m0s", err)
	}
	if got, want := n.Load(), int64(2); got != want {
		t.Errorf("the Hub received %d requests, want %d", got, want)
	}
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("finished after %v, want the first Retry-After of 1s waited", waited)
	}
}

// TestBackoffIsCapped checks that the wait doubles from Backoff, stays
// under MaxBackoff plus its jitter, and that Retry-After wins.
func TestBackoffIsCapped(t *testing.T) {
	t.Parallel()
	c := &Client{Backoff: 100 * time.Millisecond, MaxBackoff: time.Second}
	for attempt, want := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		want *= time.Millisecond
		if attempt == 5 {
			attempt = 200 // far past any shift
		}
		for range 20 {
			if got := c.backoff(attempt, 0); got < want || got > want+want/4 {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", attempt, got, want, want+want/4)
			}
		}
	}
	if got, want := c.backoff(3, 7*time.Second), 7*time.Second; got != want {
		t.Errorf("backoff with Retry-After = %v, want %v", got, want)
	}
}

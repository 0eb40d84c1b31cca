package indexer

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hubsnap/hubsnap/indexer/hub"
	"github.com/hubsnap/hubsnap/indexer/hubtest"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
)

const testToken = "tok_PLANTED_TOKEN_5f1e"

func TestSyncSuccess(t *testing.T) {
	h := newHub(t)
	h.Token = testToken
	h.Add("shop", shopDoc(t, "rel_41", 41, nil))
	h.Add("shop", shopDoc(t, "rel_42", 42, nil))
	dir := filepath.Join(t.TempDir(), "cache")

	res, err := syncShop(t, h, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.ID != "rel_42" || res.Version != 42 || res.Tables != 6 || res.Logics != 4 || res.Unchanged || !res.Current {
		t.Errorf("got %+v, want rel_42 v42 with 6 tables, 4 logics, current, changed", res)
	}
	if res.Source != snapshot.SourceHub || res.Digest != hubtest.Digest(shopDoc(t, "rel_42", 42, nil)) {
		t.Errorf("origin = %s %s, want hub and the listed digest", res.Source, res.Digest)
	}
	for _, r := range h.Requests() {
		if r.Authorization != "Bearer "+testToken {
			t.Errorf("%s: Authorization = %q, want the bearer token", r.Path, r.Authorization)
		}
	}
	files := tree(t, dir)
	for _, f := range []string{"index.db", "releases/shop/rel_42.json", "releases/shop/dev.current"} {
		if _, ok := files[f]; !ok {
			t.Errorf("cache lacks %s; has %v", f, files)
		}
	}
	for f, sum := range files {
		// The writer keeps an empty -wal and the -shm (store/persist.go).
		if strings.Contains(f, ".part-") || strings.HasSuffix(f, "-wal") && sum != emptySum {
			t.Errorf("leftover file %s", f)
		}
	}
	if got := readFile(t, filepath.Join(dir, "releases/shop/dev.current")); got != "rel_42\n" {
		t.Errorf("dev.current = %q, want %q", got, "rel_42\n")
	}
	cur, err := current(t, dir)
	if err != nil || cur.ID != "rel_42" {
		t.Errorf("current = %v, %v; want rel_42", cur.ID, err)
	}
}

func TestSyncUnchangedIsNotDownloadedAgain(t *testing.T) {
	h := newHub(t)
	h.Add("shop", shopDoc(t, "rel_42", 42, nil))
	dir := t.TempDir()
	if _, err := syncShop(t, h, dir, ""); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	res, err := syncShop(t, h, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Unchanged || res.ID != "rel_42" || !res.Current {
		t.Errorf("second sync = %+v, want rel_42 unchanged and current", res)
	}
	if got := h.Downloads(); got != 1 {
		t.Errorf("snapshot downloads = %d, want 1", got)
	}
	assertTree(t, dir, before)
}

func TestSyncNotModified(t *testing.T) {
	h := newHub(t)
	body := shopDoc(t, "rel_42", 42, nil)
	h.Add("shop", body)
	dir := t.TempDir()
	if _, err := syncShop(t, h, dir, ""); err != nil {
		t.Fatal(err)
	}
	// The listing now names another digest, but the snapshot itself has not
	// changed: the Hub answers the conditional request with 304.
	h.AddListed("shop", hubtest.Release{ID: "rel_42", Version: 42, Environment: "dev",
		Digest: "sha256:" + strings.Repeat("ab", 32)}, body)
	before := tree(t, dir)
	res, err := syncShop(t, h, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Unchanged {
		t.Errorf("got %+v, want unchanged after a 304", res)
	}
	reqs := h.Requests()
	last := reqs[len(reqs)-1]
	if last.IfNoneMatch != `"`+hubtest.Digest(body)+`"` || last.Status != http.StatusNotModified {
		t.Errorf("last request %+v, want If-None-Match with the cached digest answered 304", last)
	}
	if h.Downloads() != 1 {
		t.Errorf("downloads = %d, want 1", h.Downloads())
	}
	assertTree(t, dir, before)
}

func TestSyncChangedReleaseIsReindexed(t *testing.T) {
	h := newHub(t)
	h.Add("shop", shopDoc(t, "rel_42", 42, nil))
	dir := t.TempDir()
	if _, err := syncShop(t, h, dir, ""); err != nil {
		t.Fatal(err)
	}
	h.Add("shop", shopDoc(t, "rel_42", 42, func(doc map[string]any) {
		doc["tables"] = doc["tables"].([]any)[:2]
	}))
	res, err := syncShop(t, h, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Unchanged || res.Tables != 2 {
		t.Errorf("got %+v, want a re-indexed release with 2 tables", res)
	}
	tables := tablesOf(t, dir)
	if len(tables) != 2 {
		t.Errorf("index has tables %v, want 2", tables)
	}
}

func TestSyncPicksHighestVersionOrGivenRelease(t *testing.T) {
	h := newHub(t)
	h.Add("shop", shopDoc(t, "rel_7", 7, nil))
	h.Add("shop", shopDoc(t, "rel_12", 12, nil)) // highest, though "rel_7" sorts later
	h.Add("shop", shopDoc(t, "rel_9", 9, nil))
	h.Add("shop", shopDoc(t, "rel_99", 99, func(doc map[string]any) {
		doc["release"].(map[string]any)["environment"] = "prod"
	}))
	dir := t.TempDir()
	res, err := syncShop(t, h, dir, "")
	if err != nil || res.ID != "rel_12" {
		t.Fatalf("newest dev release = %v, %v; want rel_12", res.ID, err)
	}
	res, err = syncShop(t, h, dir, "rel_7")
	if err != nil || res.ID != "rel_7" || !res.Current {
		t.Fatalf("--release rel_7 = %+v, %v; want rel_7 current", res, err)
	}
	cur, _ := current(t, dir)
	if cur.ID != "rel_7" {
		t.Errorf("current = %s, want rel_7", cur.ID)
	}
	// A release of another environment is not found from dev.
	if _, err := syncShop(t, h, dir, "rel_99"); store.ErrorCode(err) != store.NotFound {
		t.Errorf("rel_99 (prod) from dev: err = %v, want NOT_FOUND", err)
	}
}

func TestSyncRetriesThenSucceeds(t *testing.T) {
	for _, tc := range []struct {
		name       string
		status     int
		retryAfter string
		minWait    time.Duration
	}{
		{"503 once", http.StatusServiceUnavailable, "", 0},
		{"429 with Retry-After", http.StatusTooManyRequests, "1", time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHub(t)
			h.Add("shop", shopDoc(t, "rel_42", 42, nil))
			var failed atomic.Bool
			var firstAt atomic.Int64
			h.Fault = func(w http.ResponseWriter, r *http.Request) bool {
				if strings.HasSuffix(r.URL.Path, "/snapshot") && !failed.Swap(true) {
					firstAt.Store(time.Now().UnixNano())
					if tc.retryAfter != "" {
						w.Header().Set("Retry-After", tc.retryAfter)
					}
					w.WriteHeader(tc.status)
					return true
				}
				return false
			}
			res, err := syncShop(t, h, t.TempDir(), "")
			if err != nil || res.ID != "rel_42" {
				t.Fatalf("sync = %v, %v; want rel_42", res.ID, err)
			}
			if waited := time.Since(time.Unix(0, firstAt.Load())); waited < tc.minWait {
				t.Errorf("retried after %v, want at least the Retry-After of %v", waited, tc.minWait)
			}
		})
	}
}

func TestSyncGzip(t *testing.T) {
	h := newHub(t)
	h.Gzip = true
	h.Add("shop", shopDoc(t, "rel_42", 42, nil))
	res, err := syncShop(t, h, t.TempDir(), "")
	if err != nil || res.Tables != 6 {
		t.Fatalf("gzip sync = %+v, %v; want 6 tables", res, err)
	}
}

// TestSyncFailuresLeaveCacheUnchanged runs each failure against a cache that
// already serves rel_41 and checks the error message, that the token is not
// in it, and that every file of the cache is byte-for-byte as before.
func TestSyncFailuresLeaveCacheUnchanged(t *testing.T) {
	body42 := shopDoc(t, "rel_42", 42, nil)
	closedURL := closedAddr(t)

	for _, tc := range []struct {
		name    string
		prepare func(h *hubtest.Hub, opts *SyncOptions)
		timeout time.Duration
		want    []string
	}{
		{"401 wrong token", func(h *hubtest.Hub, o *SyncOptions) {
			h.Add("shop", body42)
			o.Hub = clientTo(t, h.URL(), "wrong-token")
		}, 0, []string{"rejected the token", "401"}},
		{"401 no token", func(h *hubtest.Hub, o *SyncOptions) {
			o.Hub = clientTo(t, h.URL(), "")
		}, 0, []string{"requires a token", "HUBSNAP_TOKEN"}},
		{"403", func(h *hubtest.Hub, o *SyncOptions) {
			h.Fault = status(http.StatusForbidden, "")
		}, 0, []string{"token", "403"}},
		{"404 project", func(h *hubtest.Hub, o *SyncOptions) {
			o.Project = "nope"
		}, 0, []string{`project "nope" not found`}},
		{"release not listed", func(h *hubtest.Hub, o *SyncOptions) {
			o.Release = "rel_9"
		}, 0, []string{`release "rel_9" not found`}},
		{"404 snapshot", func(h *hubtest.Hub, o *SyncOptions) {
			h.Add("shop", body42)
			h.Fault = onSnapshot(status(http.StatusNotFound, ""))
		}, 0, []string{`release "rel_42" of project "shop" not found`}},
		{"500 forever", func(h *hubtest.Hub, o *SyncOptions) {
			h.Add("shop", body42)
			h.Fault = onSnapshot(status(http.StatusInternalServerError, ""))
		}, 0, []string{"500 Internal Server Error", "4 times"}},
		{"429 asks for a long wait", func(h *hubtest.Hub, o *SyncOptions) {
			h.Add("shop", body42)
			h.Fault = onSnapshot(status(http.StatusTooManyRequests, "3600"))
		}, 0, []string{"retry after 1h0m0s"}},
		{"digest mismatch", func(h *hubtest.Hub, o *SyncOptions) {
			h.AddListed("shop", listed("rel_42", []byte("something else")), body42)
		}, 0, []string{"digest mismatch", "nothing was written"}},
		{"truncated body", func(h *hubtest.Hub, o *SyncOptions) {
			h.Add("shop", body42)
			h.Fault = onSnapshot(func(w http.ResponseWriter, r *http.Request) bool {
				truncated(t, w, body42)
				return true
			})
		}, 0, []string{"cut off"}},
		{"invalid JSON", func(h *hubtest.Hub, o *SyncOptions) {
			bad := []byte(`{"formatVersion": 1, "release": {`)
			h.AddListed("shop", listed("rel_42", bad), bad)
		}, 0, []string{"invalid JSON"}},
		{"invalid snapshot", func(h *hubtest.Hub, o *SyncOptions) {
			h.Add("shop", shopDoc(t, "rel_42", 42, func(doc map[string]any) {
				cols := doc["tables"].([]any)[1].(map[string]any)["columns"].([]any)
				cols[2].(map[string]any)["name"] = "id"
			}))
		}, 0, []string{`tables[1].columns[2].name: duplicate "id"`}},
		{"oversized with Content-Length", func(h *hubtest.Hub, o *SyncOptions) {
			h.Add("shop", body42)
			o.Hub.MaxBodySize = 1000
		}, 0, []string{"over the 1000 bytes limit"}},
		{"oversized chunked", func(h *hubtest.Hub, o *SyncOptions) {
			h.Add("shop", body42)
			o.Hub.MaxBodySize = 1000
			h.Fault = onSnapshot(func(w http.ResponseWriter, r *http.Request) bool {
				for i := 0; i < len(body42); i += 100 {
					w.Write(body42[i:min(i+100, len(body42))])
					w.(http.Flusher).Flush()
				}
				return true
			})
		}, 0, []string{"over the 1000 bytes limit"}},
		{"gzip bomb over the limit", func(h *hubtest.Hub, o *SyncOptions) {
			zeros := make([]byte, 4<<20)
			h.AddListed("shop", listed("rel_42", zeros), zeros)
			o.Hub.MaxBodySize = 1 << 20
			h.Gzip = true
		}, 0, []string{"over the 1.0 MiB limit"}},
		{"corrupt gzip", func(h *hubtest.Hub, o *SyncOptions) {
			h.Add("shop", body42)
			h.Fault = onSnapshot(func(w http.ResponseWriter, r *http.Request) bool {
				w.Header().Set("Content-Encoding", "gzip")
				w.Write([]byte("not gzip at all"))
				return true
			})
		}, 0, []string{"gzip"}},
		{"unsupported encoding", func(h *hubtest.Hub, o *SyncOptions) {
			h.Add("shop", body42)
			h.Fault = onSnapshot(func(w http.ResponseWriter, r *http.Request) bool {
				w.Header().Set("Content-Encoding", "br")
				w.Write(body42)
				return true
			})
		}, 0, []string{`unsupported Content-Encoding "br"`}},
		{"unreachable hub", func(h *hubtest.Hub, o *SyncOptions) {
			o.Hub = clientTo(t, closedURL, testToken)
		}, 0, []string{"cannot reach the hub at " + closedURL}},
		{"path traversal in listing", func(h *hubtest.Hub, o *SyncOptions) {
			h.AddListed("shop", hubtest.Release{ID: "../../x", Version: 99, Environment: "dev",
				Digest: hubtest.Digest(body42)}, body42)
		}, 0, []string{`"../../x" that is not valid`}},
		{"hub sends another release", func(h *hubtest.Hub, o *SyncOptions) {
			other := shopDoc(t, "rel_43", 43, nil)
			h.AddListed("shop", listed("rel_42", other), other)
		}, 0, []string{`sent release "rel_43"`, "nothing was written"}},
		{"hub sends another environment", func(h *hubtest.Hub, o *SyncOptions) {
			prod := shopDoc(t, "rel_42", 42, func(doc map[string]any) {
				doc["release"].(map[string]any)["environment"] = "prod"
			})
			h.AddListed("shop", listed("rel_42", prod), prod)
		}, 0, []string{"shop/prod"}},
		{"bad digest in listing", func(h *hubtest.Hub, o *SyncOptions) {
			r := listed("rel_42", body42)
			r.Digest = "md5:1234"
			h.AddListed("shop", r, body42)
		}, 0, []string{`digest "md5:1234"`}},
		{"timeout", func(h *hubtest.Hub, o *SyncOptions) {
			h.Add("shop", body42)
			h.Fault = onSnapshot(func(w http.ResponseWriter, r *http.Request) bool {
				<-r.Context().Done()
				return true
			})
		}, 300 * time.Millisecond, []string{"timed out"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "cache")
			h := newHub(t)
			h.Token = testToken
			h.Add("shop", shopDoc(t, "rel_41", 41, nil))
			if _, err := syncShop(t, h, dir, ""); err != nil {
				t.Fatal(err)
			}
			before := tree(t, root)

			opts := SyncOptions{CacheDir: dir, Hub: client(t, h, testToken), Project: "shop", Environment: "dev", Log: testLog(t)}
			tc.prepare(h, &opts)
			ctx := context.Background()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			_, err := Sync(ctx, opts)
			if err == nil {
				t.Fatal("sync succeeded, want an error")
			}
			t.Logf("error: %v", err)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if strings.Contains(err.Error(), testToken) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q shows the token or spans lines", err)
			}
			assertTree(t, root, before)
			if cur, err := current(t, dir); err != nil || cur.ID != "rel_41" {
				t.Errorf("current = %v, %v; want rel_41 still", cur.ID, err)
			}
		})
	}
}

func TestSyncFailureOnEmptyCacheCreatesNothing(t *testing.T) {
	h := newHub(t)
	h.Fault = status(http.StatusInternalServerError, "")
	root := t.TempDir()
	dir := filepath.Join(root, "cache")
	if _, err := syncShop(t, h, dir, ""); err == nil {
		t.Fatal("want an error")
	}
	assertTree(t, root, map[string]string{"./": ""})
}

func TestSyncNeverSendsTheTokenElsewhere(t *testing.T) {
	// A redirect to another host must not carry the token along.
	var leaked atomic.Value
	other := newHub(t)
	other.Fault = func(w http.ResponseWriter, r *http.Request) bool {
		leaked.Store(r.Header.Get("Authorization"))
		w.WriteHeader(http.StatusNotFound)
		return true
	}
	h := newHub(t)
	otherURL := strings.Replace(other.URL(), "127.0.0.1", "localhost", 1)
	h.Fault = func(w http.ResponseWriter, r *http.Request) bool {
		http.Redirect(w, r, otherURL+r.URL.RequestURI(), http.StatusFound)
		return true
	}
	_, err := syncShop(t, h, t.TempDir(), "")
	if err == nil {
		t.Fatal("want an error")
	}
	if v, _ := leaked.Load().(string); v != "" {
		t.Errorf("the redirect target got Authorization %q", v)
	}
}

func TestSecretsNeverReachTheCache(t *testing.T) {
	secrets := []string{
		"PLANTED_CONN_PASSWORD", "PLANTED_ANALYTICS_PASSWORD", "sk_live_PLANTED_PAYMENT_KEY", testToken,
		"PLANTED_PASSWORD_FIELD", "PLANTED_DOC_FIELD", "PLANTED_DOC_KEY", "PLANTED_TABLE_FIELD",
		"PLANTED_COLUMN_FIELD", "PLANTED_LOGIC_FIELD", "PLANTED_RELEASE_FIELD", "PLANTED_FK_FIELD",
		"PLANTED_PARAM_FIELD", "PLANTED_AUTH_FIELD", "PLANTED_INDEX_FIELD", "PLANTED_CONN_FIELD",
		"PLANTED_SECRET_NAME", "postgres://", "clickhouse://",
	}
	doc := shopDoc(t, "rel_42", 42, func(doc map[string]any) {
		doc["PLANTED_DOC_KEY"] = "PLANTED_DOC_FIELD"
		doc["release"].(map[string]any)["internal"] = "PLANTED_RELEASE_FIELD"
		conn := doc["connections"].([]any)[0].(map[string]any)
		conn["password"] = "PLANTED_PASSWORD_FIELD"
		conn["options"] = map[string]any{"sslkey": "PLANTED_CONN_FIELD"}
		table := doc["tables"].([]any)[1].(map[string]any)
		table["owner"] = "PLANTED_TABLE_FIELD"
		table["columns"].([]any)[0].(map[string]any)["masking"] = "PLANTED_COLUMN_FIELD"
		table["foreignKeys"].([]any)[0].(map[string]any)["internal"] = "PLANTED_FK_FIELD"
		table["indexes"].([]any)[0].(map[string]any)["where"] = "PLANTED_INDEX_FIELD"
		logic := doc["logics"].([]any)[0].(map[string]any)
		logic["connectionString"] = "PLANTED_LOGIC_FIELD"
		logic["secrets"].(map[string]any)["PLANTED_SECRET_NAME"] = "x"
		logic["params"].([]any)[0].(map[string]any)["example"] = "PLANTED_PARAM_FIELD"
		logic["auth"].(map[string]any)["apiKey"] = "PLANTED_AUTH_FIELD"
	})
	for _, s := range secrets[:3] {
		if !bytes.Contains(doc, []byte(s)) {
			t.Fatalf("the fixture lacks %s", s)
		}
	}
	h := newHub(t)
	h.Token = testToken
	h.Add("shop", doc)
	dir := t.TempDir()
	if _, err := syncShop(t, h, dir, ""); err != nil {
		t.Fatal(err)
	}
	if found := grepFiles(t, dir, secrets...); len(found) > 0 {
		t.Errorf("secrets in the cache after sync: %v", found)
	}

	// The same with the index open and the release still in its WAL (no
	// checkpoint yet), so the WAL and shared memory files are read too.
	c, err := Open(context.Background(), dir, testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	snap, err := snapshot.Decode(doc)
	if err != nil {
		t.Fatal(err)
	}
	snap.Release.ID = "rel_43"
	snap.Origin = snapshot.Origin{Source: snapshot.SourceImport, Digest: hubtest.Digest(doc), SyncedAt: now()}
	if err := c.Store().PutRelease(context.Background(), snap, store.FileState{}, true, nil); err != nil {
		t.Fatal(err)
	}
	wal, err := os.Stat(filepath.Join(dir, "index.db-wal"))
	if err != nil || wal.Size() == 0 {
		t.Fatalf("want a WAL holding the release: %v, %v", wal, err)
	}
	if found := grepFiles(t, dir, secrets...); len(found) > 0 {
		t.Errorf("secrets in the cache with the index open: %v", found)
	}
	// What must survive does.
	if found := grepFiles(t, dir, "purchase_item", "posts_author_fk", "Blog posts"); len(found) != 3 {
		t.Errorf("named fields missing from the cache: found only %v", found)
	}
}

// --- helpers ---

func clientTo(tb testing.TB, url, token string) *hub.Client {
	tb.Helper()
	c, err := hub.New(url, hub.Options{Token: token, ConnectTimeout: 2 * time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	c.Backoff = time.Millisecond
	return c
}

func listed(id string, body []byte) hubtest.Release {
	return hubtest.Release{ID: id, Version: 42, Environment: "dev", CreatedAt: "2026-11-01T10:00:00Z", Digest: hubtest.Digest(body)}
}

func status(code int, retryAfter string) func(http.ResponseWriter, *http.Request) bool {
	return func(w http.ResponseWriter, r *http.Request) bool {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		http.Error(w, http.StatusText(code), code)
		return true
	}
}

func onSnapshot(f func(http.ResponseWriter, *http.Request) bool) func(http.ResponseWriter, *http.Request) bool {
	return func(w http.ResponseWriter, r *http.Request) bool {
		return strings.HasSuffix(r.URL.Path, "/snapshot") && f(w, r)
	}
}

// truncated announces all of body but sends half, then drops the connection.
func truncated(tb testing.TB, w http.ResponseWriter, body []byte) {
	conn, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		tb.Error(err)
		return
	}
	defer conn.Close()
	fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
	buf.Write(body[:len(body)/2])
	buf.Flush()
}

// closedAddr returns the URL of a loopback port nothing listens on.
func closedAddr(tb testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func tablesOf(tb testing.TB, dir string) []string {
	tb.Helper()
	c, err := Open(context.Background(), dir, testLog(tb))
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	names, err := readTableNames(tb, c.Store(), store.Target{Project: "shop", Environment: "dev"})
	if err != nil {
		tb.Fatal(err)
	}
	return names
}

func TestSyncDoesNotTrustACachedReleaseOfAnotherEnvironment(t *testing.T) {
	// The Hub lists under dev a release the cache holds for prod, with the
	// same digest: hubsnap must not count it as unchanged (which would make
	// it current for prod again); it downloads it and finds the mismatch.
	h := newHub(t)
	prod := shopDoc(t, "rel_42", 42, func(doc map[string]any) {
		doc["release"].(map[string]any)["environment"] = "prod"
	})
	h.Add("shop", prod)
	dir := t.TempDir()
	if _, err := Sync(context.Background(), SyncOptions{CacheDir: dir, Hub: client(t, h, ""), Project: "shop",
		Environment: "prod", Log: testLog(t)}); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	h.AddListed("shop", hubtest.Release{ID: "rel_42", Version: 42, Environment: "dev", Digest: hubtest.Digest(prod)}, prod)
	_, err := syncShop(t, h, dir, "")
	if err == nil || !strings.Contains(err.Error(), "shop/prod when asked for") {
		t.Fatalf("sync = %v, want the environment mismatch", err)
	}
	assertTree(t, dir, before)
}

// TestConcurrentSyncs runs syncs of two releases at once on one cache, as
// two terminals or a script and a person might: each waits for the other
// (or says clearly why it stopped), and the cache ends consistent.
func TestConcurrentSyncs(t *testing.T) {
	h := newHub(t)
	h.Add("shop", shopDoc(t, "rel_41", 41, nil))
	h.Add("shop", shopDoc(t, "rel_42", 42, nil))
	dir := t.TempDir()
	errs := make(chan error, 6)
	for i := range 6 {
		release := ""
		if i%2 == 0 {
			release = "rel_41"
		}
		go func() {
			_, err := syncShop(t, h, dir, release)
			errs <- err
		}()
	}
	for range 6 {
		if err := <-errs; err != nil && !strings.Contains(err.Error(), "the index is busy") {
			t.Errorf("concurrent sync: %v", err)
		}
	}
	c := openCache(t, dir)
	list, err := c.Releases(context.Background(), "shop")
	if err != nil || len(list) != 2 {
		t.Fatalf("releases = %v, %v; want rel_41 and rel_42", list, err)
	}
	cur, err := c.Store().Current(context.Background(), shopDev)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(readFile(t, filepath.Join(dir, "releases/shop/dev.current"))); got != cur.ID {
		t.Errorf("dev.current says %s, the index %s", got, cur.ID)
	}
	for f := range tree(t, dir) {
		if strings.Contains(f, ".part-") {
			t.Errorf("leftover temp file %s", f)
		}
	}
}

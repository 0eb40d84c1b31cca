package indexer

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hubsnap/hubsnap/indexer/hub"
	"github.com/hubsnap/hubsnap/indexer/hubtest"
)

// fetch downloads release id of shop from h into dir and returns the
// file's path. The file is closed when the test ends.
func fetch(t *testing.T, h *hubtest.Hub, l hub.Listing, dir string) (string, error) {
	t.Helper()
	c := client(t, h, h.Token)
	c.Retries = 1
	f, err := c.FetchSnapshot(context.Background(), "shop", l, "", dir)
	if err != nil {
		return "", err
	}
	t.Cleanup(func() { f.Close() })
	return f.Name(), nil
}

func TestFetchSnapshotToTempFile(t *testing.T) {
	t.Parallel()
	body := shopDoc(t, "rel_42", 42, nil)
	for _, gz := range []bool{false, true} {
		h := newHub(t)
		h.Gzip = gz
		h.Add("shop", body)
		dir := t.TempDir()
		path, err := fetch(t, h, hub.Listing{ID: "rel_42", Digest: hubtest.Digest(body)}, dir)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Dir(path) != dir || !strings.HasPrefix(filepath.Base(path), ".rel_42.download.part-") {
			t.Errorf("gzip %v: downloaded to %s, want a temp file .rel_42.download.part-* in %s", gz, path, dir)
		}
		// The file holds the document as decoded, the bytes of the digest.
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, body) {
			t.Errorf("gzip %v: the file holds %d bytes (%v), want the %d of the document", gz, len(got), err, len(body))
		}
	}
}

func TestFetchSnapshotLeavesNothingOnFailure(t *testing.T) {
	t.Parallel()
	body := shopDoc(t, "rel_42", 42, nil)
	for _, tc := range []struct {
		name  string
		setup func(h *hubtest.Hub, l *hub.Listing, c *hub.Client)
		want  string
	}{
		{"digest mismatch", func(h *hubtest.Hub, l *hub.Listing, c *hub.Client) {
			l.Digest = hubtest.Digest([]byte("something else"))
		}, "digest mismatch"},
		{"truncated", func(h *hubtest.Hub, l *hub.Listing, c *hub.Client) {
			h.Fault = onSnapshot(func(w http.ResponseWriter, r *http.Request) bool {
				truncated(t, w, body)
				return true
			})
		}, "cut off"},
		{"over the limit", func(h *hubtest.Hub, l *hub.Listing, c *hub.Client) {
			c.MaxBodySize = 1000
			h.Fault = onSnapshot(func(w http.ResponseWriter, r *http.Request) bool {
				w.Write(body) // chunked: no Content-Length to refuse it early
				return true
			})
		}, "over the 1000 bytes limit"},
		{"corrupt gzip", func(h *hubtest.Hub, l *hub.Listing, c *hub.Client) {
			h.Fault = onSnapshot(func(w http.ResponseWriter, r *http.Request) bool {
				w.Header().Set("Content-Encoding", "gzip")
				w.Write([]byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03not gzip at all"))
				return true
			})
		}, "gzip"},
		{"404", func(h *hubtest.Hub, l *hub.Listing, c *hub.Client) {
			h.Fault = onSnapshot(status(http.StatusNotFound, ""))
		}, "not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHub(t)
			h.Add("shop", body)
			l := hub.Listing{ID: "rel_42", Digest: hubtest.Digest(body)}
			c := client(t, h, "")
			c.Retries = 1
			tc.setup(h, &l, c)
			dir := t.TempDir()
			_, err := c.FetchSnapshot(context.Background(), "shop", l, "", dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to mention %q", err, tc.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				t.Errorf("left %s in the folder", entries[0].Name())
			}
		})
	}
}

// TestFetchSnapshotStreams checks that a download goes to its file
// without being held in memory.
func TestFetchSnapshotStreams(t *testing.T) {
	body := bytes.Repeat([]byte(`{"name":"PLANTED"},`), 64<<20/19)
	h := newHub(t)
	h.AddListed("shop", listed("rel_42", body), body)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	path, err := fetch(t, h, hub.Listing{ID: "rel_42", Digest: hubtest.Digest(body)}, t.TempDir())
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(path); err != nil || info.Size() != int64(len(body)) {
		t.Fatalf("downloaded file: %v, %v; want %d bytes", info, err, len(body))
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
		t.Errorf("downloading %d MiB allocated %d MiB, want at most 8 (Hub included)", len(body)>>20, got>>20)
	}
}

// TestSyncDownloadsBesideItsReleaseFile checks where the download goes
// while it comes, and that nothing of it is left.
func TestSyncDownloadsBesideItsReleaseFile(t *testing.T) {
	body := shopDoc(t, "rel_42", 42, nil)
	h := newHub(t)
	h.Add("shop", body)
	half, resume := make(chan struct{}), make(chan struct{})
	h.Fault = onSnapshot(func(w http.ResponseWriter, r *http.Request) bool {
		w.Write(body[:len(body)/2])
		w.(http.Flusher).Flush()
		close(half)
		<-resume
		w.Write(body[len(body)/2:])
		return true
	})
	dir := filepath.Join(t.TempDir(), "cache")
	done := make(chan error, 1)
	go func() {
		_, err := syncShop(t, h, dir, "")
		done <- err
	}()
	select {
	case <-half:
	case <-time.After(10 * time.Second):
		t.Fatal("the download did not start")
	}
	var temps []string
	deadline := time.Now().Add(10 * time.Second)
	for len(temps) == 0 && time.Now().Before(deadline) {
		temps, _ = filepath.Glob(filepath.Join(dir, "releases", "shop", ".rel_42.download.part-*"))
		time.Sleep(10 * time.Millisecond)
	}
	close(resume)
	if len(temps) != 1 {
		t.Errorf("during the download, temp files %v, want one .rel_42.download.part-* in releases/shop", temps)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for f := range tree(t, dir) {
		if strings.Contains(f, ".part-") {
			t.Errorf("leftover file %s", f)
		}
	}
}

func TestSyncFailedDownloadOnEmptyCacheCreatesNothing(t *testing.T) {
	body := shopDoc(t, "rel_42", 42, nil)
	for name, prepare := range map[string]func(h *hubtest.Hub){
		"digest mismatch": func(h *hubtest.Hub) { h.AddListed("shop", listed("rel_42", []byte("other")), body) },
		"invalid snapshot": func(h *hubtest.Hub) {
			bad := []byte(`{"formatVersion":2}`)
			h.AddListed("shop", listed("rel_42", bad), bad)
		},
	} {
		h := newHub(t)
		prepare(h)
		root := t.TempDir()
		if _, err := syncShop(t, h, filepath.Join(root, "cache"), ""); err == nil {
			t.Fatalf("%s: sync succeeded", name)
		}
		assertTree(t, root, map[string]string{"./": ""})
	}
}

func TestImportOverTheLimit(t *testing.T) {
	// Not parallel: it lowers the limit of every import.
	defer func(old int64) { maxImportSize = old }(maxImportSize)
	doc := shopDoc(t, "rel_42", 42, nil)
	maxImportSize = int64(len(doc))
	dir := t.TempDir()
	res, err := Import(context.Background(), dir, "-", bytes.NewReader(doc), testLog(t))
	if err != nil {
		t.Fatalf("import at the limit: %v", err)
	}
	if res.Digest != hubtest.Digest(doc) {
		t.Errorf("digest = %s, want the sha256 of the document %s", res.Digest, hubtest.Digest(doc))
	}

	maxImportSize = int64(len(doc)) - 1
	_, err = Import(context.Background(), dir, "-", bytes.NewReader(doc), testLog(t))
	if _, ok := errors.AsType[*tooLargeError](err); !ok || !strings.HasPrefix(err.Error(), "standard input: over the ") {
		t.Errorf("import of standard input over the limit: %v", err)
	}
	file := filepath.Join(t.TempDir(), "big.json")
	writeFile(t, file, doc)
	if _, err = Import(context.Background(), dir, file, nil, testLog(t)); err == nil || !strings.Contains(err.Error(), "over the") {
		t.Errorf("import of a file over the limit: %v", err)
	}
}

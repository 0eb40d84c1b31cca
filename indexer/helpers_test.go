package indexer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hubsnap/hubsnap/indexer/hub"
	"github.com/hubsnap/hubsnap/indexer/hubtest"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
)

// shopDoc returns testdata/snapshots/shop.json with its release id and
// version replaced, and edit (when not nil) applied to the decoded JSON.
func shopDoc(tb testing.TB, id string, version int64, edit func(doc map[string]any)) []byte {
	tb.Helper()
	raw, err := os.ReadFile("../testdata/snapshots/shop.json")
	if err != nil {
		tb.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		tb.Fatal(err)
	}
	rel := doc["release"].(map[string]any)
	rel["id"], rel["version"] = id, version
	if edit != nil {
		edit(doc)
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func newHub(tb testing.TB) *hubtest.Hub {
	tb.Helper()
	h := hubtest.New()
	tb.Cleanup(h.Close)
	return h
}

// client returns a Hub client for h with fast retries.
func client(tb testing.TB, h *hubtest.Hub, token string) *hub.Client {
	tb.Helper()
	c, err := hub.New(h.URL(), hub.Options{Token: token})
	if err != nil {
		tb.Fatal(err)
	}
	c.Backoff = time.Millisecond
	return c
}

// testLog returns a logger that writes into the test's log.
func testLog(tb testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tbWriter{tb}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tbWriter struct{ tb testing.TB }

func (w tbWriter) Write(p []byte) (int, error) {
	w.tb.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// syncShop syncs project shop, environment dev, from h into dir.
func syncShop(tb testing.TB, h *hubtest.Hub, dir, release string) (Result, error) {
	tb.Helper()
	return Sync(context.Background(), SyncOptions{
		CacheDir: dir, Hub: client(tb, h, h.Token), Project: "shop", Environment: "dev", Release: release, Log: testLog(tb),
	})
}

// emptySum is tree's digest of an empty file.
const emptySum = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// tree maps every file under dir (slash paths) to the sha256 of its bytes.
// Folders are listed with a trailing slash. The index's -shm file, SQLite's
// shared memory that a writer keeps (store/persist.go), holds no data: it
// is listed with no digest.
func tree(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && path == dir {
				return fs.SkipDir
			}
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		if strings.HasSuffix(rel, indexFile+"-shm") {
			out[rel] = ""
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		out[rel] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// assertTree fails when dir's files differ from want.
func assertTree(tb testing.TB, dir string, want map[string]string) {
	tb.Helper()
	if diff := cmp.Diff(want, tree(tb, dir)); diff != "" {
		tb.Errorf("cache changed (-before +after):\n%s", diff)
	}
}

// current returns the current release of shop/dev in dir's index.
func current(tb testing.TB, dir string) (store.ReleaseInfo, error) {
	tb.Helper()
	c, err := Open(context.Background(), dir, testLog(tb))
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	return c.Store().Current(context.Background(), store.Target{Project: "shop", Environment: "dev"})
}

// grepFiles returns, for each needle, the files under dir whose bytes
// contain it.
func grepFiles(tb testing.TB, dir string, needles ...string) map[string][]string {
	tb.Helper()
	found := map[string][]string{}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		for _, n := range needles {
			if bytes.Contains(data, []byte(n)) {
				found[n] = append(found[n], path)
			}
		}
		return nil
	})
	return found
}

func readFile(tb testing.TB, path string) string {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return string(data)
}

func writeFile(tb testing.TB, path string, data []byte) {
	tb.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		tb.Fatal(err)
	}
}

func removeFile(path string) error { return os.Remove(path) }

// readRelease returns the document of the release file at path, plain or
// compressed (release_codec.go).
func readRelease(tb testing.TB, path string) string {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	doc, closeDoc, err := unpack(filepath.Base(path), f)
	if err != nil {
		tb.Fatal(err)
	}
	defer closeDoc()
	data, err := io.ReadAll(doc)
	if err != nil {
		tb.Fatal(err)
	}
	return string(data)
}

// answerTable is what the indexer's tests read of a schema_get_table answer.
type answerTable struct {
	Name       string `json:"name"`
	Connection string `json:"connection"`
	Comment    string `json:"comment"`
	Columns    []struct {
		Name string `json:"name"`
	} `json:"columns"`
	ForeignKeys []struct {
		References struct {
			Table string `json:"table"`
		} `json:"references"`
	} `json:"foreignKeys"`
}

// readTable reads a table of t's current release as schema_get_table
// answers it.
func readTable(tb testing.TB, st *store.Store, t store.Target, connection, name string) (*answerTable, error) {
	tb.Helper()
	js, err := st.TableJSON(context.Background(), t, connection, name)
	if err != nil {
		return nil, err
	}
	var out answerTable
	if err := json.Unmarshal(js, &out); err != nil {
		tb.Fatalf("table %s.%s: %v in %s", connection, name, err, js)
	}
	return &out, nil
}

// readTableNames lists every table of t's current release, page by page,
// as connection.name.
func readTableNames(tb testing.TB, st *store.Store, t store.Target) ([]string, error) {
	tb.Helper()
	var names []string
	cursor := ""
	for {
		js, err := st.TablesPage(context.Background(), t, "", store.PageRequest{Cursor: cursor, Limit: 100})
		if err != nil {
			return nil, err
		}
		var page struct {
			Tables []struct {
				Name       string `json:"name"`
				Connection string `json:"connection"`
			} `json:"tables"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(js, &page); err != nil {
			tb.Fatalf("tables page: %v in %s", err, js)
		}
		for _, r := range page.Tables {
			names = append(names, r.Connection+"."+r.Name)
		}
		if page.NextCursor == "" {
			return names, nil
		}
		cursor = page.NextCursor
	}
}

// encodeRelease renders a snapshot as the JSON of a release file.
func encodeRelease(snap *snapshot.Snapshot) ([]byte, error) {
	var buf bytes.Buffer
	err := snapshot.Encode(&buf, snap)
	return buf.Bytes(), err
}

package indexer

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/storetest"
)

// The release file an import writes, as it decodes the document, holds
// the sanitized release: decoded again, it is the release of the
// document, whatever the order of the document's members.
func TestIngestWritesTheReleaseFile(t *testing.T) {
	ctx := context.Background()
	for name, doc := range map[string][]byte{
		"shop": shopDoc(t, "rel_42", 42, nil),
		// Members in another order: the release last, logics first.
		"reordered": reorder(t, shopDoc(t, "rel_42", 42, nil), "logics", "connections", "tables", "formatVersion", "release"),
		"no lists":  shopDoc(t, "rel_42", 42, func(doc map[string]any) { delete(doc, "tables"); delete(doc, "logics"); delete(doc, "connections") }),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(t.TempDir(), "doc.json")
			writeFile(t, path, doc)
			res, err := Import(ctx, dir, path, nil, testLog(t))
			if err != nil {
				t.Fatal(err)
			}
			want, err := snapshot.Decode(doc)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(dir, "releases/shop/rel_42.json"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := snapshot.Decode(data)
			if err != nil {
				t.Fatalf("the release file does not decode: %v\n%s", err, data)
			}
			if got.Origin.Source != snapshot.SourceImport || got.Origin.Digest != res.Digest || got.Origin.SyncedAt != res.SyncedAt {
				t.Errorf("origin = %+v, want the import's (%s, %s)", got.Origin, res.Digest, res.SyncedAt)
			}
			got.Origin = snapshot.Origin{}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("release file (-document +file):\n%s", diff)
			}
			// Nothing is left beside it.
			if leftovers := temps(t, dir); len(leftovers) > 0 {
				t.Errorf("temp files left: %v", leftovers)
			}
		})
	}
}

// A large release goes through too, and its release file is the one the
// index was built from.
func TestIngestLarge(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("10,000 tables; .ci/run runs it without -race")
	}
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := storetest.WriteRelease(f, storetest.Large); err != nil {
		t.Fatal(err)
	}
	f.Close()
	res, err := Import(ctx, dir, path, nil, testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	if res.Tables != storetest.Large.Tables || res.Logics != storetest.Large.Logics {
		t.Errorf("imported %d tables and %d logics, want %d and %d", res.Tables, res.Logics,
			storetest.Large.Tables, storetest.Large.Logics)
	}
	// Its 18.7 MB of JSON is over packThreshold: the file is compressed.
	if got, want := names(t, filepath.Join(dir, "releases/big")), []string{"dev.current", "rel_big.json.zst"}; !slices.Equal(got, want) {
		t.Errorf("files = %v, want %v", got, want)
	}
	// Rebuilt from its release file alone, the index answers the same.
	c := openCache(t, dir)
	before, err := c.Store().TableJSON(ctx, store.Target{Project: "big", Environment: "dev"}, "", "billing_invoices")
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(filepath.Join(dir, "index.db"+suffix))
	}
	c = openCache(t, dir)
	defer c.Close()
	after, err := c.Store().TableJSON(ctx, store.Target{Project: "big", Environment: "dev"}, "", "billing_invoices")
	if err != nil || string(after) != string(before) {
		t.Errorf("after a rebuild from the release file:\n%s (%v)\nbefore:\n%s", after, err, before)
	}
}

// reorder rewrites a JSON object with its members in the given order.
func reorder(tb testing.TB, doc []byte, keys ...string) []byte {
	tb.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(doc, &m); err != nil {
		tb.Fatal(err)
	}
	out := []byte{'{'}
	for i, k := range keys {
		if i > 0 {
			out = append(out, ',')
		}
		key, _ := json.Marshal(k)
		out = append(append(append(out, key...), ':'), m[k]...)
	}
	return append(out, '}')
}

// temps lists the temp files under dir.
func temps(tb testing.TB, dir string) []string {
	tb.Helper()
	var out []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(path)[0] == '.' {
			out = append(out, path)
		}
		return nil
	})
	return out
}

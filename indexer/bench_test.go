package indexer

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store/storetest"
)

// bigDoc is the snapshot JSON of storetest.Large, the size hubsnap is
// designed for: 10,000 tables, about 160,000 columns, 20,000 foreign keys
// and 2,000 logics (about 11 MiB).
func bigDoc(tb testing.TB) []byte {
	tb.Helper()
	data, err := encodeRelease(storetest.Release(storetest.Large))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// BenchmarkDecode measures decoding, validating and sanitizing the big
// release.
func BenchmarkDecode(b *testing.B) {
	data := bigDoc(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := snapshot.Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeStream measures the streaming decoder alone on the big
// release: every table and logic is decoded, checked and handed to a
// caller that keeps nothing.
func BenchmarkDecodeStream(b *testing.B) {
	data := bigDoc(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		d := snapshot.NewDecoder(bytes.NewReader(data))
		for d.Next() {
		}
		if err := d.Err(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkImport measures the whole offline path for the big release:
// decode, write the release file atomically, index it, make it current.
func BenchmarkImport(b *testing.B) {
	data := bigDoc(b)
	file := filepath.Join(b.TempDir(), "big.json")
	writeFile(b, file, data)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		b.StartTimer()
		if _, err := Import(context.Background(), dir, file, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReconcileUnchanged measures opening a cache holding the big
// release when nothing changed: what every command pays at start.
func BenchmarkReconcileUnchanged(b *testing.B) {
	data := bigDoc(b)
	file := filepath.Join(b.TempDir(), "big.json")
	writeFile(b, file, data)
	dir := b.TempDir()
	if _, err := Import(context.Background(), dir, file, nil, nil); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		c, err := Open(context.Background(), dir, nil)
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

// BenchmarkRebuild measures rebuilding the index of the big release from its
// release file.
func BenchmarkRebuild(b *testing.B) {
	data := bigDoc(b)
	file := filepath.Join(b.TempDir(), "big.json")
	writeFile(b, file, data)
	dir := b.TempDir()
	if _, err := Import(context.Background(), dir, file, nil, nil); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		b.StopTimer()
		removeIndex(b, dir)
		b.StartTimer()
		c, err := Open(context.Background(), dir, nil)
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

func removeIndex(tb testing.TB, dir string) {
	tb.Helper()
	for _, s := range []string{"", "-wal", "-shm"} {
		_ = removeFile(filepath.Join(dir, "index.db"+s))
	}
}

package indexer

import (
	"context"
	"testing"
	"time"

	"github.com/hubsnap/hubsnap/indexer/hub"
)

// BenchmarkSyncUnchanged measures `hubsnap snapshot sync` when the Hub's
// newest release is already cached with the same digest: storetest.Large,
// served by a hubtest Hub over real HTTP on loopback and synced once in
// setup. Each iteration does what runSync (cmd/hubsnap/snapshot.go) does: a
// new Hub client (needHub), then Sync, which lists the releases on the Hub,
// opens the cache (indexer.Open, reconcile included), sees the digest is
// already cached, downloads nothing, keeps the release current and closes
// the cache.
func BenchmarkSyncUnchanged(b *testing.B) {
	data := bigDoc(b)
	h := newHub(b)
	listed := h.Add("big", data)
	dir := b.TempDir()
	syncBig := func(first bool) {
		b.Helper()
		// As runSync: a fresh client per command, with its 5-minute timeout.
		client, err := hub.New(h.URL(), hub.Options{})
		if err != nil {
			b.Fatal(err)
		}
		// The command's process exits afterwards, closing its connection;
		// here the idle keep-alive connection is closed instead.
		defer client.CloseIdleConnections()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		res, err := Sync(ctx, SyncOptions{CacheDir: dir, Hub: client, Project: "big", Environment: "dev"})
		if err != nil {
			b.Fatal(err)
		}
		if res.Unchanged == first || res.ID != listed.ID || res.Digest != listed.Digest || !res.Current {
			b.Fatalf("sync (first %v): %+v, want %s current with digest %s", first, res, listed.ID, listed.Digest)
		}
	}
	syncBig(true) // the real download and indexing, once

	for b.Loop() {
		syncBig(false)
	}
	b.StopTimer()
	if n := h.Downloads(); n != 1 {
		b.Fatalf("the Hub sent the snapshot %d times, want once (in setup)", n)
	}
}

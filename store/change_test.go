package store

import (
	"context"
	"testing"
)

// A Change is the index half of a change whose file half its caller does
// between Begin... and Commit: readers see nothing of it until Commit, and
// a Change rolled back (its file operation failed) leaves the index as it
// was. Data flows one way: store calls nothing of its caller's.
func TestChangeCommitAndRollback(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	put(t, s, smallSnapshot("shop", "rel_41", "dev", 41, "a", 2), true)
	put(t, s, smallSnapshot("shop", "rel_42", "dev", 42, "b", 2), false)
	current := func() string {
		t.Helper()
		ri, err := s.Current(ctx, shopDev)
		if err != nil {
			t.Fatal(err)
		}
		return ri.ID
	}

	ch, err := s.BeginSetCurrent(ctx, "shop", "dev", "rel_42")
	if err != nil {
		t.Fatalf("BeginSetCurrent: %v", err)
	}
	if got := current(); got != "rel_41" {
		t.Errorf("before Commit, readers see %s current, want rel_41", got)
	}
	if err := ch.Commit(); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	ch.Rollback() // after Commit: nothing
	if got := current(); got != "rel_42" {
		t.Errorf("after Commit, %s is current, want rel_42", got)
	}

	ch, err = s.BeginPrune(ctx, ReleaseKey{Project: "shop", ID: "rel_41"})
	if err != nil {
		t.Fatalf("BeginPrune: %v", err)
	}
	ch.Rollback()
	if _, err := s.ReleaseInfo(ctx, ReleaseKey{Project: "shop", ID: "rel_41"}); err != nil {
		t.Errorf("after a rolled back prune: %v, want rel_41 still there", err)
	}
	if err := s.PruneRelease(ctx, ReleaseKey{Project: "shop", ID: "rel_41"}); err != nil {
		t.Fatalf("PruneRelease: %v", err)
	}
	if _, err := s.ReleaseInfo(ctx, ReleaseKey{Project: "shop", ID: "rel_41"}); ErrorCode(err) != NotFound {
		t.Errorf("after PruneRelease: %v, want NOT_FOUND", err)
	}
	if _, err := s.BeginPrune(ctx, ReleaseKey{Project: "shop", ID: "rel_42"}); ErrorCode(err) != InvalidArgument {
		t.Errorf("BeginPrune of the current release: %v, want INVALID_ARGUMENT", err)
	}
	// The write lock was given back each time: another write goes through.
	put(t, s, smallSnapshot("shop", "rel_43", "dev", 43, "c", 2), false)
}

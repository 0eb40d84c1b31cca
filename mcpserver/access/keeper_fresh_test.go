package access

import (
	"testing"
	"time"
)

// Calls share a look at the file: one whose look began after another call
// arrived answers for it; a call that arrived after the last look began
// looks again.
func TestKeeperSharesStats(t *testing.T) {
	f := NewFile(t.TempDir())
	mustCreate(t, f, "ci", "*")
	k, clk := newTestKeeper(t, f)
	k.Count()
	k.mu.Lock()
	defer k.mu.Unlock()
	looked := k.statted
	clk.Advance(time.Millisecond)
	k.fresh(looked.Add(-time.Nanosecond)) // arrived before that look began
	if !k.statted.Equal(looked) {
		t.Errorf("a call that arrived before the last look began looked again")
	}
	k.fresh(looked) // arrived as it began: it may not have seen what came just before
	if !k.statted.Equal(looked.Add(time.Millisecond)) {
		t.Errorf("a call that arrived when the last look began did not look")
	}
}

// A flood of unknown tokens reads nothing while the file does not change:
// each call looks at its stat only. A change is read by the next call.
func TestKeeperUnknownTokensReadNothing(t *testing.T) {
	f := NewFile(t.TempDir())
	mustCreate(t, f, "ci", "*")
	k, clk := newTestKeeper(t, f)
	k.mu.Lock()
	read := k.checked
	k.mu.Unlock()
	const calls = 10_000
	for range calls {
		clk.Advance(justBefore / calls)
		wantUnknown(t, k, "hubsnap_not-a-token")
	}
	k.mu.Lock()
	if !k.checked.Equal(read) {
		t.Errorf("%d lookups of an unknown token within RecheckEvery read the unchanged file again", calls)
	}
	k.mu.Unlock()
	secret, tok := mustCreate(t, f, "new", "*")
	wantFound(t, k, secret, tok)
}

// BenchmarkKeeperLookup: what a request pays to find its token, known
// or not, one caller or many.
func BenchmarkKeeperLookup(b *testing.B) {
	f := NewFile(b.TempDir())
	secret, _, err := f.Create("bench", []string{"*"}, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	k, err := NewKeeper(f)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, secret string }{{"known", secret}, {"unknown", "hubsnap_" + secret[8:40]}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				k.Lookup(c.secret)
			}
		})
		b.Run(c.name+"-parallel", func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					k.Lookup(c.secret)
				}
			})
		})
	}
}

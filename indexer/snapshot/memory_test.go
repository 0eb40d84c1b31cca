package snapshot_test

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store/storetest"
)

// TestDecoderMemory checks that what a Decoder holds while it decodes
// grows with the number of tables only by its compact record of names, far
// less than the tables themselves. (An external test: storetest imports
// store, which imports this package.)
func TestDecoderMemory(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a big release; .ci/run runs it without -race")
	}
	var buf bytes.Buffer
	if err := snapshot.Encode(&buf, storetest.Release(storetest.Size{Tables: 10_000})); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	perTable := float64(len(data)) / 10_000 // about 1,800 bytes

	live := func() uint64 {
		var m runtime.MemStats
		runtime.GC() // twice: sync.Pool keeps what it drops for one more cycle
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	// growth returns the live heap added per table between the 1,000th
	// and the 10,000th table decoded, each handed to keep.
	growth := func(keep func(*snapshot.Table)) float64 {
		var at1k, at10k uint64
		n := 0
		d := snapshot.NewDecoder(bytes.NewReader(data))
		defer d.Close()
		for d.Next() {
			p := d.Part()
			if p.Kind != snapshot.KindTable {
				continue
			}
			switch p.Index {
			case 999:
				at1k = live()
			case 9_999:
				at10k = live()
			}
			keep(p.Table)
			n++
		}
		if err := d.Err(); err != nil {
			t.Fatal(err)
		}
		if n != 10_000 {
			t.Fatalf("handed %d tables, want 10,000", n)
		}
		return (float64(at10k) - float64(at1k)) / 9_000
	}
	stream := growth(func(*snapshot.Table) {})
	var kept []snapshot.Table
	collected := growth(func(t *snapshot.Table) { kept = append(kept, clone(t)) })
	t.Logf("JSON %.0f bytes a table; live heap grows %.0f bytes a table streaming, %.0f collecting (%d kept)",
		perTable, stream, collected, len(kept))
	// 256 bytes a table is 25 MiB for 100,000 tables: well within the
	// budget of an import (twice the JSON plus 64 MiB).
	if stream > 256 {
		t.Errorf("streaming, the live heap grows by %.0f bytes a table, want at most 256", stream)
	}
}

// clone copies t and its lists, which the decoder reuses.
func clone(t *snapshot.Table) snapshot.Table {
	k := *t
	k.Columns = append([]snapshot.Column(nil), t.Columns...)
	k.PrimaryKey = append([]string(nil), t.PrimaryKey...)
	k.ForeignKeys = append([]snapshot.ForeignKey(nil), t.ForeignKeys...)
	k.Indexes = append([]snapshot.Index(nil), t.Indexes...)
	return k
}

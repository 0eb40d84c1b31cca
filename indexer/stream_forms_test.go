package indexer

import (
	"bytes"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/storetest"
)

// decForms returns data without blank space and data indented, or false
// when data is not one JSON value (duplicate keys and invalid UTF-8 aside:
// the decoder must reject those the same way in both forms).
func decForms(data []byte) (compact, indented []byte, ok bool) {
	if !jsontext.Value(data).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) {
		return nil, nil, false
	}
	depth := 0
	newline := func() {
		indented = append(indented, '\n')
		indented = append(indented, strings.Repeat("  ", depth)...)
	}
	inString, escaped := false, false
	for _, c := range data {
		switch {
		case inString:
			compact, indented = append(compact, c), append(indented, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			continue
		case c == '}' || c == ']':
			depth--
			newline()
		}
		compact, indented = append(compact, c), append(indented, c)
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			newline()
		case ',':
			newline()
		case ':':
			indented = append(indented, ' ')
		}
	}
	return compact, indented, true
}

var decPosition = regexp.MustCompile(` ?\(?(at )?line \d+, column \d+\)?`)

// decCheckForms checks that data decodes the same, or fails with the same
// problems at the same paths, compact and indented.
func decCheckForms(t *testing.T, data []byte) {
	compact, indented, ok := decForms(data)
	if !ok {
		return
	}
	decode := func(doc []byte) (*store.Snapshot, []string) {
		snap, err := Decode(doc)
		if err == nil {
			return snap, nil
		}
		serr, ok := err.(*SnapshotError)
		if !ok {
			t.Fatalf("Decode error is %T (%v), want *SnapshotError", err, err)
		}
		var problems []string
		for _, p := range serr.Problems {
			problems = append(problems, decPosition.ReplaceAllString(p, ""))
		}
		return nil, problems
	}
	s1, p1 := decode(compact)
	s2, p2 := decode(indented)
	if diff := cmp.Diff(p1, p2); diff != "" {
		t.Fatalf("problems differ (-compact +indented):\n%s\ncompact:\n%s\nindented:\n%s", diff, compact, indented)
	}
	if diff := cmp.Diff(s1, s2); diff != "" {
		t.Fatalf("snapshots differ (-compact +indented):\n%s", diff)
	}
}

func TestDecodeForms(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		decPlanted,
		`{"formatVersion":1,"release":{"id":"r","version":1e20},"tables":[{"name":"a","columns":[{"name":"x"},{"name":"y","nullable":"yes"}]}]}`,
		`{"formatVersion":1,"tables":[{"name":"a","name":"b"}]}`,
		"{\"formatVersion\":1,\"tables\":[{\"name\":\"a\",\"comment\":\"\xff\"}]}",
	} {
		if _, _, ok := decForms([]byte(doc)); !ok {
			t.Errorf("not one JSON value: %s", doc)
		}
		decCheckForms(t, []byte(doc))
	}
}

// TestDecodeStreamMemory checks that what DecodeStream holds while it
// decodes grows with the number of tables only by its compact record of
// names, far less than the tables themselves.
func TestDecodeStreamMemory(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a big release; .ci/run runs it without -race")
	}
	snap := storetest.Release(storetest.Size{Tables: 10_000})
	data := decMustEncode(t, snap)
	snap = nil
	perTable := float64(len(data)) / 10_000 // about 1,800 bytes

	live := func() uint64 {
		var m runtime.MemStats
		runtime.GC() // twice: sync.Pool keeps what it drops for one more cycle
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	// growth returns the live heap added per table between the 1,000th
	// and the 10,000th table that h is handed.
	growth := func(h Handler, tables func() int) float64 {
		var at1k, at10k uint64
		probe := &probeHandler{Handler: h, at: func(i int) {
			switch i {
			case 999:
				at1k = live()
			case 9_999:
				at10k = live()
			}
		}}
		if err := DecodeStream(bytes.NewReader(data), probe); err != nil {
			t.Fatal(err)
		}
		if n := tables(); n != 10_000 {
			t.Fatalf("handed %d tables, want 10,000", n)
		}
		return (float64(at10k) - float64(at1k)) / 9_000
	}
	var n int
	stream := growth(countHandler(&n), func() int { return n })
	c := &collector{}
	collected := growth(c, func() int { return len(c.snap.Tables) })
	t.Logf("JSON %.0f bytes a table; live heap grows %.0f bytes a table streaming, %.0f collecting", perTable, stream, collected)
	// 256 bytes a table is 25 MiB for 100,000 tables: well within the
	// budget of an import (twice the JSON plus 64 MiB).
	if stream > 256 {
		t.Errorf("streaming, the live heap grows by %.0f bytes a table, want at most 256", stream)
	}
}

// probeHandler calls at before handing each table on.
type probeHandler struct {
	Handler
	at func(i int)
}

func (p *probeHandler) Table(i int, t *store.Table) error {
	p.at(i)
	return p.Handler.Table(i, t)
}

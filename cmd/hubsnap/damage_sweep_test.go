package main

// The corruption sweep (issue 23, item 2): bytes of a real index are
// flipped at seeded positions in every kind of page, with the stamp kept
// intact (size, time and inode as a trusting hubsnap recorded them), and
// the real binary then serves calls over stdio and over Streamable HTTP.
// Each call must come back within its deadline with the answer the
// undamaged index gives, or with the tool error INTERNAL: never a wrong
// answer, never a hang, never an empty 200.

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hubsnap/hubsnap/indexer"
	"github.com/hubsnap/hubsnap/store/storetest"
)

// sweepCallLimit is the deadline of one call of the sweep. A healthy call
// takes milliseconds; a repair in the background a second or two at
// 10,000 tables, which calls need not wait for.
const sweepCallLimit = 10 * time.Second

// repairLimit bounds a repair of the index while serving: a rebuild from
// the release files, about 1.3 s at 10,000 tables.
const repairLimit = 60 * time.Second

// sweepSession is a session with hubsnap serve, over stdio or HTTP.
type sweepSession interface {
	call(t testing.TB, c sweepCall) sweepAnswer
	log() string // stderr so far
	close(t testing.TB) string
}

// waitFor waits until log() holds s, at most limit.
func waitFor(log func() string, s string, limit time.Duration) bool {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !strings.Contains(log(), s) {
		select {
		case <-tick.C:
		case <-deadline.C:
			return false
		}
	}
	return true
}

// sweepCall is one tool call of the sweep.
type sweepCall struct {
	tool string
	args map[string]any
}

func (c sweepCall) String() string {
	b, _ := json.Marshal(c.args)
	return c.tool + string(b)
}

// sweepCalls are the calls made on each damaged index: 30 tables and 8
// logics spread through the release, whole lists, searches, join paths and
// release_info.
func sweepCalls(tables, logics []string) []sweepCall {
	var calls []sweepCall
	n, m := len(tables), len(logics)
	for i := range 30 {
		calls = append(calls, sweepCall{"schema_get_table", map[string]any{"table": tables[i*(n-1)/29]}})
	}
	for i := range 8 {
		calls = append(calls, sweepCall{"logic_get", map[string]any{"name": logics[i*(m-1)/7]}})
	}
	return append(calls,
		sweepCall{"schema_list_tables", map[string]any{"limit": 5000}},
		sweepCall{"logic_list", map[string]any{"limit": 5000}},
		sweepCall{"schema_search", map[string]any{"query": "invoice"}},
		sweepCall{"schema_search", map[string]any{"query": "customer address"}},
		sweepCall{"schema_search", map[string]any{"query": "status", "kinds": []string{"column"}}},
		sweepCall{"schema_search", map[string]any{"query": "export"}},
		sweepCall{"schema_join_path", map[string]any{"from": tables[n/2], "to": tables[n/2+1]}},
		sweepCall{"schema_join_path", map[string]any{"from": tables[n-1], "to": tables[0]}},
		sweepCall{"release_info", map[string]any{}},
	)
}

// The outcomes of a call.
type outcome string

const (
	outRight    outcome = "right"    // the undamaged index's answer
	outInternal outcome = "INTERNAL" // a tool error INTERNAL
	outWrong    outcome = "wrong"    // any other answer
	outHang     outcome = "hang"     // no answer within sweepCallLimit
	outEmpty    outcome = "empty"    // HTTP: a 200 with no response in it
)

// sweepCase is one damage: bytes of the index XORed with masks, in one
// page or in every page of a kind.
type sweepCase struct {
	kind  string  // what the pages hold
	pages []int64 // page numbers, from 1
	offs  []int64 // byte offsets in the file
	masks []byte
}

func (c sweepCase) String() string {
	if len(c.pages) == 1 {
		return fmt.Sprintf("%s, page %d, byte %d ^ %#02x", c.kind, c.pages[0], c.offs[0], c.masks[0])
	}
	return fmt.Sprintf("%s, a byte in each of %d pages", c.kind, len(c.pages))
}

// TestDamageSweep runs the sweep over a release of 400 tables: a damage
// of one byte of each kind of page, and of a byte in every page of some
// kinds, every other one of the full sweep's (about 50 starts of hubsnap;
// under -race, every fourth on 150 tables).
func TestDamageSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("starts hubsnap about 50 times")
	}
	t.Parallel()
	if raceEnabled {
		// Every hubsnap started is a -race binary, several times slower:
		// a quarter of the damages, on a smaller release.
		runSweep(t, storetest.Size{Tables: 150, Logics: 20}, 1, 4, 1, false)
		return
	}
	runSweep(t, storetest.Size{Tables: 400, Logics: 60}, 1, 2, 1, false)
}

// TestLargeDamageSweep runs the sweep over storetest.Large (10,000
// tables): three damages of one byte of each kind of page, and one of a
// byte in every page of some kinds, each found by index verify, every
// third one repaired by it, and each served over one transport, stdio and
// HTTP in turn (about 130 starts of hubsnap; TestDamageSweep serves each
// of its damages over both).
func TestLargeDamageSweep(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("imports 10,000 tables and starts hubsnap about 130 times; run without -race and -short")
	}
	runSweep(t, storetest.Large, 3, 1, 3, true)
}

// runSweep imports a release of size, records the answers of the
// undamaged index, then runs perKind damages of one byte of each kind of
// page, and one of a byte in every page of some kinds, keeping every
// every-th of them, each on a fresh copy of the cache, over stdio, over
// HTTP, and with hubsnap index verify (and --repair for every
// repairEvery-th). alternate serves each damage over one transport, stdio
// and HTTP in turn, rather than over both.
func runSweep(t testing.TB, size storetest.Size, perKind, every, repairEvery int, alternate bool) {
	base := sweepBase(t, size)
	tables, logics := storetest.Names(size)
	calls := sweepCalls(tables, logics)

	// The undamaged answers, over stdio.
	golden := make([]sweepAnswer, len(calls))
	{
		c := sweepCopy(t, base)
		s := startStdio(t, c)
		for i, call := range calls {
			a := s.call(t, call)
			if a.hang || a.isError {
				t.Fatalf("undamaged %s: %+v", call, a)
			}
			golden[i] = a
		}
		s.close(t)
	}

	var cases []sweepCase
	for i, dc := range sweepCases(t, base.cacheDir(), perKind) {
		if i%every == 0 {
			cases = append(cases, dc)
		}
	}
	counts := map[string]map[outcome]int{"stdio": {}, "http": {}, "verify": {}}
	for i, dc := range cases {
		vias := []string{"stdio", "http"}
		if alternate {
			vias = vias[i%2 : i%2+1]
		}
		for _, via := range vias {
			c := sweepCopy(t, base)
			damage(t, c, dc)
			var s sweepSession
			if via == "stdio" {
				s = startStdio(t, c)
			} else {
				s = startSweepHTTP(t, c)
			}
			internal := false
			for i, call := range calls {
				a := s.call(t, call)
				o := judge(golden[i], a)
				counts[via][o]++
				internal = internal || o == outInternal
				if o != outRight && o != outInternal {
					t.Errorf("%s, over %s: %s: %s: %s", dc, via, calls[i], o, a.describe())
				}
			}
			if internal {
				// The server repairs the index in the background, then
				// answers every call right.
				if !waitFor(s.log, "repaired the index", repairLimit) {
					t.Errorf("%s, over %s: no repair within %v; stderr:\n%s", dc, via, repairLimit, s.log())
				} else {
					counts[via]["repaired while serving"]++
					for i, call := range calls {
						if a := s.call(t, call); judge(golden[i], a) != outRight {
							t.Errorf("%s, over %s, after the repair: %s: %s", dc, via, calls[i], a.describe())
						}
					}
				}
			}
			noPanic(t, fmt.Sprintf("%s over %s", dc, via), s.close(t))
		}
		verifySweepCase(t, base, dc, calls, golden, counts, i%repairEvery == 0)
	}
	for _, via := range []string{"stdio", "http", "verify"} {
		t.Logf("sweep over %s: %d damages x %d calls: %v", via, len(cases), len(calls), counts[via])
	}
}

// verifySweepCase runs hubsnap index verify on a fresh damaged copy: it
// must find the damage (exit 1); with repair, then verify --repair must
// repair it (exit 0), and the calls then answer as the undamaged index
// does.
func verifySweepCase(t testing.TB, base *cli, dc sweepCase, calls []sweepCall, golden []sweepAnswer,
	counts map[string]map[outcome]int, repair bool) {
	t.Helper()
	c := sweepCopy(t, base)
	damage(t, c, dc)
	r := runChild(t, c, "", "index", "verify", "--json")
	var rep struct {
		Damage  []struct{ Kind, What string } `json:"damage"`
		Healthy bool                          `json:"healthy"`
	}
	if r.code != exitError || json.Unmarshal([]byte(r.stdout), &rep) != nil || rep.Healthy || len(rep.Damage) == 0 {
		t.Errorf("%s: index verify: exit %d, want 1 with the damage listed; stdout %q; stderr %q", dc, r.code, r.stdout, r.stderr)
		counts["verify"]["missed"]++
	} else {
		counts["verify"]["found"]++
	}
	if !repair {
		return
	}
	r = runChild(t, c, "", "index", "verify", "--repair")
	if r.code != exitOK || !strings.Contains(r.stdout, "repaired") {
		t.Errorf("%s: index verify --repair: exit %d, want 0, repaired; stdout %q; stderr %q", dc, r.code, r.stdout, r.stderr)
		return
	}
	counts["verify"]["repaired"]++
	s := startStdio(t, c)
	for i, call := range calls {
		if a := s.call(t, call); judge(golden[i], a) != outRight {
			t.Errorf("%s: after index verify --repair: %s: %s", dc, call, a.describe())
		}
	}
	s.close(t)
}

// sweepBase imports a synthetic release of size into the cache of a new
// cli (project big, environment dev).
func sweepBase(t testing.TB, size storetest.Size) *cli {
	t.Helper()
	c := newCLI(t).with("HUBSNAP_PROJECT", "big", "HUBSNAP_ENVIRONMENT", "dev")
	if err := os.MkdirAll(c.configDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := storetest.WriteRelease(f, size); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := indexer.Import(context.Background(), c.cacheDir(), file, nil, nil); err != nil {
		t.Fatal(err)
	}
	return c
}

// sweepCopy copies the cache of base into a new cli's folders and opens
// it once (snapshot list), so that the copy's stamp is recorded as a
// trusting hubsnap leaves it.
func sweepCopy(t testing.TB, base *cli) *cli {
	t.Helper()
	c := newCLI(t).with("HUBSNAP_PROJECT", "big", "HUBSNAP_ENVIRONMENT", "dev")
	if err := os.MkdirAll(c.configDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(c.cacheDir(), os.DirFS(base.cacheDir())); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(c.cacheDir(), "index.db.checked")) // the original's inode
	c.ok("snapshot", "list")
	if !exists(filepath.Join(c.cacheDir(), "index.db.checked")) {
		t.Fatal("snapshot list left no stamp")
	}
	return c
}

// damage flips dc's bytes of c's index in place and gives the file its
// modification time back: the stamp still matches.
func damage(t testing.TB, c *cli, dc sweepCase) {
	t.Helper()
	path := filepath.Join(c.cacheDir(), "index.db")
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 1)
	for i, off := range dc.offs {
		if _, err := f.ReadAt(b, off); err != nil {
			t.Fatal(err)
		}
		b[0] ^= dc.masks[i]
		if _, err := f.WriteAt(b, off); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// A page of the index, as dbstat describes it.
type sweepPage struct {
	name, kind string
	page       int64
}

// sweepCases picks perKind damages of each kind of page of the index in
// dir, with a fixed seed: the header, the schema, stored JSON (columns,
// foreign keys), other column rows, b-tree interior pages, the full-text
// index, tables, logics and the indexes of tables.
func sweepCases(t testing.TB, dir string, perKind int) []sweepCase {
	t.Helper()
	path := filepath.Join(dir, "index.db")
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var pageSize int64
	if err := db.QueryRow("PRAGMA page_size").Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query("SELECT name, pagetype, pageno FROM dbstat ORDER BY pageno")
	if err != nil {
		t.Fatal(err)
	}
	var pages []sweepPage
	for rows.Next() {
		var p sweepPage
		if err := rows.Scan(&p.name, &p.kind, &p.page); err != nil {
			t.Fatal(err)
		}
		pages = append(pages, p)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(23, 2))
	mask := func() byte { return byte(1 + rng.IntN(255)) }
	pick := func(match func(sweepPage) bool) []sweepPage {
		var out []sweepPage
		for _, p := range pages {
			if match(p) {
				out = append(out, p)
			}
		}
		return out
	}
	var cases []sweepCase
	// add makes perKind damages of one byte of a page of those matching,
	// and one of a byte in every page of them, each byte where chooses
	// (an offset in the page).
	add := func(kind string, match func(sweepPage) bool, where func(page []byte) int64) {
		ps := pick(match)
		if len(ps) == 0 {
			t.Fatalf("no page of kind %s", kind)
		}
		at := func(dc *sweepCase, p sweepPage) {
			start := (p.page - 1) * pageSize
			dc.pages = append(dc.pages, p.page)
			dc.offs = append(dc.offs, start+where(data[start:start+pageSize]))
			dc.masks = append(dc.masks, mask())
		}
		for range perKind {
			p := ps[rng.IntN(len(ps))]
			dc := sweepCase{kind: kind + " (" + p.name + ")"}
			at(&dc, p)
			cases = append(cases, dc)
		}
		dc := sweepCase{kind: kind}
		for _, p := range ps {
			at(&dc, p)
		}
		cases = append(cases, dc)
	}
	anywhere := func(page []byte) int64 { return int64(rng.IntN(len(page))) }
	// inside finds a byte inside a stored JSON object of the page.
	inside := func(page []byte) int64 {
		var at []int
		for i := 0; ; {
			j := bytes.Index(page[i:], []byte(`{"name":"`))
			if j < 0 {
				break
			}
			at = append(at, i+j)
			i += j + 1
		}
		if len(at) == 0 {
			return anywhere(page)
		}
		return int64(at[rng.IntN(len(at))] + 1 + rng.IntN(24))
	}
	// cells finds a byte in the cell content area, past the page's
	// header and cell pointers.
	cells := func(page []byte) int64 {
		n := int(page[3])<<8 | int(page[4])
		from := 8 + 2*n
		if page[0] == 2 || page[0] == 5 {
			from += 4
		}
		if from >= len(page) {
			return anywhere(page)
		}
		return int64(from + rng.IntN(len(page)-from))
	}
	for range perKind {
		cases = append(cases,
			sweepCase{kind: "the file header", pages: []int64{1}, offs: []int64{int64(rng.IntN(100))}, masks: []byte{mask()}},
			sweepCase{kind: "the schema (page 1)", pages: []int64{1}, offs: []int64{100 + int64(rng.IntN(int(pageSize)-100))},
				masks: []byte{mask()}})
	}
	named := func(names ...string) func(sweepPage) bool {
		return func(p sweepPage) bool { return slices.Contains(names, p.name) && p.kind == "leaf" }
	}
	add("stored JSON", named("columns"), inside)
	add("stored JSON", named("foreign_keys", "foreign_keys_by_table"), inside)
	add("column rows", named("columns"), cells)
	add("table rows", named("tables"), cells)
	add("logic rows", named("logics"), cells)
	add("full-text index", func(p sweepPage) bool { return strings.HasPrefix(p.name, "search") }, anywhere)
	add("b-tree interior", func(p sweepPage) bool { return p.kind == "internal" }, anywhere)
	add("an index of tables", func(p sweepPage) bool {
		return strings.HasPrefix(p.name, "tables_") || strings.HasPrefix(p.name, "sqlite_autoindex_tables")
	}, anywhere)
	add("a page header", func(p sweepPage) bool { return p.kind == "leaf" }, func([]byte) int64 { return int64(rng.IntN(8)) })
	return cases
}

// sweepAnswer is what one call got.
type sweepAnswer struct {
	hang    bool
	empty   bool   // HTTP: a 200 with no response
	rpcErr  string // a JSON-RPC error
	isError bool
	text    string // the tool result's text
}

func (a sweepAnswer) describe() string {
	switch {
	case a.hang:
		return "no answer within the deadline"
	case a.empty:
		return "an empty 200"
	case a.rpcErr != "":
		return "JSON-RPC error " + a.rpcErr
	}
	s := a.text
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return fmt.Sprintf("isError %v, %s", a.isError, s)
}

// judge compares a damaged index's answer with the undamaged one's.
func judge(want, got sweepAnswer) outcome {
	switch {
	case got.hang:
		return outHang
	case got.empty:
		return outEmpty
	case got.rpcErr != "":
		return outWrong
	case got.isError && strings.Contains(got.text, `"code":"INTERNAL"`):
		return outInternal
	case got.isError == want.isError && sameJSON([]byte(got.text), []byte(want.text)):
		return outRight
	case !got.isError && !want.isError && pendingOf(want.text, got.text):
		return outRight
	}
	return outWrong
}

// analysisKeys are the members of an answer that come from the logics'
// analysis (SPEC §11).
var analysisKeys = []string{"analysis", "analysisPending", "usedBy", "usedByTotal", "logicProblems"}

// pendingOf reports whether got is want as serve answers it while the
// logics' analysis is pending: an index that serve rebuilt from the
// release files has no analysis until its analyst (hubsnap index analyze,
// a child) writes it, seconds later (docs/design.md, "Logic analysis at
// index time"). got then has none of the analysis's members (logic_get
// says analysisPending), and is want without them.
func pendingOf(want, got string) bool {
	var w, g map[string]json.RawMessage
	if json.Unmarshal([]byte(want), &w) != nil || json.Unmarshal([]byte(got), &g) != nil {
		return false
	}
	for _, k := range analysisKeys {
		if k == "analysisPending" {
			continue
		}
		if _, ok := g[k]; ok {
			return false
		}
		delete(w, k)
	}
	delete(g, "analysisPending")
	delete(w, "analysisPending")
	wb, _ := json.Marshal(w)
	gb, _ := json.Marshal(g)
	return sameJSON(wb, gb)
}

// toolResult decodes the result of a tools/call.
func toolResult(raw json.RawMessage) sweepAnswer {
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) != 1 {
		return sweepAnswer{rpcErr: "undecodable result " + string(raw)}
	}
	return sweepAnswer{isError: res.IsError, text: res.Content[0].Text}
}

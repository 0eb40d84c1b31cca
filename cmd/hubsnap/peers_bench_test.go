package main

// BenchmarkPeers: hubsnap's schema_get_table against the MCP servers a
// developer would otherwise give an assistant to learn a table's schema
// (issue 27's peer ratio), each a real process over stdio driven by one
// go-sdk client, the peers over a real PostgreSQL holding the same schema.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store/storetest"
)

// peersSizeEnv chooses the release of BenchmarkPeers: "large" is
// storetest.Large (10,000 tables); the default is peersSmall.
const peersSizeEnv = "HUBSNAP_PEERS_SIZE"

// peersSmall is the default release: 1,000 tables, created in PostgreSQL
// in a few seconds.
var peersSmall = storetest.Size{Tables: 1_000, Logics: 200}

// peersNames and peersWarmup are how many tables are described per pass,
// and how many calls each server answers before the first timed one.
const (
	peersNames  = 100
	peersWarmup = 30
)

// peer is one MCP server under test: its session, how it describes a
// table, and its timings and answer bytes.
type peer struct {
	name     string
	role     peerRole
	cmd      *exec.Cmd
	cs       *mcp.ClientSession
	shared   bool // its session is another peer's, closed there
	stderr   *lockedBuffer
	describe func(ctx context.Context, cs *mcp.ClientSession, table string) (string, error)
	// check says what is wrong with an answer about a table of cols
	// columns, or "".
	check   func(text, table string, cols int) string
	samples []time.Duration
	bytes   int
}

// peerRole tells hubsnap, its floor and the peers apart.
type peerRole int

const (
	roleHubsnap peerRole = iota
	roleFloor
	rolePeer
)

// BenchmarkPeers measures, in one run with one go-sdk client, the latency
// of "describe table T" for the same tables in the same order: hubsnap's
// schema_get_table (`hubsnap serve`, stdio, over the imported release)
// and, over a private PostgreSQL holding the same tables, columns, keys
// and comments, @bytebase/dbhub's search_objects (a table in full) and
// @modelcontextprotocol/server-postgres's table schema resource; and, for
// the floor, go-sdk alone in a child returning hubsnap's answers
// (same-answer) or echoing (echo). Every server is a child process over
// stdio. The calls go one after another, each table asked of every server
// in turn (which goes first rotates). It reports each server's p50 and p90
// in µs, the mean bytes of its answer's text (what the model reads), the
// CPU per call of hubsnap's and the peers' processes (Linux), ratio-p50
// (hubsnap's p50 over the best peer's), floor-ratio-p50 (same-answer's
// over the best peer's) and x-same-answer. See docs/benchmarks.md.
func BenchmarkPeers(b *testing.B) {
	node, dir := findPeers(b)
	size, sizeName := peersSmall, "1k"
	if os.Getenv(peersSizeEnv) == "large" {
		size, sizeName = storetest.Large, "10k"
	}
	rel := storetest.Release(size)
	cols := make(map[string]int, len(rel.Tables))
	for _, t := range rel.Tables {
		cols[t.Name] = len(t.Columns)
	}
	socket := loadPeersSchema(b, rel.Tables)
	names := peerTableNames(rel.Tables)
	rel = nil
	lc := prepareLarge(b, size)
	b.Logf("release %s: %d tables; %d described per pass", sizeName, size.Tables, len(names))

	client := mcp.NewClient(&mcp.Implementation{Name: "hubsnap-bench", Version: "0"}, nil)
	profiles := os.Getenv(peersProfileEnv)
	if profiles != "" {
		lc.cli = lc.cli.with(peersProfileEnv, profiles)
	}
	hub := hubsnapPeer(b, client, lc.cli)
	answers := make(map[string]string, len(names))
	for _, name := range names {
		answers[name] = hub.call(b, name, cols, false)
	}
	peers := append([]*peer{hub}, floorPeers(b, client, hub.cs, answers)...)
	peers = append(peers, dbhubPeer(b, client, node, dir, socket), serverPostgresPeer(b, client, node, dir, socket))
	for _, p := range peers[1:] {
		for i := range peersWarmup {
			p.call(b, names[i%len(names)], cols, false)
		}
	}
	toggle := func() {
		for _, p := range peers[:2] { // hubsnap and same-answer
			if err := toggleProfile(p.cmd.Process); err != nil {
				b.Fatalf("profile %s: %v", p.name, err)
			}
		}
	}
	if profiles != "" {
		toggle()
	}
	cpu := make([]time.Duration, len(peers))
	for i, p := range peers {
		if p.role != roleFloor {
			cpu[i], _ = processCPU(p.cmd.Process)
		}
	}
	for b.Loop() {
		for i, name := range names {
			for k := range peers {
				peers[(i+k)%len(peers)].call(b, name, cols, true)
			}
		}
	}
	b.StopTimer()
	for i, p := range peers {
		if p.role == roleFloor {
			continue // one process serves both
		}
		if now, ok := processCPU(p.cmd.Process); ok {
			b.ReportMetric(float64((now-cpu[i]).Microseconds())/float64(len(p.samples)), p.name+"-cpu-us")
		}
	}
	if profiles != "" {
		toggle()
		waitProfiles(b, profiles, "hubsnap", "floor")
	}
	p50 := map[string]float64{}
	best := ""
	for _, p := range peers {
		q50, q90 := p.quantiles()
		p50[p.name] = q50
		b.ReportMetric(q50, p.name+"-p50-us")
		b.ReportMetric(q90, p.name+"-p90-us")
		b.ReportMetric(float64(p.bytes)/float64(len(p.samples)), p.name+"-B")
		if p.role == rolePeer && (best == "" || q50 < p50[best]) {
			best = p.name
		}
	}
	b.ReportMetric(p50["hubsnap"]/p50[best], "ratio-p50")
	b.ReportMetric(p50["same-answer"]/p50[best], "floor-ratio-p50")
	b.ReportMetric(p50["hubsnap"]/p50["same-answer"], "x-same-answer")
	b.Logf("best peer: %s", best)
	for _, p := range peers {
		if p.shared {
			continue
		}
		if err := p.cs.Close(); err != nil && p.role != rolePeer {
			b.Errorf("close %s: %v; stderr: %s", p.name, err, p.stderr)
		}
	}
}

// peerTableNames draws peersNames tables by a stride through the release,
// ASCII names only: server-postgres reads the table from its resource
// URI's path without decoding it, so a Korean name never matches (its
// answer is an empty list, which would flatter it).
func peerTableNames(tables []snapshot.Table) []string {
	var names []string
	for i := 0; len(names) < peersNames && i < 10*len(tables); i++ {
		name := tables[(i*7919)%len(tables)].Name
		if !slices.Contains(names, name) && isASCII(name) {
			names = append(names, name)
		}
	}
	return names
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// call describes a table once, checks the answer and, when timed, keeps
// its latency and bytes. It returns the answer.
func (p *peer) call(b *testing.B, table string, cols map[string]int, timed bool) string {
	ctx, cancel := context.WithTimeout(b.Context(), callLimit)
	defer cancel()
	start := time.Now()
	text, err := p.describe(ctx, p.cs, table)
	d := time.Since(start)
	if err != nil {
		b.Fatalf("%s: describe %s: %v; stderr: %s", p.name, table, err, p.stderr)
	}
	if msg := p.check(text, table, cols[table]); msg != "" {
		b.Fatalf("%s: describe %s: %s; answer: %.500s", p.name, table, msg, text)
	}
	if timed {
		p.samples = append(p.samples, d)
		p.bytes += len(text)
	}
	return text
}

// quantiles returns the p50 and p90 of the samples, in µs.
func (p *peer) quantiles() (p50, p90 float64) {
	s := slices.Clone(p.samples)
	slices.Sort(s)
	at := func(q float64) float64 { return float64(s[int(q*float64(len(s)-1))].Nanoseconds()) / 1e3 }
	return at(0.5), at(0.9)
}

// connectPeer starts cmd as an MCP server over stdio and connects client.
// Closing the session waits terminate for the child to exit before
// signalling it (server-postgres never exits when its stdin closes).
func connectPeer(b *testing.B, client *mcp.Client, name string, cmd *exec.Cmd, terminate time.Duration) (*mcp.ClientSession, *lockedBuffer) {
	b.Helper()
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	b.Cleanup(func() {
		if cmd.Process != nil {
			cmd.Process.Kill() // harmless once the session closed and the child was waited for
		}
	})
	cs, err := client.Connect(b.Context(), &mcp.CommandTransport{Command: cmd, TerminateDuration: terminate}, nil)
	if err != nil {
		b.Fatalf("connect to %s: %v; stderr: %s", name, err, stderr)
	}
	return cs, stderr
}

// hubsnapPeer is `hubsnap serve` (the test binary re-executed as hubsnap)
// answering schema_get_table.
func hubsnapPeer(b *testing.B, client *mcp.Client, c *cli) *peer {
	cmd := hubsnapCmd(b, c, "serve")
	cs, stderr := connectPeer(b, client, "hubsnap", cmd, signalLimit)
	return &peer{name: "hubsnap", role: roleHubsnap, cmd: cmd, cs: cs, stderr: stderr,
		describe: func(ctx context.Context, cs *mcp.ClientSession, table string) (string, error) {
			return callText(ctx, cs, "schema_get_table", map[string]any{"table": table})
		},
		check: func(text, table string, cols int) string {
			var got struct {
				Name    string `json:"name"`
				Columns []any  `json:"columns"`
			}
			if err := json.Unmarshal([]byte(text), &got); err != nil {
				return err.Error()
			}
			return checkColumns(got.Name, table, len(got.Columns), cols)
		}}
}

// callText calls a tool and returns its one text block.
func callText(ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) (string, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", err
	}
	text := toolText(res)
	if res.IsError {
		return "", fmt.Errorf("tool error: %s", text)
	}
	return text, nil
}

// checkColumns compares an answer's table name and column count with the
// release's.
func checkColumns(gotName, wantName string, got, want int) string {
	if gotName != wantName {
		return "table " + strconv.Quote(gotName) + ", want " + strconv.Quote(wantName)
	}
	if got != want {
		return fmt.Sprintf("%d columns, want %d", got, want)
	}
	return ""
}

// waitProfiles waits until the children wrote their profiles (at most
// callLimit) and logs where they are.
func waitProfiles(b *testing.B, dir string, names ...string) {
	deadline := time.Now().Add(callLimit)
	for _, name := range names {
		file := filepath.Join(dir, name+".pprof")
		for {
			if _, err := os.Stat(file); err == nil {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("no profile %s after %v", file, callLimit)
			}
			time.Sleep(10 * time.Millisecond)
		}
		b.Logf("cpu profile: %s", file)
	}
}

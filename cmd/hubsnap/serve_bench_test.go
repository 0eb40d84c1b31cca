package main

// Benchmarks of the real `hubsnap serve` over stdio (the test binary
// re-executed as hubsnap, see TestMain) on storetest.Large: start-up to the
// first answer, and the child's memory after 10,000 calls.

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/indexer"
	"github.com/hubsnap/hubsnap/store/storetest"
)

// largeCLI is a cli whose cache holds a synthetic release (project big,
// environment dev) as the current release, with the names of its tables
// and logics.
type largeCLI struct {
	cli            *cli
	tables, logics []string
}

// benchSizes are the releases the serve benchmarks run on: storetest.Large
// (10,000 tables) and storetest.Huge (100,000 tables; preparing it takes
// about half a minute).
var benchSizes = []struct {
	name string
	size storetest.Size
}{{"10k", storetest.Large}, {"100k", storetest.Huge}}

// prepareLarge imports a synthetic release of size, in process, into the
// cache of a new cli (temp folders; the config folder exists and is empty)
// and returns it. The document is written to a file as a stream and
// imported as one, as a Hub's would be. The cache belongs to the benchmark
// and is removed with it: this package's TestMain is not ours to extend,
// so a cache kept for the whole process could never be removed.
func prepareLarge(b *testing.B, size storetest.Size) largeCLI {
	b.Helper()
	c := newCLI(b).with("HUBSNAP_PROJECT", "big", "HUBSNAP_ENVIRONMENT", "dev")
	if err := os.MkdirAll(c.configDir(), 0o700); err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(b.TempDir(), "big.json")
	f, err := os.Create(file)
	if err != nil {
		b.Fatal(err)
	}
	if err := storetest.WriteRelease(f, size); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	res, err := indexer.Import(context.Background(), c.cacheDir(), file, nil, nil)
	if err != nil {
		b.Fatalf("import a synthetic release of %d tables: %v", size.Tables, err)
	}
	if res.Tables != size.Tables || res.Logics != size.Logics || !res.Current {
		b.Fatalf("imported %+v, want %d tables and %d logics, current", res.ReleaseInfo, size.Tables, size.Logics)
	}
	if err := os.Remove(file); err != nil {
		b.Fatal(err)
	}
	lc := largeCLI{cli: c}
	lc.tables, lc.logics = storetest.Names(size)
	return lc
}

// callLimit bounds one tool call of the benchmarks.
const callLimit = 60 * time.Second

// serveCommand returns an unstarted `hubsnap serve` (stdio) with c's
// environment, as an mcp.CommandTransport, and its stderr. The child is
// killed at the end of the benchmark if it still runs.
func serveCommand(b *testing.B, c *cli) (*mcp.CommandTransport, *exec.Cmd, *lockedBuffer) {
	cmd := hubsnapCmd(b, c, "serve")
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	b.Cleanup(func() {
		if cmd.Process != nil {
			cmd.Process.Kill() // harmless once the session closed and the child was waited for
		}
	})
	return &mcp.CommandTransport{Command: cmd, TerminateDuration: signalLimit}, cmd, stderr
}

// connectServe starts the child of transport and connects a go-sdk client
// to it: the initialize handshake, not yet a tool call.
func connectServe(b *testing.B, client *mcp.Client, transport *mcp.CommandTransport, stderr *lockedBuffer) *mcp.ClientSession {
	cs, err := client.Connect(b.Context(), transport, nil)
	if err != nil {
		b.Fatalf("connect to hubsnap serve: %v; stderr: %s", err, stderr)
	}
	return cs
}

// callServed makes one tool call that must succeed.
func callServed(b *testing.B, cs *mcp.ClientSession, stderr *lockedBuffer, params *mcp.CallToolParams) *mcp.CallToolResult {
	ctx, cancel := context.WithTimeout(b.Context(), callLimit)
	defer cancel()
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		b.Fatalf("%s %v: %v; stderr: %s", params.Name, params.Arguments, err, stderr)
	}
	if res.IsError {
		b.Fatalf("%s %v: tool error %s", params.Name, params.Arguments, toolText(res))
	}
	return res
}

var releaseInfoCall = &mcp.CallToolParams{Name: "release_info", Arguments: map[string]any{}}

// BenchmarkServeStartup measures, per iteration, the time from starting
// `hubsnap serve` (stdio) on a cache holding storetest.Large, then
// storetest.Huge, to the answer of its first tool call, release_info:
// process start, opening the cache (reconcile, and the integrity check
// when the index changed), the initialize handshake and the call. Closing
// the session (stdin closed, the child waited for) is not timed.
func BenchmarkServeStartup(b *testing.B) {
	for _, bs := range benchSizes {
		b.Run(bs.name, func(b *testing.B) { benchServeStartup(b, prepareLarge(b, bs.size)) })
	}
}

func benchServeStartup(b *testing.B, lc largeCLI) {
	client := mcp.NewClient(&mcp.Implementation{Name: "hubsnap-bench", Version: "0"}, nil)
	for b.Loop() {
		b.StopTimer()
		transport, _, stderr := serveCommand(b, lc.cli)
		b.StartTimer()
		cs := connectServe(b, client, transport, stderr)
		res := callServed(b, cs, stderr, releaseInfoCall)
		b.StopTimer()
		var info struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal([]byte(toolText(res)), &info); err != nil || info.ID != "rel_big" {
			b.Fatalf("release_info = %s (%v), want rel_big", toolText(res), err)
		}
		if err := cs.Close(); err != nil {
			b.Fatalf("close: %v; stderr: %s", err, stderr)
		}
		b.StartTimer()
	}
}

// serveMix is a fixed mix of realistic schema_search queries.
var serveMix = []string{
	"procurement vendors archive", "billing invoices lines", "id", "name", "status", "created", "procur",
	"subscr", "고객", "minor units", "soft delete", "admin console",
}

// serveCall returns the i-th call of a mix of typical calls over the large
// release: mostly schema_get_table over different tables, then
// schema_search, logic_get and release_info.
func serveCall(i int, tables, logics []string) *mcp.CallToolParams {
	switch i % 10 {
	case 0, 1, 2, 3, 4, 5:
		// A stride through the tables, so that 10,000 calls touch most.
		return &mcp.CallToolParams{Name: "schema_get_table", Arguments: map[string]any{"table": tables[(i*7919)%len(tables)]}}
	case 6, 7:
		return &mcp.CallToolParams{Name: "schema_search", Arguments: map[string]any{"query": serveMix[(i/10)%len(serveMix)]}}
	case 8:
		return &mcp.CallToolParams{Name: "logic_get", Arguments: map[string]any{"name": logics[(i*31)%len(logics)]}}
	default:
		return releaseInfoCall
	}
}

// BenchmarkServeMemory starts `hubsnap serve` (stdio) once on a cache
// holding storetest.Large, then storetest.Huge, and makes 10,000 tool
// calls (serveCall) per iteration; one iteration is typical. On Linux it
// reports the child's resident set right after its first answer
// ("rss-start-MiB"), and after the calls its resident set and peak
// ("rss-MiB", "hwm-MiB", VmRSS and VmHWM of /proc/PID/status).
func BenchmarkServeMemory(b *testing.B) {
	for _, bs := range benchSizes {
		b.Run(bs.name, func(b *testing.B) { benchServeMemory(b, prepareLarge(b, bs.size)) })
	}
}

func benchServeMemory(b *testing.B, lc largeCLI) {
	client := mcp.NewClient(&mcp.Implementation{Name: "hubsnap-bench", Version: "0"}, nil)
	transport, cmd, stderr := serveCommand(b, lc.cli)
	cs := connectServe(b, client, transport, stderr)
	callServed(b, cs, stderr, releaseInfoCall)
	rssStart, _, measured := childMemory(b, cmd.Process.Pid)
	for b.Loop() {
		for i := range 10_000 {
			callServed(b, cs, stderr, serveCall(i, lc.tables, lc.logics))
		}
	}
	b.StopTimer()
	rss, hwm, _ := childMemory(b, cmd.Process.Pid)
	if err := cs.Close(); err != nil {
		b.Fatalf("close: %v; stderr: %s", err, stderr)
	}
	if measured {
		b.ReportMetric(rssStart, "rss-start-MiB")
		b.ReportMetric(rss, "rss-MiB")
		b.ReportMetric(hwm, "hwm-MiB")
	}
}

// childMemory reads VmRSS and VmHWM, in MiB, from /proc/PID/status. ok is
// false where there is no such file (not Linux).
func childMemory(b *testing.B, pid int) (rss, hwm float64, ok bool) {
	b.Helper()
	if runtime.GOOS != "linux" {
		return 0, 0, false
	}
	f, err := os.Open(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	found := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, val, _ := strings.Cut(sc.Text(), ":")
		var dst *float64
		switch key {
		case "VmRSS":
			dst = &rss
		case "VmHWM":
			dst = &hwm
		default:
			continue
		}
		kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(val), "kB")), 64)
		if err != nil {
			b.Fatalf("/proc/%d/status: %q: %v", pid, sc.Text(), err)
		}
		*dst = kb / 1024
		found++
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	if found != 2 {
		b.Fatalf("/proc/%d/status: no VmRSS or VmHWM", pid)
	}
	return rss, hwm, true
}

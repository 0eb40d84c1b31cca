package main

// The stress test of issue 23, item 1: writers (snapshot import, use and
// prune), short-lived readers (snapshot list and diff) and a running
// `hubsnap serve`, driven by a real MCP client calling a tool without a
// pause, all on one cache, 8 processes at a time. Every process is the
// real binary. What it asserts does not depend on timing:
//
//   - serve never answers NO_RELEASE: a release is current all along;
//   - after every trial, the index's current releases are the .current
//     files';
//   - a `snapshot use` is served within 2 s of the command's exit.

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Sizes of the stress test.
const (
	stressTrials     = 8
	stressWorkers    = 7 // with serve, 8 processes at a time
	stressSteps      = 6 // commands per worker in a trial's mixed phase
	stressProbes     = 5 // `snapshot use` timed per trial
	stressVisibility = 2 * time.Second
	stressProbeLimit = 15 * time.Second // a probe gives up (and fails) past this
)

// stressDocs writes the snapshot files of the test into dir: releases
// rel_1 to rel_5 of project shop, each twice (a second variant differs by
// a comment, so importing it indexes again), and o_1 to o_3 of project
// other.
func stressDocs(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	files := map[string]string{}
	write := func(name string, doc []byte) {
		path := filepath.Join(dir, name+".json")
		if err := os.WriteFile(path, doc, 0o600); err != nil {
			tb.Fatal(err)
		}
		files[name] = path
	}
	for k := 1; k <= 5; k++ {
		for _, variant := range []string{"a", "b"} {
			doc := edit(tb, release(tb, fmt.Sprintf("rel_%d", k), k), func(d map[string]any) {
				d["tables"].([]any)[0].(map[string]any)["comment"] = "variant " + variant
			})
			write(fmt.Sprintf("shop_rel_%d%s", k, variant), doc)
		}
	}
	for k := 1; k <= 3; k++ {
		write(fmt.Sprintf("other_o_%d", k), edit(tb, release(tb, fmt.Sprintf("o_%d", k), k), func(d map[string]any) {
			d["release"].(map[string]any)["project"] = "other"
		}))
	}
	return files
}

// stressRun runs one hubsnap command to its end, outside the test's
// goroutine: it reports, never fails the test.
func stressRun(ctx context.Context, c *cli, dir string, args ...string) result {
	ctx, cancel := context.WithTimeout(ctx, sessionLimit)
	defer cancel()
	bin, err := os.Executable()
	if err != nil {
		return result{args: args, code: -1, stderr: err.Error()}
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env, cmd.Dir = childEnv(c), dir
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	code := 0
	if err != nil {
		code = -1
		if cmd.ProcessState != nil {
			code = cmd.ProcessState.ExitCode()
		}
	}
	return result{args: args, code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// stressPoller calls release_info on a served session without a pause and
// counts the answers.
type stressPoller struct {
	mu        sync.Mutex
	calls     int
	noRelease int
	failures  []string // other errors, the first few
}

func (p *stressPoller) run(ctx context.Context, cs *mcp.ClientSession) {
	for ctx.Err() == nil {
		_, code, err := stressRelease(ctx, cs)
		if ctx.Err() != nil {
			return
		}
		p.mu.Lock()
		p.calls++
		switch {
		case code == "NO_RELEASE":
			p.noRelease++
		case err != nil && len(p.failures) < 5:
			p.failures = append(p.failures, err.Error())
		}
		p.mu.Unlock()
	}
}

// stressRelease asks serve for release_info: the release it serves, or the
// code of its tool error.
func stressRelease(ctx context.Context, cs *mcp.ClientSession) (id, code string, err error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "release_info", Arguments: map[string]any{}})
	if err != nil {
		return "", "", err
	}
	text := toolText(res)
	if res.IsError {
		var e struct {
			Error struct{ Code string } `json:"error"`
		}
		json.Unmarshal([]byte(text), &e)
		return "", e.Error.Code, fmt.Errorf("release_info: %s", text)
	}
	var ri struct{ ID string }
	if err := json.Unmarshal([]byte(text), &ri); err != nil {
		return "", "", fmt.Errorf("release_info: %v: %s", err, text)
	}
	return ri.ID, "", nil
}

// indexPointers reads the current releases straight from the index file,
// read-only, without hubsnap (which would reconcile first).
func indexPointers(tb testing.TB, cache string) map[string]string {
	tb.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(cache, "index.db")+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT c.project, c.environment, r.release_id FROM current_releases c JOIN releases r ON r.id = c.release`)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var p, e, id string
		if err := rows.Scan(&p, &e, &id); err != nil {
			tb.Fatal(err)
		}
		out[p+"/"+e] = id
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// filePointers reads every .current file of the cache.
func filePointers(tb testing.TB, cache string) map[string]string {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join(cache, "releases", "*", "*.current"))
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out[filepath.Base(filepath.Dir(p))+"/"+strings.TrimSuffix(filepath.Base(p), ".current")] = strings.TrimSpace(string(data))
	}
	return out
}

// stressCommand picks the command of one step of a worker. Writers of
// project shop change its current release only in the mixed phase (noisy
// false); in the probe phase (noisy true) only readers and writers of
// project other run beside the probe's `use`.
func stressCommand(rng *rand.Rand, files map[string]string, probe bool) []string {
	shop := func(args ...string) []string { return append(args, "--project", "shop") }
	other := func(args ...string) []string { return append(args, "--project", "other") }
	k := 1 + rng.IntN(5)
	o := 1 + rng.IntN(3)
	n := rng.IntN(100)
	if probe {
		n = 60 + rng.IntN(40) // readers and project other only
	}
	switch {
	case n < 25:
		return shop("snapshot", "import", files[fmt.Sprintf("shop_rel_%d%s", k, []string{"a", "b"}[rng.IntN(2)])])
	case n < 45:
		return shop("snapshot", "use", fmt.Sprintf("rel_%d", k))
	case n < 55:
		return shop("snapshot", "prune", "--keep", "3")
	case n < 60:
		return shop("snapshot", "diff")
	case n < 70:
		return other("snapshot", "import", files[fmt.Sprintf("other_o_%d", o)])
	case n < 75:
		return other("snapshot", "use", fmt.Sprintf("o_%d", o))
	case n < 80:
		return other("snapshot", "prune", "--keep", "2")
	case n < 92:
		return []string{"snapshot", "list", "--json"}
	default:
		return shop("snapshot", "diff", "--json")
	}
}

// acceptable tells whether a command's failure is the cache's true answer
// under the mixed load: a `use` of a release pruned meanwhile, or a diff
// when the current release is the oldest cached.
func acceptable(r result) bool {
	switch {
	case r.code != exitError:
		return false
	case slices.Contains(r.args, "use"):
		return strings.Contains(r.stderr, "is not in the cache")
	case slices.Contains(r.args, "diff"):
		return strings.Contains(r.stderr, "no release older than")
	}
	return false
}

func TestStressWritersReadersAndServe(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("stress: SKIPPED under -race or -short; CI's scale step runs it")
	}
	c := newCLI(t).with("HUBSNAP_PROJECT", "shop", "HUBSNAP_ENVIRONMENT", "dev")
	work := t.TempDir()
	files := stressDocs(t, work)
	ctx := t.Context()
	for _, name := range []string{"other_o_1", "other_o_2", "other_o_3", "shop_rel_1a", "shop_rel_2a", "shop_rel_3a", "shop_rel_4a", "shop_rel_5a"} {
		project := strings.SplitN(name, "_", 2)[0]
		if r := stressRun(ctx, c, work, "snapshot", "import", files[name], "--project", project); r.code != 0 {
			t.Fatalf("import %s: exit %d: %s", name, r.code, r.stderr)
		}
	}

	serveCmd := hubsnapCmd(t, c, "serve")
	serveErr := &lockedBuffer{}
	serveCmd.Stderr = serveErr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stress", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: serveCmd, TerminateDuration: signalLimit}, nil)
	if err != nil {
		t.Fatalf("connect to hubsnap serve: %v; stderr: %s", err, serveErr)
	}
	defer cs.Close()
	pollCtx, stopPolling := context.WithCancel(ctx)
	poller := &stressPoller{}
	polled := make(chan struct{})
	go func() { defer close(polled); poller.run(pollCtx, cs) }()

	var (
		mismatched []string // trials whose index disagreed with the files
		worstUse   time.Duration
		slowUses   []string
		failed     []string // commands that failed when they should not
		commands   int
	)
	// runWorkers runs stressWorkers workers of steps commands each, the
	// commands picked with seed, and returns their results.
	runWorkers := func(ctx context.Context, seed uint64, steps int, probe bool) []result {
		var mu sync.Mutex
		var out []result
		var wg sync.WaitGroup
		for w := range stressWorkers {
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			wg.Go(func() {
				for i := 0; steps < 0 || i < steps; i++ {
					if ctx.Err() != nil {
						return
					}
					r := stressRun(context.WithoutCancel(ctx), c, work, stressCommand(rng, files, probe)...)
					mu.Lock()
					out = append(out, r)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		return out
	}
	check := func(results []result) {
		for _, r := range results {
			commands++
			if r.code != 0 && !acceptable(r) && len(failed) < 10 {
				failed = append(failed, fmt.Sprintf("hubsnap %q: exit %d: %s", r.args, r.code, strings.TrimSpace(r.stderr)))
			}
			noPanic(t, fmt.Sprintf("hubsnap %q", r.args), r.stderr)
		}
	}
	compare := func(trial int, when string) {
		idx, fil := indexPointers(t, c.cacheDir()), filePointers(t, c.cacheDir())
		if !maps.Equal(idx, fil) {
			mismatched = append(mismatched, fmt.Sprintf("trial %d, %s: index %v, files %v", trial, when, idx, fil))
		}
	}

	for trial := range stressTrials {
		// The mixed phase: everything at once.
		check(runWorkers(ctx, uint64(trial), stressSteps, false))
		compare(trial, "after the mixed phase")

		// The probe phase: `use` on shop/dev, timed until serve answers
		// it, while readers and project other's writers run.
		noiseCtx, stopNoise := context.WithCancel(ctx)
		noise := make(chan []result, 1)
		go func() { noise <- runWorkers(noiseCtx, uint64(1000+trial), -1, true) }()
		for probe := range stressProbes {
			// A cached release of shop/dev that is not current.
			list := stressRun(ctx, c, work, "snapshot", "list", "--json", "--project", "shop")
			var got struct {
				Releases []releaseJSON `json:"releases"`
			}
			if err := json.Unmarshal([]byte(list.stdout), &got); err != nil {
				t.Fatalf("snapshot list --json: %v: %q %q", err, list.stdout, list.stderr)
			}
			target := ""
			for _, r := range got.Releases {
				if !r.Current && r.Environment == "dev" {
					target = r.Release
				}
			}
			if target == "" {
				t.Fatalf("trial %d: no release to use: %s", trial, list.stdout)
			}
			r := stressRun(ctx, c, work, "snapshot", "use", target, "--project", "shop")
			done := time.Now()
			if r.code != 0 {
				t.Fatalf("trial %d probe %d: use %s: exit %d: %s", trial, probe, target, r.code, r.stderr)
			}
			seen := time.Duration(-1)
			for time.Since(done) < stressProbeLimit {
				id, _, err := stressRelease(ctx, cs)
				if err == nil && id == target {
					seen = time.Since(done)
					break
				}
			}
			if seen < 0 {
				seen = stressProbeLimit
			}
			worstUse = max(worstUse, seen)
			if seen > stressVisibility {
				slowUses = append(slowUses, fmt.Sprintf("trial %d: use %s served after %v", trial, target, seen))
			}
		}
		stopNoise()
		check(<-noise)
		compare(trial, "after the probe phase")
	}
	stopPolling()
	<-polled

	poller.mu.Lock()
	calls, noRelease, pollFailures := poller.calls, poller.noRelease, poller.failures
	poller.mu.Unlock()
	t.Logf("stress: %d trials, %d commands; serve answered %d calls, %d NO_RELEASE; %d of %d checks found the index != the .current files; worst `use` visibility %v",
		stressTrials, commands, calls, noRelease, len(mismatched), 2*stressTrials, worstUse.Round(time.Millisecond))
	if noRelease > 0 {
		t.Errorf("serve answered NO_RELEASE %d times in %d calls while a release was current all along", noRelease, calls)
	}
	for _, m := range mismatched {
		t.Errorf("index != .current files: %s", m)
	}
	for _, s := range slowUses {
		t.Errorf("`use` visibility over %v: %s", stressVisibility, s)
	}
	for _, f := range pollFailures {
		t.Errorf("release_info failed: %s", f)
	}
	for _, f := range failed {
		t.Errorf("command failed: %s", f)
	}
	noPanic(t, "hubsnap serve", serveErr.String())
}

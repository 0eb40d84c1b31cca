package main

// End-to-end tests of `hubsnap serve` over real stdio: the test binary
// re-executes itself as hubsnap (see TestMain), syncs from an in-process
// Hub, and talks MCP to the child through its stdin and stdout, with the
// go-sdk client or with raw JSON-RPC lines.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/indexer"
	"github.com/hubsnap/hubsnap/indexer/analysis"
	"github.com/hubsnap/hubsnap/mcpserver"
	"github.com/hubsnap/hubsnap/store/answer"
)

// testMainEnv, set to 1 in a child's environment, makes the test binary
// run as hubsnap instead of running the tests.
const testMainEnv = "HUBSNAP_TEST_MAIN"

// peakFileEnv, set in a child's environment, names a file where the child
// appends its peak resident set when it ends (the VmHWM line of
// /proc/self/status, Linux), as does each hubsnap it starts in turn (the
// parser's compile, index_parser.go). Unlike the ru_maxrss that wait4
// reports, it is the child's own: Go starts a child with CLONE_VM, and
// Linux counts the parent's resident set at the exec in the child's
// ru_maxrss.
const peakFileEnv = "HUBSNAP_TEST_PEAK_FILE"

// TestMain runs the test binary as hubsnap when testMainEnv is set (a
// child a test started), and runs the tests otherwise. Either way a child
// this process starts with its own environment runs as hubsnap too: the
// parser's compile (analysis.SetCompiler) and serve's analyst re-run
// os.Executable.
func TestMain(m *testing.M) {
	analysis.SetCompiler(compileParserInChild)
	if os.Getenv(testMainEnv) == "1" {
		code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
		if f := os.Getenv(peakFileEnv); f != "" {
			appendPeak(f)
		}
		os.Exit(code)
	}
	os.Setenv(testMainEnv, "1")
	// One compilation of PostgreSQL's parser for every hubsnap the tests
	// start (a -race compile takes a minute on a busy machine), unless a
	// test gives a child its own.
	dir, err := os.MkdirTemp("", "hubsnap-test-parser-")
	if err != nil {
		panic(err)
	}
	os.Setenv(indexer.ParserDirEnv, dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// appendPeak appends this process's VmHWM line to file.
func appendPeak(file string) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for line := range strings.Lines(string(status)) {
		if strings.HasPrefix(line, "VmHWM:") {
			if f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
				f.WriteString(line)
				f.Close()
			}
		}
	}
}

// Time limits of the end-to-end tests. They bound a broken run; a healthy
// one takes a fraction of them, even under -race.
const (
	startLimit   = 20 * time.Second // a command that should finish at once
	sessionLimit = 60 * time.Second // one whole MCP session
	signalLimit  = 5 * time.Second  // exit after SIGTERM
)

// hubsnapBin returns the binary that runs as hubsnap: this test binary,
// with testMainEnv set.
func hubsnapBin(tb testing.TB) string {
	tb.Helper()
	bin, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	return bin
}

// childEnv is the whole environment of a hubsnap child: c's variables
// (HOME, HUBSNAP_CACHE_DIR and HUBSNAP_CONFIG_DIR are temp folders) and
// testMainEnv. Nothing is inherited from the test's own environment.
func childEnv(c *cli) []string {
	env := []string{testMainEnv + "=1"}
	if _, own := c.env[indexer.ParserDirEnv]; !own {
		env = append(env, indexer.ParserDirEnv+"="+os.Getenv(indexer.ParserDirEnv))
	}
	for k, v := range c.env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env[1:])
	return env
}

// hubsnapCmd returns an unstarted hubsnap child with c's environment.
func hubsnapCmd(tb testing.TB, c *cli, args ...string) *exec.Cmd {
	tb.Helper()
	cmd := exec.Command(hubsnapBin(tb), args...)
	cmd.Env = childEnv(c)
	cmd.Dir = tb.TempDir()
	return cmd
}

// lockedBuffer is a bytes.Buffer safe for a child's output copier and the
// test to use at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// child is a running hubsnap process.
type child struct {
	args           []string
	cmd            *exec.Cmd
	stdin          io.WriteCloser
	stdout, stderr *lockedBuffer
	done           chan struct{} // closed once the process was waited for
	waitErr        error
}

// startChild starts hubsnap with args and a stdin pipe the test holds
// open until it closes it. The process is killed at the end of the test if
// it is still running.
func startChild(tb testing.TB, c *cli, args ...string) *child {
	tb.Helper()
	p := &child{args: args, cmd: hubsnapCmd(tb, c, args...), stdout: &lockedBuffer{}, stderr: &lockedBuffer{},
		done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	stdin, err := p.cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	p.stdin = stdin
	if err := p.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.done)
	}()
	tb.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// wait waits up to limit for the process to exit and returns its exit code
// (-1 when a signal killed it). Past limit it kills the process and fails
// the test.
func (p *child) wait(tb testing.TB, limit time.Duration) int {
	tb.Helper()
	select {
	case <-p.done:
	case <-time.After(limit):
		p.cmd.Process.Kill()
		<-p.done
		tb.Fatalf("hubsnap %q did not exit within %s; stdout: %q; stderr: %q", p.args, limit, p.stdout, p.stderr)
	}
	var exitErr *exec.ExitError
	if p.waitErr != nil && !errors.As(p.waitErr, &exitErr) {
		tb.Fatalf("hubsnap %q: %v", p.args, p.waitErr)
	}
	return p.cmd.ProcessState.ExitCode()
}

// runChild runs hubsnap to the end with stdin and returns what it did.
func runChild(tb testing.TB, c *cli, stdin string, args ...string) result {
	tb.Helper()
	p := startChild(tb, c, args...)
	// A child that exits early closes its end: that is for the caller to
	// judge from the exit code and output, not a failure here.
	if _, err := io.WriteString(p.stdin, stdin); err != nil {
		tb.Logf("write stdin of hubsnap %q: %v", args, err)
	}
	p.stdin.Close()
	code := p.wait(tb, sessionLimit)
	return result{args: args, code: code, stdout: p.stdout.String(), stderr: p.stderr.String()}
}

// noPanic fails when stderr shows a panic or a data race of the child.
func noPanic(tb testing.TB, what, stderr string) {
	tb.Helper()
	for _, s := range []string{"panic:", "goroutine ", "DATA RACE"} {
		if strings.Contains(stderr, s) {
			tb.Errorf("%s: stderr shows %q:\n%s", what, s, stderr)
		}
	}
}

// servedCLI returns a cli whose cache holds shop.json's rel_42, synced
// with a token through the real binary from a real Hub, and the token.
func servedCLI(tb testing.TB) (*cli, string) {
	tb.Helper()
	const token = "hubtok_E2E_do_not_show_7f3c9a"
	h := newHub(tb, shopDoc(tb))
	h.Token = token
	c := hubCLI(tb, h).with("HUBSNAP_TOKEN", token)
	c.secrets = append(slices.Clone(c.secrets), token, "PLANTED_", "sk_live_", "postgres://", "clickhouse://")
	r := runChild(tb, c, "", "snapshot", "sync")
	if r.code != exitOK {
		tb.Fatalf("hubsnap snapshot sync: exit %d; stdout: %q; stderr: %q", r.code, r.stdout, r.stderr)
	}
	mentions(tb, "sync summary", r.stdout, "rel_42", "version 42")
	for _, s := range c.secrets {
		if strings.Contains(r.stdout+r.stderr, s) {
			tb.Errorf("hubsnap snapshot sync shows the secret %q: stdout %q, stderr %q", s, r.stdout, r.stderr)
		}
	}
	for _, req := range h.Requests() {
		if req.Authorization != "Bearer "+token {
			tb.Errorf("sync sent %s with Authorization %q, want the token", req.Path, req.Authorization)
		}
	}
	return c, token
}

// TestServeEndToEnd syncs from a Hub and serves the release over stdio to
// the go-sdk client, through the real binary.
func TestServeEndToEnd(t *testing.T) {
	t.Parallel()
	c, _ := servedCLI(t)

	ctx, cancel := context.WithTimeout(t.Context(), sessionLimit)
	defer cancel()
	cmd := hubsnapCmd(t, c, "serve")
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	const terminate = 10 * time.Second
	transport := &mcp.CommandTransport{Command: cmd, TerminateDuration: terminate}
	client := mcp.NewClient(&mcp.Implementation{Name: "hubsnap-e2e", Version: "0"}, nil)
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		t.Fatalf("connect to hubsnap serve: %v; stderr: %s", err, stderr)
	}
	closed := false
	defer func() {
		if !closed {
			session.Close()
		}
	}()
	if got := session.InitializeResult().ServerInfo.Name; got != "hubsnap" {
		t.Errorf("server name = %q, want hubsnap", got)
	}

	// Every result, as JSON, to look for secrets at the end.
	var seen []string
	record := func(v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, string(b))
	}

	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	record(tools)
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		for what, schema := range map[string]any{"inputSchema": tool.InputSchema, "outputSchema": tool.OutputSchema} {
			var s struct {
				Type string `json:"type"`
			}
			b, _ := json.Marshal(schema)
			if err := json.Unmarshal(b, &s); err != nil || s.Type != "object" {
				t.Errorf("tool %s: %s = %s, want a schema of type object", tool.Name, what, b)
			}
		}
	}
	slices.Sort(names)
	if want := []string{"logic_get", "logic_list", "release_check", "release_info", "schema_diagram", "schema_diff",
		"schema_get_table", "schema_join_path", "schema_list_tables", "schema_search"}; !slices.Equal(names, want) {
		t.Errorf("tools/list names = %q, want %q", names, want)
	}

	// call calls a tool that must succeed and decodes its structuredContent
	// into out; the text content must be the same JSON.
	call := func(name string, args map[string]any, out any) {
		t.Helper()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s %v: %v", name, args, err)
		}
		record(res)
		if res.IsError {
			t.Fatalf("%s %v: tool error %s", name, args, toolText(res))
		}
		structured, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(structured, out); err != nil {
			t.Fatalf("%s %v: structuredContent %s: %v", name, args, structured, err)
		}
		if !sameJSON(structured, []byte(toolText(res))) {
			t.Errorf("%s %v: text %s is not the structuredContent %s", name, args, toolText(res), structured)
		}
	}

	var list mcpserver.ListTablesOutput
	call("schema_list_tables", map[string]any{}, &list)
	wantTables := []answer.TableRef{
		{Name: "users", Connection: "analytics"},
		{Name: "items", Connection: "main"},
		{Name: "order_lines", Connection: "main"},
		{Name: "posts", Connection: "main"},
		{Name: "purchases", Connection: "main"},
		{Name: "users", Connection: "main"},
	}
	if !slices.Equal(list.Tables, wantTables) {
		t.Errorf("schema_list_tables = %+v, want %+v", list.Tables, wantTables)
	}

	var posts answer.Table
	call("schema_get_table", map[string]any{"table": "posts"}, &posts)
	if posts.Name != "posts" || posts.Connection != "main" || posts.Comment != "Blog posts" {
		t.Errorf("schema_get_table posts: name, connection, comment = %q, %q, %q", posts.Name, posts.Connection, posts.Comment)
	}
	if pk := posts.PrimaryKey; pk == nil || pk.Name != "id" || pk.Type != "string" || len(pk.Columns) != 1 {
		t.Errorf("schema_get_table posts: primaryKey = %+v, want id string", pk)
	}
	if len(posts.Columns) != 4 || posts.Columns[1].Name != "author_id" || posts.Columns[1].Comment != "writer" ||
		!slices.Equal(posts.Columns[3].Enum, []string{"draft", "published"}) {
		t.Errorf("schema_get_table posts: columns = %+v", posts.Columns)
	}
	if fks := posts.ForeignKeys; len(fks) != 1 || fks[0].Column != "author_id" || !slices.Equal(fks[0].Columns, []string{"author_id"}) ||
		fks[0].References.Table != "users" || fks[0].References.Column != "id" ||
		!slices.Equal(fks[0].References.Columns, []string{"id"}) || fks[0].References.Connection != "" {
		t.Errorf("schema_get_table posts: foreignKeys = %+v, want author_id -> users.id", fks)
	}

	var users answer.Table
	call("schema_get_table", map[string]any{"table": "main.users"}, &users)
	if users.Name != "users" || users.Connection != "main" {
		t.Errorf("schema_get_table main.users = %q in %q", users.Name, users.Connection)
	}
	var referrers []string
	for _, r := range users.ReferencedBy {
		conn := r.Connection
		if conn == "" { // named only when it is not the table's own
			conn = users.Connection
		}
		referrers = append(referrers, conn+"."+r.Table)
	}
	slices.Sort(referrers)
	if want := []string{"analytics.users", "main.posts", "main.purchases"}; !slices.Equal(referrers, want) {
		t.Errorf("schema_get_table main.users: referencedBy = %q, want %q", referrers, want)
	}

	var logics mcpserver.ListLogicsOutput
	call("logic_list", map[string]any{}, &logics)
	if want := []string{"admin/users", "items/search", "posts/publish", "purchase_item"}; !slices.Equal(logics.Logics, want) {
		t.Errorf("logic_list = %q, want %q", logics.Logics, want)
	}

	var logic answer.Logic
	call("logic_get", map[string]any{"name": "purchase_item"}, &logic)
	wantParams := []answer.Param{{Name: "user_id", Type: "string", Required: true}, {Name: "item_id", Type: "string", Required: true}}
	if logic.Name != "purchase_item" || !strings.HasPrefix(logic.SQL, "INSERT INTO purchases") ||
		!slices.Equal(logic.Params, wantParams) || !logic.Auth.Required || !slices.Equal(logic.Auth.Roles, []string{"authenticated"}) {
		t.Errorf("logic_get purchase_item = %+v", logic)
	}
	var prefixed answer.Logic
	call("logic_get", map[string]any{"name": "logics/items/search"}, &prefixed)
	if prefixed.Name != "items/search" || prefixed.Auth.Required || prefixed.Auth.Roles == nil || len(prefixed.Auth.Roles) != 0 {
		t.Errorf("logic_get logics/items/search = %+v", prefixed)
	}

	var found mcpserver.SearchOutput
	call("schema_search", map[string]any{"query": "displayName"}, &found)
	if want := []mcpserver.Hit{{Kind: "column", Table: "users", Connection: "main", Column: "display_name",
		Match: "name"}}; !slices.Equal(found.Hits, want) || found.More {
		t.Errorf("schema_search displayName = %+v, want %+v", found, want)
	}

	var info mcpserver.ReleaseInfo
	call("release_info", map[string]any{}, &info)
	if info.ID != "rel_42" || info.Project != "shop" || info.Environment != "dev" || info.Version != 42 ||
		info.CreatedAt != "2026-11-01T10:00:00Z" || info.SyncedAt == "" || info.Tables != 6 || info.Logics != 4 {
		t.Errorf("release_info = %+v", info)
	}

	// toolErr calls a tool that must fail with code.
	toolErr := func(name string, args map[string]any, code string) string {
		t.Helper()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s %v: %v, want a tool error", name, args, err)
		}
		record(res)
		var e struct {
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		text := toolText(res)
		if !res.IsError || json.Unmarshal([]byte(text), &e) != nil || e.Error.Code != code {
			t.Errorf("%s %v: isError %v, text %s; want a %s tool error", name, args, res.IsError, text, code)
		}
		return e.Error.Message
	}
	msg := toolErr("schema_get_table", map[string]any{"table": "users"}, "AMBIGUOUS")
	mentions(t, "AMBIGUOUS message", msg, "main.users", "analytics.users")
	msg = toolErr("schema_get_table", map[string]any{"table": "no_such_table"}, "NOT_FOUND")
	mentions(t, "NOT_FOUND message", msg, "no_such_table")
	for _, other := range []string{"posts", "purchases", "items"} {
		if strings.Contains(msg, other) {
			t.Errorf("NOT_FOUND message %q names the table %q, which was not asked for", msg, other)
		}
	}
	toolErr("logic_get", map[string]any{"name": "no/such/logic"}, "NOT_FOUND")

	for _, s := range c.secrets {
		for _, r := range seen {
			if strings.Contains(r, s) {
				t.Errorf("a result shows the secret %q: %s", s, r)
			}
		}
	}

	start := time.Now()
	err = session.Close()
	closed = true
	elapsed := time.Since(start)
	if err != nil {
		t.Errorf("close the session: %v (%v); stderr: %s", err, cmd.ProcessState, stderr)
	}
	if cmd.ProcessState == nil || !cmd.ProcessState.Exited() || cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("hubsnap serve ended with %v, want exit 0", cmd.ProcessState)
	}
	// Past terminate, the transport sends SIGTERM, which also exits 0:
	// the process must have ended on its own, when its stdin closed.
	if elapsed >= terminate {
		t.Errorf("hubsnap serve took %s to exit after its stdin closed", elapsed)
	}
	noPanic(t, "hubsnap serve", stderr.String())
	for _, s := range c.secrets {
		if strings.Contains(stderr.String(), s) {
			t.Errorf("hubsnap serve: stderr shows the secret %q", s)
		}
	}
}

// toolText is the text of a tool result's one text content ("" if none).
func toolText(res *mcp.CallToolResult) string {
	if len(res.Content) != 1 {
		return ""
	}
	if t, ok := res.Content[0].(*mcp.TextContent); ok {
		return t.Text
	}
	return ""
}

// sameJSON reports whether a and b are equal JSON values.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb)
}

// Raw JSON-RPC lines.
const (
	initializeLine  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// rpcResponse is a JSON-RPC response line.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Method string `json:"method"`
}

// responses decodes stdout, which must hold only JSON-RPC responses, one a
// line, and returns them by id (as JSON text: "1", "null", ...). An id
// answered twice fails the test.
func responses(tb testing.TB, stdout string) map[string]rpcResponse {
	tb.Helper()
	out := map[string]rpcResponse{}
	if stdout != "" && !strings.HasSuffix(stdout, "\n") {
		tb.Errorf("stdout does not end in a newline: %q", stdout)
	}
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := sc.Text()
		var r rpcResponse
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			tb.Errorf("stdout line is not JSON: %q", line)
			continue
		}
		if r.JSONRPC != "2.0" || r.Method != "" || len(r.ID) == 0 || (r.Result == nil) == (r.Error == nil) {
			tb.Errorf("stdout line is not a JSON-RPC response: %s", line)
			continue
		}
		id := string(r.ID)
		if _, dup := out[id]; dup {
			tb.Errorf("id %s answered twice; stdout:\n%s", id, stdout)
		}
		out[id] = r
	}
	return out
}

// TestServePipedRequests writes a whole session to stdin and closes it:
// every request is answered before hubsnap exits.
func TestServePipedRequests(t *testing.T) {
	t.Parallel()
	c, _ := servedCLI(t)
	in := strings.Join([]string{
		initializeLine,
		initializedLine,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"release_info","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"schema_get_table","arguments":{"table":"posts"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"logic_get","arguments":{"name":"purchase_item"}}}`,
	}, "\n") + "\n"
	start := time.Now()
	r := runChild(t, c, in, "serve")
	if r.code != exitOK {
		t.Errorf("hubsnap serve with piped requests: exit %d, want 0; stderr: %s", r.code, r.stderr)
	}
	if d := time.Since(start); d > startLimit {
		t.Errorf("hubsnap serve took %s to exit after its input ended", d)
	}
	got := responses(t, r.stdout)
	var ids []string
	for id := range got {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if want := []string{"1", "2", "3", "4", "5"}; !slices.Equal(ids, want) {
		t.Fatalf("answered ids %q, want %q; stdout:\n%s", ids, want, r.stdout)
	}
	for id, resp := range got {
		if resp.Error != nil {
			t.Errorf("id %s: error %+v", id, *resp.Error)
		}
	}
	var info struct {
		IsError           bool                  `json:"isError"`
		StructuredContent mcpserver.ReleaseInfo `json:"structuredContent"`
	}
	if err := json.Unmarshal(got["3"].Result, &info); err != nil || info.IsError || info.StructuredContent.ID != "rel_42" {
		t.Errorf("release_info answer = %s", got["3"].Result)
	}
	var logic struct {
		IsError           bool         `json:"isError"`
		StructuredContent answer.Logic `json:"structuredContent"`
	}
	if err := json.Unmarshal(got["5"].Result, &logic); err != nil || logic.IsError || len(logic.StructuredContent.Params) != 2 {
		t.Errorf("logic_get answer = %s", got["5"].Result)
	}
	noPanic(t, "hubsnap serve", r.stderr)
	for _, s := range c.secrets {
		if strings.Contains(r.stdout+r.stderr, s) {
			t.Errorf("hubsnap serve shows the secret %q", s)
		}
	}
}

// TestServeSIGTERM: a signal ends serve promptly and cleanly (exit 0, see
// transport.ServeStdio), with the client still connected.
func TestServeSIGTERM(t *testing.T) {
	t.Parallel()
	c, _ := servedCLI(t)
	ctx, cancel := context.WithTimeout(t.Context(), sessionLimit)
	defer cancel()
	cmd := hubsnapCmd(t, c, "serve")
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "hubsnap-e2e", Version: "0"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}, nil)
	if err != nil {
		t.Fatalf("connect to hubsnap serve: %v; stderr: %s", err, stderr)
	}
	defer session.Close()
	if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "release_info", Arguments: map[string]any{}}); err != nil {
		t.Fatalf("release_info: %v", err)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	go func() {
		session.Wait() // returns when the server's stdout closes
		close(ended)
	}()
	select {
	case <-ended:
	case <-time.After(signalLimit):
		cmd.Process.Kill()
		t.Fatalf("hubsnap serve still running %s after SIGTERM; stderr: %s", signalLimit, stderr)
	}
	session.Close() // reaps the process, already gone
	ps := cmd.ProcessState
	if ps == nil {
		t.Fatal("hubsnap serve was not waited for")
	}
	t.Logf("hubsnap serve after SIGTERM: %v (exit code %d)", ps, ps.ExitCode())
	if !ps.Exited() || ps.ExitCode() != 0 {
		t.Errorf("hubsnap serve after SIGTERM: %v, want exit 0; stderr: %s", ps, stderr)
	}
	if got := stderr.String(); got != "" {
		t.Errorf("hubsnap serve after SIGTERM: stderr = %q, want nothing", got)
	}
}

// TestServeNeedsRelease: without a current release, serve refuses at once,
// even with its stdin open, and names the command that fixes it.
func TestServeNeedsRelease(t *testing.T) {
	t.Parallel()
	synced, _ := servedCLI(t)
	for _, tc := range []struct {
		name string
		c    *cli
	}{
		{"no cache", newCLI(t).with("HUBSNAP_PROJECT", "shop")},
		{"no release of the environment", synced.with("HUBSNAP_ENVIRONMENT", "prod")},
		{"no release of the project", synced.with("HUBSNAP_PROJECT", "blog")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := startChild(t, tc.c, "serve")
			defer p.stdin.Close()
			code := p.wait(t, startLimit)
			stdout, stderr := p.stdout.String(), p.stderr.String()
			if code == exitOK {
				t.Errorf("hubsnap serve without a release: exit 0, want non-zero")
			}
			if stdout != "" {
				t.Errorf("hubsnap serve without a release: stdout = %q, want nothing", stdout)
			}
			if !strings.HasPrefix(stderr, "hubsnap: ") || strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
				t.Errorf("hubsnap serve without a release: stderr = %q, want one line starting \"hubsnap: \"", stderr)
			}
			mentions(t, "stderr", stderr, "hubsnap snapshot sync")
		})
	}
}

// TestServeGarbageInput: a line that is not a JSON-RPC message does not
// stop the server (docs/tools.md: nothing a client sends can crash it); the
// requests before and after it are answered. The bad line may be answered
// with an error whose id is null (-32700 parse error, -32600 invalid
// request) or ignored, but nothing else.
func TestServeGarbageInput(t *testing.T) {
	t.Parallel()
	c, _ := servedCLI(t)
	releaseInfo := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"release_info","arguments":{}}}`
	for _, tc := range []struct {
		name    string
		lines   []string
		badCode int // the error code the bad line may be answered with
	}{
		{"not JSON before initialize", []string{`this is not JSON`, initializeLine, initializedLine, releaseInfo}, -32700},
		{"not JSON mid-session", []string{initializeLine, initializedLine, `this is not JSON`, releaseInfo}, -32700},
		{"JSON but not JSON-RPC", []string{initializeLine, initializedLine, `{"foo":1}`, releaseInfo}, -32600},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runChild(t, c.on(t), strings.Join(tc.lines, "\n")+"\n", "serve")
			t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			noPanic(t, "hubsnap serve", r.stderr)
			if r.code != exitOK {
				t.Errorf("hubsnap serve with a bad line on stdin: exit %d, want 0; stderr: %s", r.code, r.stderr)
			}
			got := responses(t, r.stdout)
			for _, id := range []string{"1", "2"} {
				if resp, ok := got[id]; !ok || resp.Error != nil {
					t.Errorf("request %s with a bad line on stdin: answer %s, want a result", id, describe(resp, ok))
				}
			}
			for id, resp := range got {
				if id == "1" || id == "2" {
					continue
				}
				if id != "null" || resp.Error == nil || resp.Error.Code != tc.badCode {
					t.Errorf("unexpected answer to id %s: %s, want none or error %d", id, describe(resp, true), tc.badCode)
				}
			}
		})
	}
}

// TestServeProtocolErrors: an unknown tool is -32602, an unknown method
// -32601, and the session goes on.
func TestServeProtocolErrors(t *testing.T) {
	t.Parallel()
	c, _ := servedCLI(t)
	in := strings.Join([]string{
		initializeLine,
		initializedLine,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"no/such/method","params":{}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"logic_list","arguments":{}}}`,
	}, "\n") + "\n"
	r := runChild(t, c, in, "serve")
	if r.code != exitOK {
		t.Errorf("hubsnap serve: exit %d, want 0; stderr: %s", r.code, r.stderr)
	}
	noPanic(t, "hubsnap serve", r.stderr)
	got := responses(t, r.stdout)
	for id, want := range map[string]int{"2": -32602, "3": -32601} {
		resp, ok := got[id]
		if !ok || resp.Error == nil || resp.Error.Code != want {
			t.Errorf("id %s: answer %s, want error %d; stdout:\n%s", id, describe(resp, ok), want, r.stdout)
		}
	}
	if resp, ok := got["4"]; !ok || resp.Error != nil {
		t.Errorf("id 4 (logic_list after the errors): answer %s, want a result", describe(resp, ok))
	}
	if _, ok := got["1"]; !ok || len(got) != 4 {
		t.Errorf("answered %d requests, want 4; stdout:\n%s", len(got), r.stdout)
	}
}

func describe(r rpcResponse, ok bool) string {
	if !ok {
		return "none"
	}
	if r.Error != nil {
		return fmt.Sprintf("error %d %q", r.Error.Code, r.Error.Message)
	}
	return "result " + string(r.Result)
}

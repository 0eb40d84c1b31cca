package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/mcpserver"
	"github.com/hubsnap/hubsnap/store/answer"
)

// The demo's rel_42 renamed items.price to price_cents; its logic
// items/price_list still reads price: the analysis (SPEC §11) must say so
// everywhere.
const priceListProblem = `items/price_list:14: UNKNOWN_COLUMN column "price" does not exist`

// TestServeLogicAnalysis imports the demo's two releases with the real
// binary, serves them over stdio to the go-sdk client, and reads the
// analysis through every tool that shows it.
func TestServeLogicAnalysis(t *testing.T) {
	t.Parallel()
	c := newCLI(t).with("HUBSNAP_PROJECT", "shop")
	for _, name := range []string{"demo_release_41.json", "demo_release.json"} {
		path, err := filepath.Abs(name)
		if err != nil {
			t.Fatal(err)
		}
		if r := runChild(t, c, "", "snapshot", "import", path); r.code != exitOK {
			t.Fatalf("import %s: exit %d: %s", name, r.code, r.stderr)
		}
	}

	ctx, cancel := context.WithTimeout(t.Context(), sessionLimit)
	defer cancel()
	cmd := hubsnapCmd(t, c, "serve")
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	session, err := mcp.NewClient(&mcp.Implementation{Name: "analysis-e2e", Version: "0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: signalLimit}, nil)
	if err != nil {
		t.Fatalf("connect: %v; stderr: %s", err, stderr)
	}
	defer session.Close()
	call := func(tool string, args map[string]any, out any) {
		t.Helper()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s %v: %v %v", tool, args, err, res)
		}
		if err := json.Unmarshal([]byte(toolText(res)), out); err != nil {
			t.Fatal(err)
		}
	}

	var l answer.Logic
	call("logic_get", map[string]any{"name": "items/price_list"}, &l)
	a := l.Analysis
	if a == nil || a.Statement != "select" || len(a.Tables) != 1 || a.Tables[0].Table != "items" || a.Tables[0].Access != "read" ||
		len(a.Problems) != 1 || a.Problems[0].Code != snapshot.CodeUnknownColumn || a.Problems[0].Position != 14 {
		t.Errorf("logic_get items/price_list: analysis %+v", a)
	}
	call("logic_get", map[string]any{"name": "items/search"}, &l)
	if a := l.Analysis; a == nil || len(a.Problems) != 0 || len(a.Result) != 3 || a.Result[2].Name != "price_cents" ||
		a.Result[2].Type != "integer" {
		t.Errorf("logic_get items/search: analysis %+v", a)
	}
	call("logic_get", map[string]any{"name": "purchase_item"}, &l)
	if a := l.Analysis; a == nil || len(a.Problems) != 0 || len(a.Bindings) != 2 || a.Bindings[0] != (snapshot.Binding{Param: "user_id", Table: "purchases", Column: "user_id"}) {
		t.Errorf("logic_get purchase_item: analysis %+v", a)
	}

	var tb answer.Table
	call("schema_get_table", map[string]any{"table": "items"}, &tb)
	var users []string
	for _, u := range tb.UsedBy {
		users = append(users, u.Logic+":"+u.Access)
	}
	if got, want := strings.Join(users, " "), "items/price_list:read items/search:read"; got != want {
		t.Errorf("schema_get_table items: usedBy %q, want %q", got, want)
	}

	var d answer.DiffOutput
	call("schema_diff", map[string]any{}, &d)
	if d.Logics == nil || len(d.Logics.Broken) != 1 || d.Logics.Broken[0].Name != "items/price_list" ||
		d.Logics.Broken[0].Problems[0].Code != snapshot.CodeUnknownColumn {
		t.Errorf("schema_diff: logics %+v", d.Logics)
	}

	var info mcpserver.ReleaseInfo
	call("release_info", map[string]any{}, &info)
	if info.LogicProblems == nil || *info.LogicProblems < 1 || info.AnalysisPending {
		t.Errorf("release_info: logicProblems %v, pending %v", info.LogicProblems, info.AnalysisPending)
	}

	var check mcpserver.CheckOutput
	call("release_check", map[string]any{"code": snapshot.CodeUnknownColumn}, &check)
	if len(check.Findings) != 1 || check.Findings[0].Logic != "items/price_list" || check.Findings[0].Position != 14 {
		t.Errorf("release_check UNKNOWN_COLUMN: %+v", check.Findings)
	}

	// The CLI: snapshot check fails on the broken logic, rel_41 does not
	// have it; snapshot diff reports it.
	r := runChild(t, c, "", "snapshot", "check", "--rule", snapshot.CodeUnknownColumn)
	if r.code != exitError || r.stdout != priceListProblem+"\n" {
		t.Errorf("snapshot check --rule UNKNOWN_COLUMN: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := runChild(t, c, "", "snapshot", "check", "rel_41", "--rule", snapshot.CodeUnknownColumn); r.code != exitOK || r.stdout != "" {
		t.Errorf("snapshot check rel_41 --rule UNKNOWN_COLUMN: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runChild(t, c, "", "snapshot", "diff")
	if want := "\nBroken logics: 1\n  ! items/price_list\n      " + priceListProblem + "\n"; r.code != exitOK || !strings.HasSuffix(r.stdout, want) {
		t.Errorf("snapshot diff: exit %d, stdout:\n%s\nwant it to end with:\n%s", r.code, r.stdout, want)
	}
}

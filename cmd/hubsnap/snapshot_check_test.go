package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubsnap/hubsnap/indexer/lint"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/mcpserver"
	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/storetest"
)

// The demo release's findings, as `snapshot check` prints them.
const demoCheckText = `purchases.user_id: FK_WITHOUT_INDEX foreign key purchases_user_fk (user_id) to users (id) has no index that starts with its columns
purchases.item_id: FK_WITHOUT_INDEX foreign key purchases_item_fk (item_id) to items (id) has no index that starts with its columns
order_lines.item_id: FK_WITHOUT_INDEX foreign key (item_id) to items (id) has no index that starts with its columns
analytics.users.user_id: FK_WITHOUT_INDEX foreign key rollup_user_fk (user_id) to main.users (id) has no index that starts with its columns
items/price_list:14: UNKNOWN_COLUMN column "price" does not exist
`

func TestSnapshotCheck(t *testing.T) {
	t.Parallel()
	c := demoCLI(t)

	// Findings: one line each, exit 1, a summary on stderr.
	r := c.fails(exitError, "snapshot", "check")
	if r.stdout != demoCheckText {
		t.Errorf("snapshot check:\n%s\nwant:\n%s", r.stdout, demoCheckText)
	}
	if got, want := r.msg(), "5 findings in release rel_42 (FK_WITHOUT_INDEX 4, UNKNOWN_COLUMN 1)"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
	// An earlier cached release, by id.
	r = c.fails(exitError, "snapshot", "check", "rel_41")
	if !strings.HasPrefix(r.stdout, "purchases.user_id: FK_WITHOUT_INDEX") || !strings.Contains(r.stdout, "\ncarts.user_id: FK_WITHOUT_INDEX") ||
		r.msg() != "3 findings in release rel_41 (FK_WITHOUT_INDEX 3)" {
		t.Errorf("snapshot check rel_41:\n%s%s", r.stdout, r.stderr)
	}

	// No finding left: exit 0 and nothing printed.
	for _, args := range [][]string{
		{"--rule", "NO_PRIMARY_KEY"},
		{"--ignore", "FK_WITHOUT_INDEX,UNKNOWN_COLUMN"},
		{"--rule", "NO_PRIMARY_KEY,FK_TYPE_MISMATCH", "--rule", "DUPLICATE_FOREIGN_KEY"},
		{"--rule", "FK_WITHOUT_INDEX", "--ignore", "FK_WITHOUT_INDEX,NO_PRIMARY_KEY", "--rule", snapshot.CodeSyntax},
		{"--rule", snapshot.CodeSyntax}, // a logic code: a rule; no logic of the demo has a syntax error
	} {
		r := c.ok(append([]string{"snapshot", "check"}, args...)...)
		if r.stdout != "" || r.stderr != "" {
			t.Errorf("snapshot check %q: %q, %q; want nothing", args, r.stdout, r.stderr)
		}
	}

	// --all: MISSING_COMMENT too, after the other schema rules' findings,
	// before the logics'.
	r = c.fails(exitError, "snapshot", "check", "--all")
	schemaText := strings.TrimSuffix(demoCheckText, priceListProblem+"\n")
	if !strings.HasPrefix(r.stdout, schemaText) || !strings.Contains(r.stdout, "\nitems: MISSING_COMMENT table has no comment\n") ||
		!strings.HasSuffix(r.stdout, "\nanalytics.users.visits: MISSING_COMMENT column has no comment\n"+priceListProblem+"\n") {
		t.Errorf("snapshot check --all:\n%s", r.stdout)
	}
	if got, want := r.msg(), "27 findings in release rel_42 (FK_WITHOUT_INDEX 4, MISSING_COMMENT 22, UNKNOWN_COLUMN 1); 24.1% of tables and columns have a comment"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}

	// Usage errors: exit 2.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rule", "NO_INDEX"}, `unknown rule "NO_INDEX"; the rules are ` + strings.Join(lint.RuleCodes(), ", ")},
		{[]string{"--ignore", "no_primary_key"}, `unknown rule "no_primary_key"`},
		{[]string{"--all", "--rule", "NO_PRIMARY_KEY"}, "--all and --rule exclude each other"},
		{[]string{"--rule", "NO_PRIMARY_KEY", "--ignore", "NO_PRIMARY_KEY"}, "--ignore leaves no rule to run"},
		{[]string{"../x"}, "release id"},
		{[]string{"a", "b"}, "accepts at most 1 arg"},
	} {
		r := c.fails(exitUsage, append([]string{"snapshot", "check"}, tc.args...)...)
		if !strings.Contains(r.msg(), tc.want) {
			t.Errorf("snapshot check %q: %q, want it to say %q", tc.args, r.msg(), tc.want)
		}
	}
	if r := c.fails(exitError, "snapshot", "check", "rel_9"); r.stdout != "" ||
		!strings.Contains(r.msg(), `release "rel_9" of project "shop" is not in the cache`) {
		t.Errorf("an unknown release: %q, %q", r.stdout, r.msg())
	}
}

// --json prints release_check's answer, whole: the same findings, the
// document indented as snapshot diff --json is.
func TestSnapshotCheckJSON(t *testing.T) {
	t.Parallel()
	c := demoCLI(t)
	for _, args := range [][]string{nil, {"--all"}, {"--rule", "NO_PRIMARY_KEY"}} {
		r := c.run(append([]string{"snapshot", "check", "--json"}, args...)...)
		var got mcpserver.CheckOutput
		dec := json.NewDecoder(strings.NewReader(r.stdout))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&got); err != nil {
			t.Fatalf("snapshot check --json %q: %v\n%s", args, err, r.stdout)
		}
		if (r.code == exitOK) != (got.Total == 0) || got.Total != len(got.Findings) || got.NextCursor != "" || got.Release != "rel_42" {
			t.Errorf("--json %q: exit %d, total %d, %d findings, cursor %q", args, r.code, got.Total, len(got.Findings), got.NextCursor)
		}
		if (got.CommentCoverage != nil) != (len(args) > 0 && args[0] == "--all") {
			t.Errorf("--json %q: commentCoverage %v", args, got.CommentCoverage)
		}
		// The streamed document is json.Indent's form of itself.
		var compact, indented bytes.Buffer
		json.Compact(&compact, []byte(r.stdout))
		json.Indent(&indented, compact.Bytes(), "", "  ")
		if indented.String()+"\n" != r.stdout {
			t.Errorf("--json %q is not indented as json.Indent does:\n%s", args, r.stdout)
		}
	}
	r := c.fails(exitError, "snapshot", "check", "--json")
	var got mcpserver.CheckOutput
	json.Unmarshal([]byte(r.stdout), &got)
	var lines []string
	for _, f := range got.Findings {
		lines = append(lines, findingLine(f))
	}
	if text := strings.Join(lines, "\n") + "\n"; text != demoCheckText {
		t.Errorf("--json findings, as lines:\n%s\nwant:\n%s", text, demoCheckText)
	}
}

// A release with more findings than a page of the store: every one once,
// in both forms.
func TestSnapshotCheckManyFindings(t *testing.T) {
	t.Parallel()
	c := newCLI(t).with("HUBSNAP_PROJECT", "big")
	file := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := storetest.WriteRelease(f, storetest.Size{Tables: 1500, Logics: 10}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	c.ok("snapshot", "import", file)
	r := c.fails(exitError, "snapshot", "check", "--all", "--json")
	var got mcpserver.CheckOutput
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	if got.Total <= store.MaxPageLimit || len(got.Findings) != got.Total {
		t.Fatalf("%d findings, total %d; want all of more than %d", len(got.Findings), got.Total, store.MaxPageLimit)
	}
	seen := map[mcpserver.Finding]bool{}
	for _, f := range got.Findings {
		if seen[f] {
			t.Fatalf("twice: %+v", f)
		}
		seen[f] = true
	}
	text := c.fails(exitError, "snapshot", "check", "--all")
	if n := strings.Count(text.stdout, "\n"); n != got.Total {
		t.Errorf("%d lines, want %d", n, got.Total)
	}
}

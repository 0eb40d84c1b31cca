package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemo runs `hubsnap demo` as a newcomer would: its serve child is this
// test binary re-executed as hubsnap (see TestMain).
func TestDemo(t *testing.T) {
	t.Setenv(testMainEnv, "1") // the demo's serve child inherits it
	c := newCLI(t)
	cache := filepath.Join(t.TempDir(), "demo-cache")
	r := c.ok("demo", "--cache-dir", cache)
	for _, want := range []string{
		"synced shop/dev rel_41 (version 41): 6 tables, 4 logics",
		"synced shop/dev rel_42 (version 42): 6 tables, 5 logics",
		"   shop/dev: rel_41 (version 41) -> rel_42 (version 42)\n\n   Tables: 1 added, 1 removed, 3 changed\n",
		"         ~ column email: nullable true -> false\n",
		`-> schema_join_path {"from":"main.users","to":"items"}`,
		`-> schema_diagram {"hops":2,"table":"main.users"}`,
		"   <- erDiagram\n          t0[\"users\"] {\n",
		`          t0 ||--o{ t1 : "posts_author_fk"`,
		`"sql": "FROM users JOIN purchases ON purchases.user_id = users.id JOIN items ON items.id = purchases.item_id"`,
		"-> schema_diff {}",
		"   hubsnap snapshot check: what a team's CI would flag in rel_42 (the schema, then the logics):\n\n" +
			"   purchases.user_id: FK_WITHOUT_INDEX foreign key purchases_user_fk (user_id) to users (id) has no index that starts with its columns\n",
		"   Broken logics: 1\n     ! items/price_list\n         " + priceListProblem + "\n",
		"   " + priceListProblem + "\n   hubsnap: 5 findings in release rel_42 (FK_WITHOUT_INDEX 4, UNKNOWN_COLUMN 1) (exit 1)\n",
		`"analysis": {` + "\n" + `          "statement": "insert",`,
		`-> release_check {}`,
		`"schemaProblems": 4`,
		`"changed": [{"name":"email","from":{"nullable":true},"to":{"nullable":false}}]`,
		`"otherReleases": [{"id":"rel_41","version":41}]`,
		"none is in the cache",
		"- schema_get_table",
		`-> schema_get_table {"table":"posts"}`,
		`"code": "AMBIGUOUS"`,
		`"code":"NOT_FOUND"`,
		`"sql": "INSERT INTO purchases (user_id, item_id) VALUES (:user_id, :item_id) RETURNING id"`,
		"claude mcp add hubsnap -- hubsnap serve",
		`"hubsnap": {"command": "hubsnap", "args": ["serve"]}`,
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	for _, secret := range demoSecrets {
		if strings.Contains(r.stdout, secret) {
			t.Errorf("demo output shows %q", secret)
		}
	}
	// An explicit --cache-dir keeps the synced cache.
	if _, err := os.Stat(filepath.Join(cache, "releases/shop/rel_42.json")); err != nil {
		t.Errorf("--cache-dir: %v", err)
	}
}

// TestDemoLeavesNoTemporaryCache checks the default run cleans up after
// itself and never uses the configured cache.
func TestDemoLeavesNoTemporaryCache(t *testing.T) {
	t.Setenv(testMainEnv, "1")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	c := newCLI(t)
	c.ok("demo")
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("demo left %v in TMPDIR", entries)
	}
	if _, err := os.Stat(c.cacheDir()); !os.IsNotExist(err) {
		t.Errorf("demo touched the configured cache %s (%v)", c.cacheDir(), err)
	}
}

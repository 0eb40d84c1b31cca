package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
)

// linkRelease is issue 36's release: two hubs, tenants and users, that
// 10,000 tables each point at (r_00000_a... at tenants, r_00000_b... at
// users), joined 2 joins apart by tables named to sort first, in the
// middle and last among those, one of each orientation of a 2-join path:
//
//   - a_link, r_05000_link (a composite key to tenants) and z_link (two
//     keys to users) point at both: tenants <- link -> users;
//   - tenants and users both point at r_07000_plan: tenants -> plan <- users;
//   - tenants points at r_02000_owner, which points at users;
//   - users points at zz_audit, which points at tenants.
//
// And orgs and teams, hubs that the same tables point at (r_..._a at orgs,
// r_..._b at teams), joined only by solo_link, which sorts last: between
// a table pointing at orgs and teams the one path is 3 joins through the
// hub, and r_00001_a to r_00001_b is 4 joins apart, through tenants or
// orgs, a table joined to both hubs, and users or teams.
func linkRelease() *snapshot.Snapshot {
	snap := &snapshot.Snapshot{
		Release: snapshot.Release{ID: "rel_links", Project: "links", Environment: "dev", Version: 1, CreatedAt: "2026-11-01T10:00:00Z"},
		Origin:  snapshot.Origin{Source: snapshot.SourceImport, Digest: "sha256:" + strings.Repeat("0", 64), SyncedAt: "2026-11-01T10:00:00Z"},
	}
	type key struct {
		cols, ref string // comma-separated columns; table or table(columns)
	}
	add := func(name string, keys ...key) {
		t := snapshot.Table{Name: name, Connection: "main", Columns: []snapshot.Column{{Name: "id", Type: "bigint"}}, PrimaryKey: []string{"id"}}
		for _, k := range keys {
			cols := strings.Split(k.cols, ",")
			ref, refCols, ok := strings.Cut(strings.TrimSuffix(k.ref, ")"), "(")
			if !ok {
				refCols = "id"
			}
			for _, c := range cols {
				t.Columns = append(t.Columns, snapshot.Column{Name: c, Type: "bigint"})
			}
			t.ForeignKeys = append(t.ForeignKeys, snapshot.ForeignKey{Columns: cols, RefTable: ref, RefColumns: strings.Split(refCols, ",")})
		}
		snap.Tables = append(snap.Tables, t)
	}
	add("tenants", key{"plan_id", "r_07000_plan"}, key{"owner_id", "r_02000_owner"})
	snap.Tables[0].Columns = append(snap.Tables[0].Columns, snapshot.Column{Name: "region", Type: "text"})
	snap.Tables[0].PrimaryKey = []string{"id", "region"}
	add("users", key{"plan_id", "r_07000_plan"}, key{"audit_id", "zz_audit"})
	add("orgs")
	add("teams")
	for i := range 10_000 {
		add(fmt.Sprintf("r_%05d_a", i), key{"tenant_id", "tenants"}, key{"org_id", "orgs"})
		add(fmt.Sprintf("r_%05d_b", i), key{"user_id", "users"}, key{"team_id", "teams"})
	}
	add("a_link", key{"tenant_id", "tenants"}, key{"user_id", "users"})
	add("r_05000_link", key{"tenant_id,tenant_region", "tenants(id,region)"}, key{"user_id", "users"})
	add("z_link", key{"owner_id", "users"}, key{"tenant_id", "tenants"}, key{"editor_id", "users"})
	add("r_07000_plan")
	add("r_02000_owner", key{"user_id", "users"})
	add("zz_audit", key{"tenant_id", "tenants"})
	add("solo_link", key{"org_id", "orgs"}, key{"team_id", "teams"})
	return snap
}

// The paths between tenants and users, in order: by the table in the
// middle, then the keys.
var tenantsToUsers = [][]string{
	{"tenants", "a_link", "users", "a_link.tenant_id = tenants.id", "users.id = a_link.user_id"},
	{"tenants", "r_02000_owner", "users", "r_02000_owner.id = tenants.owner_id", "users.id = r_02000_owner.user_id"},
	{"tenants", "r_05000_link", "users",
		"r_05000_link.tenant_id = tenants.id AND r_05000_link.tenant_region = tenants.region", "users.id = r_05000_link.user_id"},
	{"tenants", "r_07000_plan", "users", "r_07000_plan.id = tenants.plan_id", "users.plan_id = r_07000_plan.id"},
	{"tenants", "z_link", "users", "z_link.tenant_id = tenants.id", "users.id = z_link.owner_id"},
	{"tenants", "z_link", "users", "z_link.tenant_id = tenants.id", "users.id = z_link.editor_id"},
	{"tenants", "zz_audit", "users", "zz_audit.tenant_id = tenants.id", "users.audit_id = zz_audit.id"},
}

// reversed is a path key of tenantsToUsers read from the other end.
func reversed(p []string) []string {
	n := (len(p) + 1) / 2
	var out []string
	for i := n - 1; i >= 0; i-- {
		out = append(out, p[i])
	}
	for i := len(p) - 1; i >= n; i-- {
		a, b, _ := strings.Cut(p[i], " = ")
		// Each condition puts the newly joined table first; a composite
		// one is "x.a = y.a AND x.b = y.b".
		if strings.Contains(p[i], " AND ") {
			var parts []string
			for _, c := range strings.Split(p[i], " AND ") {
				a, b, _ := strings.Cut(c, " = ")
				parts = append(parts, b+" = "+a)
			}
			out = append(out, strings.Join(parts, " AND "))
			continue
		}
		out = append(out, b+" = "+a)
	}
	return out
}

// TestJoinPathsThroughLinksLarge: between two hubs of 10,000 referrers,
// the 2-join paths through the tables that join them are found wherever
// those sort among the referrers, in both directions, whole; so is the
// one 3-join path between a hub's referrer and another hub. Issue 36
// found "[]", truncated, both ways.
func TestJoinPathsThroughLinksLarge(t *testing.T) {
	if testing.Short() || raceOn {
		t.Skip("a 20,011-table index; .ci/run's scale step runs it without -race")
	}
	ctx := context.Background()
	s, err := store.Open(ctx, filepath.Join(t.TempDir(), "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.PutRelease(ctx, linkRelease(), store.FileState{}, true, nil); err != nil {
		t.Fatal(err)
	}
	links := store.Target{Project: "links", Environment: "dev"}
	var backwards [][]string
	for _, p := range tenantsToUsers {
		backwards = append(backwards, reversed(p))
	}
	// users to tenants: the same paths, ordered from users: by the middle
	// table, then the key to it (z_link's owner_id before its editor_id).
	soloTeams := []string{"r_00001_a", "orgs", "solo_link", "teams",
		"orgs.id = r_00001_a.org_id", "solo_link.org_id = orgs.id", "teams.id = solo_link.team_id"}
	for _, tc := range []struct {
		name     string
		req      store.JoinPathRequest
		want     [][]string
		truncate bool
	}{
		{"tenants to users", store.JoinPathRequest{From: "tenants", To: "users", Limit: 3}, tenantsToUsers[:3], false},
		{"users to tenants", store.JoinPathRequest{From: "users", To: "tenants", Limit: 3}, backwards[:3], false},
		{"tenants to users, every 2-join path", store.JoinPathRequest{From: "tenants", To: "users", Limit: 10, MaxHops: 3}, tenantsToUsers, false},
		{"users to tenants, every 2-join path", store.JoinPathRequest{From: "users", To: "tenants", Limit: 10, MaxHops: 3}, backwards, false},
		{"tenants to users, the first", store.JoinPathRequest{From: "tenants", To: "users", Limit: 1}, tenantsToUsers[:1], false},
		{"the only path: 3 joins through a hub", store.JoinPathRequest{From: "r_00001_a", To: "teams", MaxHops: 3}, [][]string{soloTeams}, false},
		{"the only path, backwards", store.JoinPathRequest{From: "teams", To: "r_00001_a", MaxHops: 3}, [][]string{reversed(soloTeams)}, false},
		{"no path of 1 or 2 joins between hubs", store.JoinPathRequest{From: "orgs", To: "users", MaxHops: 2}, [][]string{}, false},
		{"4 joins through both hubs", store.JoinPathRequest{From: "r_00001_a", To: "r_00001_b"}, [][]string{
			{"r_00001_a", "orgs", "solo_link", "teams", "r_00001_b",
				"orgs.id = r_00001_a.org_id", "solo_link.org_id = orgs.id", "teams.id = solo_link.team_id", "r_00001_b.team_id = teams.id"},
			{"r_00001_a", "tenants", "a_link", "users", "r_00001_b",
				"tenants.id = r_00001_a.tenant_id", "a_link.tenant_id = tenants.id", "users.id = a_link.user_id", "r_00001_b.user_id = users.id"},
			{"r_00001_a", "tenants", "r_02000_owner", "users", "r_00001_b",
				"tenants.id = r_00001_a.tenant_id", "r_02000_owner.id = tenants.owner_id", "users.id = r_02000_owner.user_id",
				"r_00001_b.user_id = users.id"},
		}, false},
		// Paths of 6 joins exist (tenants, a table pointing at it and at
		// orgs, orgs, solo_link, teams, a table pointing at it and at
		// users, users), 100,000,000 of them, beyond what the walk may
		// read from a hub: the answer gives the 7 of 2 joins, and says it
		// was cut.
		{"must still be cut", store.JoinPathRequest{From: "tenants", To: "users", Limit: 10, MaxHops: 6}, tenantsToUsers, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.JoinPaths(ctx, links, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			keys := [][]string{}
			for _, p := range got.Paths {
				keys = append(keys, append(append([]string{}, p.Tables...), p.Joins...))
			}
			if diff := gocmp.Diff(tc.want, keys); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
			if got.Truncated != tc.truncate {
				t.Errorf("truncated = %v, want %v", got.Truncated, tc.truncate)
			}
		})
	}
}

package store

import (
	"context"
	"database/sql"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"modernc.org/sqlite"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// TestLookasideHolds checks that SQLite took the lookaside size of
// lookaside.go, and that a read connection holding every prepared
// statement still serves the answers from it: no allocation of a running
// statement may find the pool full. It fails when the statements outgrow
// lookasideSlots.
func TestLookasideHolds(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	if errLookaside != nil {
		t.Fatal(errLookaside)
	}
	put(t, s, sampleSnapshot(), true)
	// One read connection, so that it holds every prepared statement and
	// runs every call below.
	s.r.SetMaxOpenConns(1)

	answers := func() {
		t.Helper()
		for _, name := range []string{"main.users", "purchases", "refunds", "events"} {
			conn, table := "", name
			if name == "main.users" {
				conn, table = "main", "users"
			}
			if _, err := s.TableJSON(ctx, shopDev, conn, table); err != nil {
				t.Fatalf("TableJSON(%s): %v", name, err)
			}
		}
		// Two connections have a users table: the answer lists them.
		if _, err := s.TableJSON(ctx, shopDev, "", "users"); ErrorCode(err) != Ambiguous {
			t.Fatalf("TableJSON(users): %v, want %s", err, Ambiguous)
		}
		if _, err := s.Search(ctx, shopDev, SearchQuery{Text: "user email"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.LogicJSON(ctx, shopDev, "purchase_item"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.TablesPage(ctx, shopDev, "", PageRequest{}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ReleaseJSON(ctx, shopDev); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CheckJSON(ctx, shopDev, CheckRequest{Codes: []string{snapshot.CodeFKWithoutIndex, snapshot.CodeMissingComment}}); err != nil {
			t.Fatal(err)
		}
	}
	// The first round may prepare what Open left unprepared.
	answers()
	status := func(reset bool) (used, hit, full int) {
		t.Helper()
		c, err := s.r.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		err = c.Raw(func(dc any) error {
			st := dc.(sqlite.DBStatus)
			var err error
			if used, _, err = st.Status(sqlite.DBStatusLookasideUsed, reset); err != nil {
				return err
			}
			if _, hit, err = st.Status(sqlite.DBStatusLookasideHit, reset); err != nil {
				return err
			}
			_, full, err = st.Status(sqlite.DBStatusLookasideMissFull, reset)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return used, hit, full
	}
	status(true)
	answers()
	used, hit, full := status(false)
	t.Logf("lookaside: %d slots held by prepared statements, %d allocations from it, %d found it full", used, hit, full)
	if hit == 0 || full > 0 {
		t.Errorf("lookaside: %d allocations from it, %d found it full; want some and none (raise lookasideSlots)", hit, full)
	}
}

// TestLookasideFailureLogged checks that the lookaside size is set when the
// first store opens, not at package initialization, and that a failure to
// set it is logged: in a child process that uses SQLite before any store
// opens, SQLite refuses the size, and Open says so in the log.
func TestLookasideFailureLogged(t *testing.T) {
	if os.Getenv("HUBSNAP_LOOKASIDE_CHILD") == "1" {
		db, err := sql.Open("sqlite", "file::memory:")
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Ping(); err != nil { // SQLite initializes here
			t.Fatal(err)
		}
		db.Close()
		slog.SetDefault(slog.New(slog.NewTextHandler(os.Stdout, nil)))
		s, err := Open(context.Background(), filepath.Join(t.TempDir(), "index.db"))
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLookasideFailureLogged$", "-test.v")
	cmd.Env = append(os.Environ(), "HUBSNAP_LOOKASIDE_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if got, want := string(out), "SQLite runs with its default lookaside"; !strings.Contains(got, want) {
		t.Errorf("child output:\n%s\nwant a log line %q", got, want)
	}
}

package pgoracle

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var update = flag.Bool("update", false, "rewrite the corpus's snapshot.json and truth.json files")

// corpus loads testdata/logics.
func corpus(tb testing.TB) []*Schema {
	tb.Helper()
	dir, err := CorpusDir()
	if err != nil {
		tb.Fatal(err)
	}
	schemas, err := LoadCorpus(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return schemas
}

// TestCorpusBuilt keeps each snapshot.json equal to schema.json with the
// logics of logics.sql; -update rewrites it.
func TestCorpusBuilt(t *testing.T) {
	t.Parallel()
	for _, s := range corpus(t) {
		path := filepath.Join(s.Dir, "snapshot.json")
		if *update {
			if err := os.WriteFile(path, s.Doc, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, s.Doc) {
			t.Errorf("%s is not built from schema.json and logics.sql; run go test -run TestCorpusBuilt -update", path)
		}
		if _, err := ParseSnapshot(got); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
}

// TestTruth derives PostgreSQL's answer for the whole corpus, checks the
// corpus is sound (every base logic prepares, runs and returns rows, and
// has no problem), and compares the answer with the committed truth.json
// (-update rewrites it). Messages are compared only when the committed
// truth comes from the same PostgreSQL major version.
func TestTruth(t *testing.T) {
	srv := Start(t)
	t.Logf("PostgreSQL %s", srv.Version)
	for _, s := range corpus(t) {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel() // a database each
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			truth, unsound, err := Derive(ctx, srv, s)
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range unsound {
				t.Errorf("unsound corpus: %s", u)
			}
			path := filepath.Join(s.Dir, "truth.json")
			if *update {
				if err := os.WriteFile(path, truth.Marshal(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := LoadTruth(s)
			if err != nil {
				t.Fatalf("%v; run go test -run TestTruth -update", err)
			}
			opts := []cmp.Option{cmpopts.EquateEmpty()}
			if want.PostgresMajor != truth.PostgresMajor {
				t.Logf("truth.json comes from PostgreSQL %d, this is %d: messages not compared", want.PostgresMajor, truth.PostgresMajor)
				opts = append(opts, cmpopts.IgnoreFields(Verdict{}, "Message"), cmpopts.IgnoreFields(Truth{}, "PostgresMajor"))
			}
			if diff := cmp.Diff(want, truth, opts...); diff != "" {
				t.Errorf("PostgreSQL's answer drifted from %s (-committed +now); if the change is meant, run go test -run TestTruth -update and review the diff:\n%s", path, diff)
			}
		})
	}
}

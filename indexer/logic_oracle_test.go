package indexer

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubsnap/hubsnap/indexer/analysis/pgoracle"
	"github.com/hubsnap/hubsnap/store"
)

// TestOracleThroughIndex imports every release of the oracle corpus
// (testdata/logics: a shop, a blog and a multi-tenant SaaS, and their
// mutated releases) through the real import path, reads each logic's
// analysis back from the index, and compares it with PostgreSQL's own
// answers (pgoracle's committed truth, which TestTruth re-derives from a
// real PostgreSQL where one is installed and CI requires): no false
// problem, and the figures logged.
func TestOracleThroughIndex(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("the oracle corpus through the index (about 80 imports): run without -short and -race (.ci/run does)")
	}
	ctx := context.Background()
	caches := map[[32]byte]*Cache{}
	analyse := func(doc []byte, logic string) ([]byte, error) {
		sum := sha256.Sum256(doc)
		c := caches[sum]
		if c == nil {
			dir := t.TempDir()
			file := filepath.Join(t.TempDir(), "snapshot.json")
			writeFile(t, file, doc)
			if _, err := Import(ctx, dir, file, nil, testLog(t)); err != nil {
				return nil, fmt.Errorf("import: %w", err)
			}
			c = openCache(t, dir)
			caches[sum] = c
		}
		var head struct {
			Release struct {
				ID, Project string
			}
		}
		if err := json.Unmarshal(doc, &head); err != nil {
			return nil, err
		}
		key := store.ReleaseKey{Project: head.Release.Project, ID: head.Release.ID}
		if state, err := c.Store().AnalysisState(ctx, key); err != nil || state != store.AnalysisDone {
			return nil, fmt.Errorf("analysis state %q, %v", state, err)
		}
		a, err := c.Store().LogicAnalysis(ctx, key, logic)
		if err != nil {
			return nil, err
		}
		return json.Marshal(a)
	}
	r := pgoracle.CompareCorpus(t, analyse)
	var out strings.Builder
	r.Format(&out, 40)
	t.Logf("the analysis read back from the index against PostgreSQL:\n%s", out.String())
	if r.Logics < 200 || r.Mutations == 0 {
		t.Errorf("compared %d logics and %d mutated releases: the corpus is missing", r.Logics, r.Mutations)
	}
	if r.FalseProblems != 0 {
		t.Errorf("%d false problems (logics PostgreSQL accepts, given a problem)", r.FalseProblems)
	}
	if f := r.Figures["analyses"]; f == nil || f.Agree != f.Compared {
		t.Errorf("analyses read back: %+v, want every one", f)
	}
}

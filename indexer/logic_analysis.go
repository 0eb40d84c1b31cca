package indexer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hubsnap/hubsnap/indexer/analysis"
)

// Where logics are analysed (SPEC §11, docs/design.md "Logic analysis at
// index time"). A Cache that parses SQL (every command but serve) hands
// its Analyzer to each release it writes, which is analysed in its own
// transaction; the Analyzer compiles PostgreSQL's parser only when a
// release has postgres logics, keeping wazero's compilation under
// {cache}/parser. A Cache opened with NoParse (serve) writes such
// releases pending, never loads the parser, and tells OnPending, whose
// owner runs `hubsnap index analyze` in a child process.

// OpenOptions are the options of OpenWith.
type OpenOptions struct {
	// NoParse: this process never parses SQL. The releases it writes with
	// postgres logics are marked pending (store.AnalysisPending).
	NoParse bool
	// OnPending, with NoParse, is called after each release this Cache
	// writes (it may be pending) and once at Open when some release is
	// pending. It must not block.
	OnPending func()
}

// parserDir is the folder of the cache that keeps wazero's compilation of
// PostgreSQL's parser between processes.
const parserDir = "parser"

// ParserDirEnv names the environment variable that moves the compiled
// parser out of the cache, to a folder several caches share (every
// hubsnap process reads it: the compile runs once per folder; see
// docs/cli.md).
const ParserDirEnv = "HUBSNAP_PARSER_DIR"

// parserFolder is where a cache at dir keeps the compiled parser.
func parserFolder(dir string) string {
	if d := os.Getenv(ParserDirEnv); d != "" {
		return d
	}
	return filepath.Join(dir, parserDir)
}

// logicAnalysis is what a Cache keeps for the analysis of logics.
type logicAnalysis struct {
	analyzer  *analysis.Analyzer // nil with NoParse
	onPending func()
}

func (l *logicAnalysis) open(ctx context.Context, dir string, opts OpenOptions) error {
	if opts.NoParse {
		l.onPending = opts.OnPending
		return nil
	}
	a, err := analysis.New(ctx, analysis.Options{CacheDir: parserFolder(dir), Shared: true})
	if err != nil {
		return fmt.Errorf("logic analyzer: %w", err)
	}
	l.analyzer = a
	return nil
}

func (l *logicAnalysis) close() {
	if l.analyzer != nil {
		l.analyzer.Close()
	}
}

// written is called after a release is written.
func (l *logicAnalysis) written() {
	if l.onPending != nil {
		l.onPending()
	}
}

// Parses reports whether this Cache analyses the logics it indexes (it
// was not opened with NoParse).
func (c *Cache) Parses() bool { return c.logics.analyzer != nil }

// AnalyzePending analyses the logics of the releases that wait for it
// (written by a process that does not parse SQL, or indexed before the
// analysis existed), holding the write lock, and returns how many it
// analysed. A Cache opened with NoParse analyses nothing.
func (c *Cache) AnalyzePending(ctx context.Context) (int, error) {
	if c.logics.analyzer == nil || c.readOnly != nil {
		return 0, nil
	}
	n, err := c.store.PendingAnalyses(ctx)
	if err != nil || n == 0 {
		return 0, err
	}
	// The parser is compiled (or loaded from {cache}/parser) before the
	// write lock is taken: a compile takes seconds, more under the race
	// detector, and serve's own syncs wait for the lock meanwhile.
	if err := c.logics.analyzer.Prepare(ctx); err != nil {
		return 0, err
	}
	err = c.write(ctx, func() error {
		n, err = c.store.AnalyzePending(ctx, c.logics.analyzer)
		return err
	})
	return n, err
}

// analyzePending runs at Open: a parsing Cache analyses what is pending
// (a failure is logged, and left for the next process); a NoParse one
// tells OnPending when there is any.
func (c *Cache) analyzePending(ctx context.Context) {
	if c.logics.analyzer == nil {
		if c.logics.onPending == nil || c.readOnly != nil {
			return
		}
		if n, err := c.store.PendingAnalyses(ctx); err == nil && n > 0 {
			c.logics.onPending()
		}
		return
	}
	n, err := c.AnalyzePending(ctx)
	if err != nil {
		c.log.Warn("analysing the logics of releases indexed without it failed; the next hubsnap that opens the cache tries again",
			"err", err)
		return
	}
	if n > 0 {
		c.log.Debug("analysed pending releases", "releases", n)
	}
}

package analysis

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hubsnap/hubsnap/indexer/analysis/internal/pgparse"
)

// Options configures an Analyzer.
type Options struct {
	// CacheDir keeps wazero's compilation of the parser between processes
	// (created when missing). Empty: compile in memory, every process.
	CacheDir string
	// Timeout bounds the analysis of one logic; past it the logic is left
	// unjudged. Zero means DefaultTimeout.
	Timeout time.Duration
	// Shared makes the Analyzer use the process's one parser, compiled
	// at most once per process (with the CacheDir of the first shared
	// Analyzer that needs it) and kept until the process ends: Close
	// leaves it. For a process that opens several caches one after the
	// other (package indexer; its tests open hundreds).
	Shared bool
}

// DefaultTimeout bounds one logic's analysis when Options.Timeout is zero.
const DefaultTimeout = time.Second

// MaxSQL is the longest SQL analysed (SPEC §5's bound on a logic's SQL);
// longer SQL is left unjudged.
const MaxSQL = 48 << 10

// Analyzer owns PostgreSQL's parser. It is safe for concurrent use: each
// concurrent call gets its own parser instance, all sharing one compiled
// module. Nothing is compiled until the first Analyze (or Prepare).
type Analyzer struct {
	p       *pgparse.Parser
	timeout time.Duration
	shared  bool
}

// sharedParser is the parser of Options.Shared.
var (
	sharedMu     sync.Mutex
	sharedParser *pgparse.Parser
)

// New returns an Analyzer. It is cheap: the parser is compiled at the first
// Analyze or Prepare.
func New(ctx context.Context, opts Options) (*Analyzer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t := opts.Timeout
	if t <= 0 {
		t = DefaultTimeout
	}
	if opts.Shared {
		sharedMu.Lock()
		defer sharedMu.Unlock()
		if sharedParser == nil {
			sharedParser = pgparse.New(opts.CacheDir)
		}
		return &Analyzer{p: sharedParser, timeout: t, shared: true}, nil
	}
	return &Analyzer{p: pgparse.New(opts.CacheDir), timeout: t}, nil
}

// Prepare compiles the parser now (from the compilation cache when it holds
// it) and makes one parser instance, so the first Analyze pays nothing.
func (a *Analyzer) Prepare(ctx context.Context) error {
	if err := a.p.Prepare(ctx); err != nil {
		return fmt.Errorf("prepare parser: %w", err)
	}
	return nil
}

// SetCompiler makes every parser of this process that keeps its
// compilations in a folder (Options.CacheDir) call compile(ctx, dir,
// guarded) when the folder does not hold the compiled engine it needs yet
// (guarded: the one for long SQL), rather than compiling in this process:
// compiling PostgreSQL's parser holds about 250 MiB of heap, loading it
// from the folder about 30 MiB. compile is expected to run Compile(ctx,
// dir, guarded) in another process and wait for it; when it fails, or the
// folder still lacks the parser after it, this process compiles it
// itself: slower to start and larger, never wrong. nil turns it off.
func SetCompiler(compile func(ctx context.Context, dir string, guarded bool) error) {
	pgparse.SetCompiler(compile)
}

// Compile compiles one of the parser's engines (guarded: the one for long
// SQL) into the compilation cache folder dir, and marks it there: the
// work of the process SetCompiler's function starts. An engine the folder
// already holds is loaded, not compiled again.
func Compile(ctx context.Context, dir string, guarded bool) error {
	return pgparse.Compile(ctx, dir, guarded)
}

// Close releases the parser. Analyze after Close leaves logics unjudged.
// A Shared Analyzer's parser stays for the process's other Analyzers.
func (a *Analyzer) Close() error {
	if a.shared {
		return nil
	}
	return a.p.Close()
}

// Rewrite finds the placeholders of sql with PostgreSQL's scanner and
// replaces them by $n (see Rewrite). declared, when not nil, tells which
// names are declared params (only those count between square brackets).
// The error is not nil only when the parser failed; SQL the scanner rejects
// gives a Rewrite with Complete false.
func (a *Analyzer) Rewrite(ctx context.Context, sql string, declared func(name string) bool) (*Rewrite, error) {
	if err := a.p.Ready(ctx, 0); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	return a.rewrite(ctx, sql, declared)
}

func (a *Analyzer) rewrite(ctx context.Context, sql string, declared func(string) bool) (*Rewrite, error) {
	var pe *pgparse.Error
	prefix := sql
	for range 3 {
		toks, err := a.p.Scan(ctx, prefix)
		if errors.As(err, &pe) {
			// Search the part before the token the scanner rejected.
			cut := byteOffset(prefix, pe.Cursorpos)
			if pe.Cursorpos <= 0 || cut >= len(prefix) {
				cut = 0
			}
			prefix = prefix[:cut]
			continue
		}
		if err != nil {
			return nil, err
		}
		r := rewriteTokens(prefix, toks, declared)
		if len(prefix) < len(sql) {
			r.Complete = false
			r.SQL += sql[len(prefix):]
			r.original = sql
		}
		return r, nil
	}
	return &Rewrite{SQL: sql, original: sql}, nil
}

package analysis

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
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
	p       *pgParser
	timeout time.Duration
	shared  bool
}

// sharedParser is the parser of Options.Shared.
var (
	sharedMu     sync.Mutex
	sharedParser *pgParser
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
			sharedParser = newPGParser(opts.CacheDir)
		}
		return &Analyzer{p: sharedParser, timeout: t, shared: true}, nil
	}
	return &Analyzer{p: newPGParser(opts.CacheDir), timeout: t}, nil
}

// Prepare compiles the parser now (from the compilation cache when it holds
// it) and makes one parser instance, so the first Analyze pays nothing.
func (a *Analyzer) Prepare(ctx context.Context) error {
	in, err := a.p.get(ctx, &a.p.fast)
	if err != nil {
		return fmt.Errorf("prepare parser: %w", err)
	}
	a.p.put(in)
	return nil
}

// Close releases the parser. Analyze after Close leaves logics unjudged.
// A Shared Analyzer's parser stays for the process's other Analyzers.
func (a *Analyzer) Close() error {
	if a.shared {
		return nil
	}
	return a.p.close()
}

// Rewrite finds the placeholders of sql with PostgreSQL's scanner and
// replaces them by $n (see Rewrite). declared, when not nil, tells which
// names are declared params (only those count between square brackets).
// The error is not nil only when the parser failed; SQL the scanner rejects
// gives a Rewrite with Complete false.
func (a *Analyzer) Rewrite(ctx context.Context, sql string, declared func(name string) bool) (*Rewrite, error) {
	if err := a.p.ready(ctx); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	return a.rewrite(ctx, sql, declared)
}

func (a *Analyzer) rewrite(ctx context.Context, sql string, declared func(string) bool) (*Rewrite, error) {
	var pe *pgError
	prefix := sql
	for range 3 {
		pb, err := a.p.scanTokens(ctx, prefix)
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
		toks, err := decodeScan(pb)
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

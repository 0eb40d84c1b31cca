package pgparse

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	_ "unsafe" // for go:linkname

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/wasilibs/go-pgquery/parser" // links the embedded module; see libPGQuery
	"github.com/wasilibs/wazero-helpers/allocator"
)

// libPGQuery is libpg_query (PostgreSQL 17's parser) compiled to
// WebAssembly, as embedded by github.com/wasilibs/go-pgquery in its internal
// package. go-pgquery's own entry points cannot keep wazero's compilation
// cache on disk, take no context (so no time limit) and compile the module
// once per concurrent caller; this package drives the same module itself.
// The blank import above links the package that holds the bytes; a rename
// upstream fails the build, never the run.
//
//go:linkname libPGQuery github.com/wasilibs/go-pgquery/internal/wasm.LibPGQuery
var libPGQuery []byte

// go-pgquery's parser package is imported only for its embedded module;
// this keeps the import used and documents which version it comes from.
var _ = parser.Error{}

const (
	// memoryLimitPages bounds one module instance's memory (64 KiB pages):
	// 128 MiB, far above what a 48 KiB statement needs.
	memoryLimitPages = 2048
	// keepBelow is the memory above which an instance is dropped after a
	// call rather than pooled, so one huge statement does not pin memory.
	keepBelow = 48 << 20
	// stackSize is the C stack each instance gets. The module's own stack
	// is small (under 64 KiB) and sits just above its static data, and
	// libpg_query never sets PostgreSQL's stack_base_ptr, so a statement
	// nested a few hundred levels deep overran it silently into the data:
	// wrong trees, endless loops. Each instance moves its stack into a
	// block of this size from the module's heap, with a canary at the low
	// end checked after every call.
	stackSize   = 8 << 20
	canarySize  = 64 << 10
	canaryValue = 0xA5
)

// New returns a Parser keeping its compilations in cacheDir ("" for
// memory only). It compiles nothing: the first Parse, Scan, Ready or
// Prepare does.
func New(cacheDir string) *Parser {
	p := &Parser{cacheDir: cacheDir}
	p.guarded.guarded = true
	return p
}

// errParserClosed is returned by calls after Close.
var errParserClosed = errors.New("parser closed")

// guardAbove is the SQL length above which the parser runs in a runtime
// that checks the deadline at every loop and call (wazero's
// CloseOnContextDone). Those checks cost as much as the parse itself, so
// ordinary logics run without them: the parse of a statement this short is
// bounded (PostgreSQL's grammar is LALR, and its stack cannot overflow;
// see stackSize), and the deadline is checked between calls.
const guardAbove = 8 << 10

// Parser is PostgreSQL's parser. It owns the compilation cache and two
// engines: fast for ordinary SQL, guarded for long SQL. It is safe for
// concurrent use: each concurrent call gets its own instance of the
// module, all sharing one compilation.
type Parser struct {
	cacheDir  string
	cacheOnce sync.Once
	cache     wazero.CompilationCache
	cacheErr  error
	fast      engine
	guarded   engine
	// compiles is set in the process SetCompiler's function starts
	// (compile.go), which compiles here.
	compiles bool

	mu     sync.Mutex
	closed bool
}

// engine is one wazero runtime with the compiled module and a pool of
// instances, each used by one goroutine at a time.
type engine struct {
	guarded bool
	once    sync.Once
	rt      wazero.Runtime
	code    wazero.CompiledModule
	err     error

	mu   sync.Mutex
	idle []*instance
	seq  atomic.Uint64
}

// Ready compiles, once, the engine that parses SQL of n bytes (from the
// compilation cache when the cache folder holds it).
func (p *Parser) Ready(ctx context.Context, n int) error {
	return p.readyEngine(ctx, p.engine(n))
}

// Prepare readies the engine for ordinary SQL and makes one instance of
// it, so the first Parse or Scan pays nothing.
func (p *Parser) Prepare(ctx context.Context) error {
	in, err := p.get(ctx, &p.fast)
	if err != nil {
		return err
	}
	p.put(in)
	return nil
}

// Close drops every instance, the runtimes and the compilation cache;
// calls after it fail.
func (p *Parser) Close() error { return p.close() }

// engine picks the engine for SQL of n bytes.
func (p *Parser) engine(n int) *engine {
	if n > guardAbove {
		return &p.guarded
	}
	return &p.fast
}

func (p *Parser) readyEngine(ctx context.Context, e *engine) error {
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return errParserClosed
	}
	p.cacheOnce.Do(func() {
		p.cache = wazero.NewCompilationCache()
		if p.cacheDir != "" {
			p.cache, p.cacheErr = wazero.NewCompilationCacheWithDir(p.cacheDir)
			if p.cacheErr != nil {
				p.cacheErr = fmt.Errorf("compilation cache: %w", p.cacheErr)
			}
		}
	})
	if p.cacheErr != nil {
		return p.cacheErr
	}
	e.once.Do(func() {
		p.compileElsewhere(ctx, e) // then loaded from the folder (compile.go)
		e.err = e.compile(ctx, p.cache)
		if e.err == nil && p.cacheDir != "" {
			markCompiled(p.cacheDir, e.guarded)
		}
		if e.err != nil && p.cacheDir != "" {
			// The cache folder may be gone or unwritable: compile in memory.
			e.err = e.compile(ctx, wazero.NewCompilationCache())
		}
	})
	return e.err
}

func (e *engine) compile(ctx context.Context, cache wazero.CompilationCache) error {
	cfg := wazero.NewRuntimeConfig().
		WithCompilationCache(cache).
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesThreads).
		WithCloseOnContextDone(e.guarded).
		WithMemoryLimitPages(memoryLimitPages)
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		rt.Close(ctx)
		return fmt.Errorf("wasi host module: %w", err)
	}
	if err := instantiateWasix(ctx, rt); err != nil {
		rt.Close(ctx)
		return fmt.Errorf("wasix host module: %w", err)
	}
	code, err := rt.CompileModule(ctx, parserModule())
	if err != nil {
		rt.Close(ctx)
		return fmt.Errorf("compile libpg_query: %w", err)
	}
	e.rt, e.code = rt, code
	return nil
}

// get returns an idle instance of e or makes one.
func (p *Parser) get(ctx context.Context, e *engine) (*instance, error) {
	if err := p.readyEngine(ctx, e); err != nil {
		return nil, err
	}
	e.mu.Lock()
	if n := len(e.idle); n > 0 {
		in := e.idle[n-1]
		e.idle = e.idle[:n-1]
		e.mu.Unlock()
		return in, nil
	}
	e.mu.Unlock()
	// A fresh context: instantiation must not inherit the caller's deadline
	// (CloseOnContextDone would close the instance with it).
	ictx := experimental.WithMemoryAllocator(context.Background(), allocator.NewNonMoving())
	cfg := wazero.NewModuleConfig().
		WithName("pg_query_" + strconv.FormatUint(e.seq.Add(1), 10)).
		WithSysNanotime().WithStdout(os.Stderr).WithStderr(os.Stderr).
		WithStartFunctions("_initialize")
	mod, err := e.rt.InstantiateModule(ictx, e.code, cfg)
	if err != nil {
		return nil, fmt.Errorf("instantiate libpg_query: %w", err)
	}
	in := &instance{mod: mod, mem: mod.Memory(), engine: e}
	for _, f := range []struct {
		fn   *api.Function
		name string
	}{
		{&in.malloc, "malloc"}, {&in.free, "free"},
		{&in.parse, "pg_query_parse"}, {&in.freeParse, "pg_query_free_parse_result"},
		{&in.scan, "pg_query_scan"}, {&in.freeScan, "pg_query_free_scan_result"},
	} {
		if *f.fn = mod.ExportedFunction(f.name); *f.fn == nil {
			mod.Close(ictx)
			return nil, fmt.Errorf("libpg_query exports no %s", f.name)
		}
	}
	if _, err := mod.ExportedFunction("pg_query_init").Call(ictx); err != nil {
		mod.Close(ictx)
		return nil, fmt.Errorf("pg_query_init: %w", err)
	}
	if err := in.moveStack(ictx); err != nil {
		mod.Close(ictx)
		return nil, fmt.Errorf("parser stack: %w", err)
	}
	return in, nil
}

// put returns a healthy instance to its engine's pool; a grown one is
// dropped.
func (p *Parser) put(in *instance) {
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed || in.mem.Size() > keepBelow {
		in.mod.Close(context.Background())
		return
	}
	e := in.engine
	e.mu.Lock()
	e.idle = append(e.idle, in)
	e.mu.Unlock()
}

// close drops every instance, the runtimes and the cache.
func (p *Parser) close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	p.cacheOnce.Do(func() { p.cacheErr = errParserClosed })
	ctx := context.Background()
	var err error
	for _, e := range []*engine{&p.fast, &p.guarded} {
		e.once.Do(func() { e.err = errParserClosed })
		e.mu.Lock()
		idle := e.idle
		e.idle = nil
		e.mu.Unlock()
		for _, in := range idle {
			in.mod.Close(ctx)
		}
		if e.rt != nil {
			err = errors.Join(err, e.rt.Close(ctx))
		}
	}
	if p.cache != nil {
		err = errors.Join(err, p.cache.Close(ctx))
	}
	return err
}

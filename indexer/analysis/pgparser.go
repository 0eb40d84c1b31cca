package analysis

import (
	"bytes"
	"context"
	"encoding/binary"
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

// canary fills the low end of each instance's stack (made at first use:
// nothing is allocated when the package is merely linked).
var canary = sync.OnceValue(func() []byte { return bytes.Repeat([]byte{canaryValue}, canarySize) })

// newPGParser returns a parser keeping compilations in cacheDir ("" for
// memory only).
func newPGParser(cacheDir string) *pgParser {
	p := &pgParser{cacheDir: cacheDir}
	p.guarded.guarded = true
	return p
}

// errParserClosed is returned by calls after Close.
var errParserClosed = errors.New("parser closed")

// pgError is an error libpg_query reports: PostgreSQL's message and the
// 1-based character position of the cursor (0 when unknown).
type pgError struct {
	Message   string
	Cursorpos int
}

func (e *pgError) Error() string {
	if e.Cursorpos > 0 {
		return e.Message + " at position " + strconv.Itoa(e.Cursorpos)
	}
	return e.Message
}

// guardAbove is the SQL length above which the parser runs in a runtime
// that checks the deadline at every loop and call (wazero's
// CloseOnContextDone). Those checks cost as much as the parse itself, so
// ordinary logics run without them: the parse of a statement this short is
// bounded (PostgreSQL's grammar is LALR, and its stack cannot overflow;
// see stackSize), and the deadline is checked between calls.
const guardAbove = 8 << 10

// pgParser owns the compilation cache and two engines: fast for ordinary
// SQL, guarded for long SQL.
type pgParser struct {
	cacheDir  string
	cacheOnce sync.Once
	cache     wazero.CompilationCache
	cacheErr  error
	fast      engine
	guarded   engine

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

type instance struct {
	mod                                            api.Module
	mem                                            api.Memory
	malloc, free, parse, freeParse, scan, freeScan api.Function
	// stackLow and stackTop bound the instance's C stack block.
	stackLow, stackTop uint32
	engine             *engine
	broken             bool // a call failed: drop the instance
}

// errLongjmp reports that the parser jumped back to a checkpoint taken
// without a snapshot: the call must be made again with snapshots.
var errLongjmp = errors.New("parser jumped without a snapshot")

// errStackOverflow reports a statement nested deeper than the parser's
// stack.
var errStackOverflow = errors.New("parser stack overflow")

// moveStack gives the instance a stack of stackSize bytes from its heap,
// with a canary at the low end.
func (in *instance) moveStack(ctx context.Context) error {
	base, err := in.call(ctx, in.malloc, stackSize)
	if err != nil {
		return err
	}
	if base == 0 {
		return errors.New("parser out of memory")
	}
	in.stackLow = uint32(base)
	in.stackTop = (uint32(base) + stackSize) &^ 15
	sp, ok := in.mod.ExportedGlobal("__stack_pointer").(api.MutableGlobal)
	if !ok {
		return errors.New("libpg_query exports no mutable __stack_pointer")
	}
	if !in.mem.Write(in.stackLow, canary()) {
		return errors.New("parser memory write failed")
	}
	sp.Set(uint64(in.stackTop))
	return nil
}

// stackIntact reports whether the canary at the stack's low end survived.
func (in *instance) stackIntact() bool {
	b, ok := in.mem.Read(in.stackLow, canarySize)
	return ok && bytes.Equal(b, canary())
}

// engine picks the engine for SQL of n bytes.
func (p *pgParser) engine(n int) *engine {
	if n > guardAbove {
		return &p.guarded
	}
	return &p.fast
}

// ready compiles the fast engine's module once (from the compilation cache
// when the cache folder holds it).
func (p *pgParser) ready(ctx context.Context) error {
	return p.readyEngine(ctx, &p.fast)
}

func (p *pgParser) readyEngine(ctx context.Context, e *engine) error {
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
	e.once.Do(func() { e.err = e.compile(ctx, p.cache) })
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
	code, err := rt.CompileModule(ctx, libPGQuery)
	if err != nil {
		rt.Close(ctx)
		return fmt.Errorf("compile libpg_query: %w", err)
	}
	e.rt, e.code = rt, code
	return nil
}

// get returns an idle instance of e or makes one.
func (p *pgParser) get(ctx context.Context, e *engine) (*instance, error) {
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
func (p *pgParser) put(in *instance) {
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

// with runs fn on an instance of the engine for SQL of n bytes. A trap,
// a panic, a canary hit or the end of ctx drops the instance (its state is
// no longer trusted) and is returned as an error.
//
// The first try runs without wazero snapshots: PostgreSQL sets a
// checkpoint (setjmp) for every parse but jumps back to it (longjmp) only
// on an error, and a snapshot copies wazero's whole execution stack, most
// of a short parse's cost. When the parser does jump, that try is
// abandoned with its instance and the call is run again with snapshots.
func (p *pgParser) with(ctx context.Context, n int, fn func(ctx context.Context, in *instance) error) error {
	err := p.withMode(ctx, n, true, fn)
	if errors.Is(err, errLongjmp) {
		err = p.withMode(ctx, n, false, fn)
	}
	return err
}

func (p *pgParser) withMode(ctx context.Context, n int, lazy bool, fn func(ctx context.Context, in *instance) error) (err error) {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("parser stopped: %w", err)
	}
	in, err := p.get(ctx, p.engine(n))
	if err != nil {
		return err
	}
	in.broken = false
	st := &wasixState{stackTop: in.stackTop, lazy: lazy}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("parser panic: %v", r)
			in.broken = true
		}
		if st.jumped {
			err = errLongjmp
		}
		if in.broken {
			in.mod.Close(context.Background())
		} else {
			p.put(in)
		}
	}()
	err = fn(callContext(ctx, st), in)
	switch {
	case st.jumped:
		in.broken = true
		return errLongjmp
	case in.broken:
		// The instance may be closed (its memory gone): touch nothing.
		return err
	case !in.stackIntact():
		in.broken = true
		return errStackOverflow
	}
	var pe *pgError
	if err != nil && !errors.As(err, &pe) {
		in.broken = true
	}
	return err
}

// call calls f on the instance and turns a failure into an error naming
// it; after a failure the instance makes no more calls (its state is not
// trusted, and a call into it could run away).
func (in *instance) call(ctx context.Context, f api.Function, args ...uint64) (uint64, error) {
	if in.broken {
		return 0, errors.New("parser instance abandoned")
	}
	res, err := f.Call(ctx, args...)
	if err != nil {
		in.broken = true
		if ctx.Err() != nil {
			return 0, fmt.Errorf("parser stopped: %w", ctx.Err())
		}
		return 0, fmt.Errorf("parser trap: %w", err)
	}
	if len(res) == 0 {
		return 0, nil
	}
	return res[0], nil
}

// cString copies s into the instance's memory, NUL-terminated.
func (in *instance) cString(ctx context.Context, s string) (uint32, error) {
	ptr, err := in.call(ctx, in.malloc, uint64(len(s)+1))
	if err != nil {
		return 0, err
	}
	if ptr == 0 || !in.mem.WriteString(uint32(ptr), s) || !in.mem.WriteByte(uint32(ptr)+uint32(len(s)), 0) {
		return 0, errors.New("parser out of memory")
	}
	return uint32(ptr), nil
}

// readCString reads the NUL-terminated string whose address is at ptrptr.
func (in *instance) readCString(ptrptr uint32) (string, error) {
	ptr, ok := in.mem.ReadUint32Le(ptrptr)
	if !ok {
		return "", errors.New("parser memory read failed")
	}
	if ptr == 0 {
		return "", nil
	}
	// Read in chunks until the terminating NUL.
	var out []byte
	for off := ptr; ; off += 256 {
		n := uint32(256)
		if size := in.mem.Size(); off >= size {
			return "", errors.New("parser memory read failed")
		} else if off+n > size {
			n = size - off
		}
		chunk, ok := in.mem.Read(off, n)
		if !ok {
			return "", errors.New("parser memory read failed")
		}
		if i := bytes.IndexByte(chunk, 0); i >= 0 {
			return string(append(out, chunk[:i]...)), nil
		}
		out = append(out, chunk...)
	}
}

// readError reads a PgQueryError {message, funcname, filename, lineno,
// cursorpos, context}.
func (in *instance) readError(errPtr uint32) error {
	msg, err := in.readCString(errPtr)
	if err != nil {
		return err
	}
	pos, ok := in.mem.ReadUint32Le(errPtr + 16)
	if !ok {
		return errors.New("parser memory read failed")
	}
	return &pgError{Message: msg, Cursorpos: int(int32(pos))}
}

// parseJSON parses sql and returns libpg_query's JSON parse tree, or a
// *pgError for SQL PostgreSQL rejects.
func (p *pgParser) parseJSON(ctx context.Context, sql string) ([]byte, error) {
	var out []byte
	err := p.with(ctx, len(sql), func(ctx context.Context, in *instance) error {
		input, err := in.cString(ctx, sql)
		if err != nil {
			return err
		}
		defer in.call(ctx, in.free, uint64(input))
		// PgQueryParseResult {char *parse_tree; char *stderr_buffer; PgQueryError *error}
		res, err := in.call(ctx, in.malloc, 12)
		if err != nil {
			return err
		}
		defer in.call(ctx, in.free, res)
		if _, err := in.call(ctx, in.parse, res, uint64(input)); err != nil {
			return err
		}
		defer in.call(ctx, in.freeParse, res)
		buf, ok := in.mem.Read(uint32(res), 12)
		if !ok {
			return errors.New("parser memory read failed")
		}
		if errPtr := binary.LittleEndian.Uint32(buf[8:]); errPtr != 0 {
			return in.readError(errPtr)
		}
		tree, err := in.readCString(uint32(res))
		out = []byte(tree)
		return err
	})
	return out, err
}

// scanTokens runs PostgreSQL's scanner over sql and returns the protobuf
// ScanResult, or a *pgError for SQL the scanner rejects.
func (p *pgParser) scanTokens(ctx context.Context, sql string) ([]byte, error) {
	var out []byte
	err := p.with(ctx, len(sql), func(ctx context.Context, in *instance) error {
		input, err := in.cString(ctx, sql)
		if err != nil {
			return err
		}
		defer in.call(ctx, in.free, uint64(input))
		// PgQueryScanResult {PgQueryProtobuf {size_t len; char *data}; char *stderr_buffer; PgQueryError *error}
		res, err := in.call(ctx, in.malloc, 16)
		if err != nil {
			return err
		}
		defer in.call(ctx, in.free, res)
		if _, err := in.call(ctx, in.scan, res, uint64(input)); err != nil {
			return err
		}
		defer in.call(ctx, in.freeScan, res)
		buf, ok := in.mem.Read(uint32(res), 16)
		if !ok {
			return errors.New("parser memory read failed")
		}
		if errPtr := binary.LittleEndian.Uint32(buf[12:]); errPtr != 0 {
			return in.readError(errPtr)
		}
		n, data := binary.LittleEndian.Uint32(buf), binary.LittleEndian.Uint32(buf[4:])
		pb, ok := in.mem.Read(data, n)
		if !ok {
			return errors.New("parser memory read failed")
		}
		out = bytes.Clone(pb)
		return nil
	})
	return out, err
}

// close drops every instance, the runtimes and the cache.
func (p *pgParser) close() error {
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

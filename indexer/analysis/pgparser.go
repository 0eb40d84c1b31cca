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

// pgParser owns one wazero runtime, the compiled module and a pool of
// instances, each used by one goroutine at a time.
type pgParser struct {
	cacheDir string
	once     sync.Once
	cache    wazero.CompilationCache
	rt       wazero.Runtime
	code     wazero.CompiledModule
	err      error

	mu     sync.Mutex
	idle   []*instance
	closed bool
	seq    atomic.Uint64
}

type instance struct {
	mod                                            api.Module
	mem                                            api.Memory
	malloc, free, parse, freeParse, scan, freeScan api.Function
	// stackLow and stackTop bound the instance's C stack block.
	stackLow, stackTop uint32
}

// errStackOverflow reports a statement nested deeper than the parser's
// stack.
var errStackOverflow = errors.New("parser stack overflow")

// moveStack gives the instance a stack of stackSize bytes from its heap,
// with a canary at the low end.
func (in *instance) moveStack(ctx context.Context) error {
	base, err := call(ctx, in.malloc, stackSize)
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
	if !in.mem.Write(in.stackLow, bytes.Repeat([]byte{canaryValue}, canarySize)) {
		return errors.New("parser memory write failed")
	}
	sp.Set(uint64(in.stackTop))
	return nil
}

// stackIntact reports whether the canary at the stack's low end survived.
func (in *instance) stackIntact() bool {
	b, ok := in.mem.Read(in.stackLow, canarySize)
	if !ok {
		return false
	}
	for _, c := range b {
		if c != canaryValue {
			return false
		}
	}
	return true
}

// ready compiles the module once (from the compilation cache when the
// cache folder holds it).
func (p *pgParser) ready(ctx context.Context) error {
	p.once.Do(func() { p.err = p.compile(ctx) })
	return p.err
}

func (p *pgParser) compile(ctx context.Context) error {
	cache := wazero.NewCompilationCache()
	if p.cacheDir != "" {
		c, err := wazero.NewCompilationCacheWithDir(p.cacheDir)
		if err != nil {
			return fmt.Errorf("compilation cache: %w", err)
		}
		cache = c
	}
	cfg := wazero.NewRuntimeConfig().
		WithCompilationCache(cache).
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesThreads).
		WithCloseOnContextDone(true).
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
	p.cache, p.rt, p.code = cache, rt, code
	return nil
}

// get returns an idle instance or makes one.
func (p *pgParser) get(ctx context.Context) (*instance, error) {
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return nil, errParserClosed
	}
	if err := p.ready(ctx); err != nil {
		return nil, err
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errParserClosed
	}
	if n := len(p.idle); n > 0 {
		in := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return in, nil
	}
	p.mu.Unlock()
	// A fresh context: instantiation must not inherit the caller's deadline
	// (CloseOnContextDone would close the instance with it).
	ictx := experimental.WithMemoryAllocator(context.Background(), allocator.NewNonMoving())
	cfg := wazero.NewModuleConfig().
		WithName("pg_query_" + strconv.FormatUint(p.seq.Add(1), 10)).
		WithSysNanotime().WithStdout(os.Stderr).WithStderr(os.Stderr).
		WithStartFunctions("_initialize")
	mod, err := p.rt.InstantiateModule(ictx, p.code, cfg)
	if err != nil {
		return nil, fmt.Errorf("instantiate libpg_query: %w", err)
	}
	in := &instance{mod: mod, mem: mod.Memory()}
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

// put returns a healthy instance to the pool; a grown one is dropped.
func (p *pgParser) put(in *instance) {
	if in.mem.Size() > keepBelow {
		in.mod.Close(context.Background())
		return
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		in.mod.Close(context.Background())
		return
	}
	p.idle = append(p.idle, in)
	p.mu.Unlock()
}

// with runs fn on an instance. A trap, a panic or the end of ctx drops the
// instance (its state is no longer trusted) and is returned as an error.
func (p *pgParser) with(ctx context.Context, fn func(ctx context.Context, in *instance) error) (err error) {
	in, err := p.get(ctx)
	if err != nil {
		return err
	}
	healthy := false
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("parser panic: %v", r)
			healthy = false
		}
		if healthy {
			p.put(in)
		} else {
			in.mod.Close(context.Background())
		}
	}()
	err = fn(callContext(ctx, in.stackTop), in)
	if !in.stackIntact() {
		return errStackOverflow
	}
	if err != nil {
		var pe *pgError
		healthy = errors.As(err, &pe)
		return err
	}
	healthy = true
	return nil
}

// call calls f and turns a failure into an error naming it.
func call(ctx context.Context, f api.Function, args ...uint64) (uint64, error) {
	res, err := f.Call(ctx, args...)
	if err != nil {
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
	ptr, err := call(ctx, in.malloc, uint64(len(s)+1))
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
	err := p.with(ctx, func(ctx context.Context, in *instance) error {
		input, err := in.cString(ctx, sql)
		if err != nil {
			return err
		}
		defer call(ctx, in.free, uint64(input))
		// PgQueryParseResult {char *parse_tree; char *stderr_buffer; PgQueryError *error}
		res, err := call(ctx, in.malloc, 12)
		if err != nil {
			return err
		}
		defer call(ctx, in.free, res)
		if _, err := call(ctx, in.parse, res, uint64(input)); err != nil {
			return err
		}
		defer call(ctx, in.freeParse, res)
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
	err := p.with(ctx, func(ctx context.Context, in *instance) error {
		input, err := in.cString(ctx, sql)
		if err != nil {
			return err
		}
		defer call(ctx, in.free, uint64(input))
		// PgQueryScanResult {PgQueryProtobuf {size_t len; char *data}; char *stderr_buffer; PgQueryError *error}
		res, err := call(ctx, in.malloc, 16)
		if err != nil {
			return err
		}
		defer call(ctx, in.free, res)
		if _, err := call(ctx, in.scan, res, uint64(input)); err != nil {
			return err
		}
		defer call(ctx, in.freeScan, res)
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

// close drops every instance and the runtime.
func (p *pgParser) close() error {
	p.once.Do(func() { p.err = errParserClosed })
	p.mu.Lock()
	p.closed = true
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	ctx := context.Background()
	for _, in := range idle {
		in.mod.Close(ctx)
	}
	var err error
	if p.rt != nil {
		err = p.rt.Close(ctx)
	}
	if p.cache != nil {
		err = errors.Join(err, p.cache.Close(ctx))
	}
	return err
}

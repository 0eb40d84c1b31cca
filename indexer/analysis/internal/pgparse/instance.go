package pgparse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/tetratelabs/wazero/api"
)

// canary fills the low end of each instance's stack (made at first use:
// nothing is allocated when the package is merely linked).
var canary = sync.OnceValue(func() []byte { return bytes.Repeat([]byte{canaryValue}, canarySize) })

// Error is an error libpg_query reports: PostgreSQL's message and the
// 1-based character position of the cursor (0 when unknown).
type Error struct {
	Message   string
	Cursorpos int
}

// Error returns PostgreSQL's message and the cursor's position.
func (e *Error) Error() string {
	if e.Cursorpos > 0 {
		return e.Message + " at position " + strconv.Itoa(e.Cursorpos)
	}
	return e.Message
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

// with runs fn on an instance of the engine for SQL of n bytes. A trap,
// a panic, a canary hit or the end of ctx drops the instance (its state is
// no longer trusted) and is returned as an error.
//
// The first try runs without wazero snapshots: PostgreSQL sets a
// checkpoint (setjmp) for every parse but jumps back to it (longjmp) only
// on an error, and a snapshot copies wazero's whole execution stack, most
// of a short parse's cost. When the parser does jump, that try is
// abandoned with its instance and the call is run again with snapshots.
func (p *Parser) with(ctx context.Context, n int, fn func(ctx context.Context, in *instance) error) error {
	err := p.withMode(ctx, n, true, fn)
	if errors.Is(err, errLongjmp) {
		err = p.withMode(ctx, n, false, fn)
	}
	return err
}

func (p *Parser) withMode(ctx context.Context, n int, lazy bool, fn func(ctx context.Context, in *instance) error) (err error) {
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
	var pe *Error
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
	return &Error{Message: msg, Cursorpos: int(int32(pos))}
}

package pgparse

import (
	"context"
	"errors"
	"fmt"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// The libpg_query module is built for WASIX (wasix_32v1), whose setjmp and
// longjmp are host calls: PostgreSQL reports every parse error by
// siglongjmp back to the PG_TRY in pg_query_parse. stack_checkpoint saves
// the wasm execution state and the C shadow stack; stack_restore jumps back.
// The module runs single-threaded, so the thread and futex imports are
// never called; they fail loudly if they ever are. This follows the host
// module of github.com/wasilibs/go-pgquery (MIT), which is internal there.

const wasixModule = "wasix_32v1"

var errWasixUnexpected = errors.New("unexpected wasix call")

// wasixState holds the checkpoints of one call into the module.
type wasixState struct {
	stackTop    uint32 // the top of the instance's C stack
	lazy        bool   // take checkpoints without snapshots
	jumped      bool   // a jump back was asked for in lazy mode
	checkpoints []wasixCheckpoint
}

type wasixCheckpoint struct {
	snapshot      experimental.Snapshot
	retValPtr     uint32
	cstackPointer uint32
	cstack        []byte
}

type wasixKey struct{}

// callContext prepares ctx for one call into the module: snapshots on, a
// fresh checkpoint list.
func callContext(ctx context.Context, st *wasixState) context.Context {
	if !st.lazy {
		ctx = experimental.WithSnapshotter(ctx)
	}
	return context.WithValue(ctx, wasixKey{}, st)
}

// errJumpLazy aborts a call whose checkpoint has no snapshot to jump to.
var errJumpLazy = errors.New("longjmp without a snapshot")

func instantiateWasix(ctx context.Context, rt wazero.Runtime) error {
	const i32, i64 = api.ValueTypeI32, api.ValueTypeI64
	b := rt.NewHostModuleBuilder(wasixModule)
	fail := func(name string, params, results []api.ValueType) {
		b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(context.Context, api.Module, []uint64) {
			panic(fmt.Errorf("%w: %s", errWasixUnexpected, name))
		}), params, results).Export(name)
	}
	fail("callback_signal", []api.ValueType{i32, i32}, nil)
	fail("futex_wait", []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32})
	fail("futex_wake", []api.ValueType{i32, i32}, []api.ValueType{i32})
	fail("futex_wake_all", []api.ValueType{i32, i32}, []api.ValueType{i32})
	fail("thread_exit", []api.ValueType{i32}, nil)
	fail("thread_signal", []api.ValueType{i32, i32}, []api.ValueType{i32})
	b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(procID), []api.ValueType{i32}, []api.ValueType{i32}).Export("proc_id")
	b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(stackCheckpoint), []api.ValueType{i32, i32}, []api.ValueType{i32}).Export("stack_checkpoint")
	b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(stackRestore), []api.ValueType{i32, i64}, nil).Export("stack_restore")
	_, err := b.Instantiate(ctx)
	return err
}

func procID(_ context.Context, m api.Module, stack []uint64) {
	m.Memory().WriteUint32Le(uint32(stack[0]), 1)
	stack[0] = 0
}

func stackCheckpoint(ctx context.Context, m api.Module, stack []uint64) {
	snapshotPtr, retValPtr := uint32(stack[0]), uint32(stack[1])
	st, ok := ctx.Value(wasixKey{}).(*wasixState)
	if !ok {
		panic("stack_checkpoint outside a prepared call")
	}
	if st.lazy {
		// setjmp returns 0 the first time; a later longjmp aborts the call.
		if !m.Memory().WriteUint64Le(snapshotPtr, 0) || !m.Memory().WriteUint64Le(retValPtr, 0) {
			panic("stack_checkpoint: write failed")
		}
		stack[0] = 0
		return
	}
	sp := uint32(m.ExportedGlobal("__stack_pointer").Get())
	if sp > st.stackTop {
		panic("stack_checkpoint: stack pointer above the stack")
	}
	view, ok := m.Memory().Read(sp, st.stackTop-sp)
	if !ok {
		panic("stack_checkpoint: read of the C stack failed")
	}
	st.checkpoints = append(st.checkpoints, wasixCheckpoint{
		snapshot:      experimental.GetSnapshotter(ctx).Snapshot(),
		retValPtr:     retValPtr,
		cstackPointer: sp,
		cstack:        append([]byte(nil), view...),
	})
	if !m.Memory().WriteUint64Le(snapshotPtr, uint64(len(st.checkpoints)-1)) ||
		!m.Memory().WriteUint64Le(retValPtr, 0) {
		panic("stack_checkpoint: write failed")
	}
	stack[0] = 0
}

func stackRestore(ctx context.Context, m api.Module, stack []uint64) {
	snapshotPtr, ret := uint32(stack[0]), stack[1]
	st, ok := ctx.Value(wasixKey{}).(*wasixState)
	if !ok {
		panic("stack_restore outside a prepared call")
	}
	if st.lazy {
		st.jumped = true
		panic(errJumpLazy)
	}
	idx, ok := m.Memory().ReadUint64Le(snapshotPtr)
	if !ok || idx >= uint64(len(st.checkpoints)) {
		panic("stack_restore: unknown checkpoint")
	}
	c := st.checkpoints[idx]
	m.ExportedGlobal("__stack_pointer").(api.MutableGlobal).Set(uint64(c.cstackPointer))
	m.Memory().Write(c.cstackPointer, c.cstack)
	m.Memory().WriteUint64Le(c.retValPtr, ret)
	stack[0] = 0
	c.snapshot.Restore(stack[:1])
}

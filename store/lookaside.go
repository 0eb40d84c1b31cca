package store

import (
	"fmt"
	"log/slog"
	"sync"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/hubsnap/hubsnap/store/cksumvfs"
)

// SQLite gives each connection a lookaside pool: fixed slots for the many
// small allocations of preparing and running a statement, taken and given
// back without the general allocator, its lock or its bookkeeping. Its
// default, 48 KB (123 slots), is held whole by the statements a read
// connection keeps prepared (Store.prepare), so every allocation of a
// running statement went to malloc: an eighth of a schema_get_table
// answer's instructions (docs/benchmarks.md). 528 KB (about 1,300 slots)
// holds the prepared statements with room for those that run. SQLite
// writes a link into every slot when it opens a connection, so each
// connection's pool is resident: about 2.6 MB for the writer and four
// readers. (460 slots since the statements of release_check and of join paths through hubs;
// 500 since the logic analysis in logic_get, schema_get_table and release_check;
// 620 since join paths meet in the middle, store/joinmeet.go.)
//
// TestLookasideHolds fails when the statements outgrow it.
const (
	lookasideSlotSize = 1200 // SQLite's own default; smaller allocations share it
	lookasideSlots    = 620
)

// errLookaside is why the lookaside size could not be set, or nil; see
// InitSQLite.
var errLookaside error

// errChecksumVFS is why the checksum VFS could not be registered, or nil.
// It is registered by InitSQLite, after the lookaside size is set, which
// must precede SQLite's first use.
var errChecksumVFS error

// sqliteSetup makes InitSQLite run once in the process.
var sqliteSetup sync.Once

// InitSQLite configures SQLite for this process, once, before its first
// use: the lookaside size (which SQLite takes only before it initializes),
// then the checksum VFS, vfs=hubsnap (whose registration initializes it).
// Every entry point of this package that opens SQLite (Open, Create,
// FilePageSize, RestoreFile) calls it first; a program that opens an index
// with database/sql itself, through vfs=hubsnap, calls it before. A
// lookaside that cannot be set is logged: answers stay right without it,
// only slower. A VFS that cannot be registered is reported when an index
// opens (checkChecksums).
func InitSQLite() {
	sqliteSetup.Do(func() {
		if errLookaside = configureLookaside(lookasideSlotSize, lookasideSlots); errLookaside != nil {
			slog.Warn("SQLite runs with its default lookaside, so answers are slower", "err", errLookaside)
		}
		errChecksumVFS = cksumvfs.Register()
	})
}

// configureLookaside sets the lookaside pool of every connection opened
// from now on: sqlite3_config(SQLITE_CONFIG_LOOKASIDE, size, count).
func configureLookaside(size, count int32) error {
	tls := libc.NewTLS()
	defer tls.Close()
	args := libc.NewVaList(size, count)
	if args == 0 {
		return fmt.Errorf("configure SQLite lookaside: out of memory")
	}
	defer libc.Xfree(tls, args)
	if rc := sqlite3.Xsqlite3_config(tls, sqlite3.SQLITE_CONFIG_LOOKASIDE, args); rc != sqlite3.SQLITE_OK {
		return fmt.Errorf("configure SQLite lookaside: result code %d", rc)
	}
	return nil
}

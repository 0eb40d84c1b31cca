package store

import (
	"context"
	"database/sql"
	"database/sql/driver"

	"modernc.org/sqlite"
)

// The writer keeps the index's -wal and -shm files when it closes
// (SQLITE_FCNTL_PERSIST_WAL; the log is emptied, not removed). SQLite
// reads a WAL-mode database only with its -shm file beside it, and a
// process that cannot write the cache's folder cannot create one: a cache
// baked into a container image, or shared by a team, would be unreadable
// to everyone but its owner between two of the owner's commands. With the
// files kept, such a reader opens the index read-only and sees the owner's
// later changes as they commit (docs/design.md, "Read-only caches").
//
// journal_size_limit makes the closing writer empty the kept log: a
// persistent log is otherwise left at its size.

// writerDriver opens the writer's connections: the "sqlite" driver's, plus
// the persistent log.
var writerDriver = newWriterDriver()

func newWriterDriver() *sqlite.Driver {
	d := &sqlite.Driver{}
	d.RegisterConnectionHook(func(conn sqlite.ExecQuerierContext, _ string) error {
		if fc, ok := conn.(sqlite.FileControl); ok {
			_, err := fc.FileControlPersistWAL("main", 1)
			return err
		}
		return nil
	})
	return d
}

// openWriter opens the writer's pool on dsn.
func openWriter(dsn string) *sql.DB {
	return sql.OpenDB(connector{writerDriver, dsn})
}

// connector opens connections of d on dsn.
type connector struct {
	d   *sqlite.Driver
	dsn string
}

func (c connector) Connect(context.Context) (driver.Conn, error) { return c.d.Open(c.dsn) }

func (c connector) Driver() driver.Driver { return c.d }

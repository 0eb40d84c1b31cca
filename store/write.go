package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Hook runs inside a write transaction, after its SQL and just before it
// commits: the place for file operations that must take effect together with
// the index change. Because the transaction is immediate, hooks of processes
// that share the index never run at the same time.
//
// If the hook fails, the transaction rolls back. Otherwise finish (when not
// nil) is called once the outcome is known: committed is false when the
// commit failed, and finish must then undo what the hook did.
type Hook func() (finish func(committed bool), err error)

// ReleaseKey identifies a cached release.
type ReleaseKey struct {
	Project string
	ID      string
}

// PutRelease stores snap in the index, replacing any release with the same
// project and id, in one immediate transaction. file describes the release
// file it came from. When makeCurrent is set, the release also becomes
// current for its project and environment. hook may be nil.
func (s *Store) PutRelease(ctx context.Context, snap *Snapshot, file FileState, makeCurrent bool, hook Hook) error {
	return s.write(ctx, "store release "+snap.Release.ID, hook, func(tx *sql.Tx) error {
		id, err := putRelease(ctx, tx, snap, file)
		if err != nil {
			return err
		}
		if makeCurrent {
			return setCurrent(ctx, tx, snap.Release.Project, snap.Release.Environment, id)
		}
		return nil
	})
}

// SetCurrent makes the cached release id current for project and
// environment. It fails with NotFound when the index does not hold the
// release, and InvalidArgument when the release belongs to another
// environment. hook may be nil.
func (s *Store) SetCurrent(ctx context.Context, project, environment, id string, hook Hook) error {
	return s.write(ctx, "set current release", hook, func(tx *sql.Tx) error {
		var pk int64
		var env string
		err := tx.QueryRowContext(ctx,
			"SELECT id, environment FROM releases WHERE project = ? AND release_id = ?", project, id).Scan(&pk, &env)
		if err == sql.ErrNoRows {
			return Errorf(NotFound, "release %q of project %q is not in the cache", id, project)
		}
		if err != nil {
			return err
		}
		if env != environment {
			return Errorf(InvalidArgument, "release %q is for environment %q, not %q", id, env, environment)
		}
		return setCurrent(ctx, tx, project, environment, pk)
	})
}

// Pointer is a current-release pointer: the release id that is current for a
// project and environment.
type Pointer struct {
	Project     string
	Environment string
	ID          string
}

// ReplacePointers makes the index's current releases exactly ptrs, skipping
// pointers whose release the index does not hold or that name a release of
// another environment (those answer NoRelease).
func (s *Store) ReplacePointers(ctx context.Context, ptrs []Pointer) error {
	return s.write(ctx, "set current releases", nil, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, "DELETE FROM current_releases"); err != nil {
			return err
		}
		for _, p := range ptrs {
			if _, err := tx.ExecContext(ctx, `INSERT INTO current_releases (project, environment, release)
				SELECT ?, ?, id FROM releases WHERE project = ? AND release_id = ? AND environment = ?`,
				p.Project, p.Environment, p.Project, p.ID, p.Environment); err != nil {
				return err
			}
		}
		return nil
	})
}

// DeleteRelease removes a release and everything in it from the index. A
// current pointer to it goes too. Deleting a release that is not there is
// not an error.
func (s *Store) DeleteRelease(ctx context.Context, key ReleaseKey) error {
	return s.write(ctx, "delete release "+key.ID, nil, func(tx *sql.Tx) error {
		var id int64
		err := tx.QueryRowContext(ctx, "SELECT id FROM releases WHERE project = ? AND release_id = ?",
			key.Project, key.ID).Scan(&id)
		if err == sql.ErrNoRows {
			return nil
		}
		if err != nil {
			return err
		}
		if err := deleteContents(ctx, tx, id); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, "DELETE FROM releases WHERE id = ?", id)
		return err
	})
}

// Row ids. A release's tables, foreign keys and logics get the ids
// release<<32 + n, so everything of one release, its search rows included,
// lies in one id range. A logic's search row is its id + logicRows, which
// keeps it apart from the tables' rows (see migrations/0002_search.sql).
const (
	idShift     = 32
	logicRows   = 1 << 31 // offset of logics' search rows; also the most tables or logics a release may have
	maxReleases = 1 << 30 // release row ids must stay below this for release<<32 to fit
)

// idRange returns the first and one past the last row id of release.
func idRange(release int64) (lo, hi int64) {
	return release << idShift, (release + 1) << idShift
}

// deleteContents removes everything of release but its row.
func deleteContents(ctx context.Context, tx *sql.Tx, release int64) error {
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{"DELETE FROM connections WHERE release = ?", []any{release}},
		{"DELETE FROM tables WHERE release = ?", []any{release}},
		{"DELETE FROM logics WHERE release = ?", []any{release}}, // cascades to params
	} {
		if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
			return err
		}
	}
	return deleteSearch(ctx, tx, release)
}

// deleteSearch removes the search rows, words and names of release.
func deleteSearch(ctx context.Context, tx *sql.Tx, release int64) error {
	lo, hi := idRange(release)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{"DELETE FROM search WHERE rowid >= ? AND rowid < ?", []any{lo, hi}},
		{"DELETE FROM search_words WHERE release = ?", []any{release}},
		{"DELETE FROM search_names WHERE release = ?", []any{release}},
	} {
		if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
			return err
		}
	}
	return nil
}

// TouchFile records a new size and modification time for a release file
// whose content is unchanged.
func (s *Store) TouchFile(ctx context.Context, key ReleaseKey, file FileState) error {
	return s.write(ctx, "update release file state", nil, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "UPDATE releases SET file_size = ?, file_mtime = ? WHERE project = ? AND release_id = ?",
			file.Size, file.MTime, key.Project, key.ID)
		return err
	})
}

// write runs fn and then hook in one immediate transaction and commits.
func (s *Store) write(ctx context.Context, op string, hook Hook, fn func(*sql.Tx) error) (err error) {
	tx, err := s.w.BeginTx(ctx, nil) // immediate: _txlock=immediate in the DSN
	if err != nil {
		return classify(op, err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	if err := fn(tx); err != nil {
		if _, ok := errors.AsType[*Error](err); ok {
			return err
		}
		return classify(op, err)
	}
	var finish func(bool)
	if hook != nil {
		if finish, err = hook(); err != nil {
			return err
		}
	}
	err = tx.Commit()
	if finish != nil {
		finish(err == nil)
	}
	if err != nil {
		return classify(op, err)
	}
	return nil
}

func setCurrent(ctx context.Context, tx *sql.Tx, project, environment string, release int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO current_releases (project, environment, release) VALUES (?, ?, ?)
		ON CONFLICT (project, environment) DO UPDATE SET release = excluded.release`, project, environment, release)
	return err
}

// putRelease upserts the release row, keeping its primary key so a current
// pointer to it survives, and rewrites all of its contents.
func putRelease(ctx context.Context, tx *sql.Tx, snap *Snapshot, file FileState) (int64, error) {
	r, o := snap.Release, snap.Origin
	if o.SyncedAt == "" {
		o.SyncedAt = time.Now().UTC().Format(time.RFC3339)
	}
	var id int64
	err := tx.QueryRowContext(ctx, `INSERT INTO releases (project, release_id, environment, version, created_at,
			synced_at, source, digest, file_digest, file_size, file_mtime, table_count, logic_count)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (project, release_id) DO UPDATE SET
			environment = excluded.environment, version = excluded.version, created_at = excluded.created_at,
			synced_at = excluded.synced_at, source = excluded.source, digest = excluded.digest,
			file_digest = excluded.file_digest, file_size = excluded.file_size, file_mtime = excluded.file_mtime,
			table_count = excluded.table_count, logic_count = excluded.logic_count
		RETURNING id`,
		r.Project, r.ID, r.Environment, r.Version, r.CreatedAt, o.SyncedAt, o.Source, o.Digest,
		file.Digest, file.Size, file.MTime, len(snap.Tables), len(snap.Logics)).Scan(&id)
	if err != nil {
		return 0, err
	}
	// A current pointer of another environment must not follow a release
	// whose environment changed.
	if _, err := tx.ExecContext(ctx, "DELETE FROM current_releases WHERE release = ? AND environment <> ?", id, r.Environment); err != nil {
		return 0, err
	}
	if id >= maxReleases {
		return 0, fmt.Errorf("the index holds release row %d; no more fit: delete the cache's index.db to renumber", id)
	}
	if len(snap.Tables) >= logicRows || len(snap.Logics) >= logicRows {
		return 0, fmt.Errorf("too many tables or logics (%d, %d)", len(snap.Tables), len(snap.Logics))
	}
	if err := deleteContents(ctx, tx, id); err != nil {
		return 0, err
	}
	ins, err := newInserts(ctx, tx, id)
	if err != nil {
		return 0, err
	}
	defer ins.close()
	ins.referencedBy = referencedBy(snap)
	for i, c := range snap.Connections {
		if err := ins.connections.add(ctx, id, c.Name, c.Engine, i); err != nil {
			return 0, fmt.Errorf("connection %q: %w", c.Name, err)
		}
	}
	for i := range snap.Tables {
		if err := ins.table(ctx, id, i, &snap.Tables[i]); err != nil {
			return 0, fmt.Errorf("table %q: %w", snap.Tables[i].Name, err)
		}
	}
	for i := range snap.Logics {
		if err := ins.logic(ctx, id, i, &snap.Logics[i]); err != nil {
			return 0, fmt.Errorf("logic %q: %w", snap.Logics[i].Name, err)
		}
	}
	if err := ins.searchRows(ctx, id, snap); err != nil {
		return 0, err
	}
	if err := ins.flush(ctx); err != nil {
		return 0, err
	}
	return id, nil
}

// inserts writes a release's contents through one batch per table. Row ids
// of tables, foreign keys and logics are assigned here rather than by
// SQLite, so child rows can name their parent without a round trip and
// every id falls in the release's range (see idRange).
type inserts struct {
	connections, tables, logics, params, search, words, names *batch
	nextTable, nextLogic                                      int64

	referencedBy map[TableRef][]Reference // foreign keys by the table they name
	detail       []byte                   // reused buffer of encodeDetail
}

func newInserts(ctx context.Context, tx *sql.Tx, release int64) (*inserts, error) {
	// Batches fill at different rates, so a batch of children may reach the
	// database before the batch holding their parent: check foreign keys at
	// commit. The pragma lasts for this transaction only.
	if _, err := tx.ExecContext(ctx, "PRAGMA defer_foreign_keys = ON"); err != nil {
		return nil, err
	}
	ins := &inserts{}
	for _, b := range []struct {
		dst  **batch
		into string
		cols int
	}{
		{&ins.connections, "connections (release, name, engine, position)", 4},
		{&ins.tables, "tables (id, release, connection, name, comment, position, detail)", 7},
		{&ins.logics, "logics (id, release, name, description, sql, auth_required, auth_roles, position)", 8},
		{&ins.params, "logic_params (logic_id, position, name, type, required)", 5},
		{&ins.search, "search (rowid, name, cols, comment, notes, body)", 6},
		{&ins.words, "search_words (release, word, columns)", 3},
		{&ins.names, "search_names (release, name, row)", 3},
	} {
		*b.dst = &batch{tx: tx, into: b.into, width: b.cols}
	}
	lo, _ := idRange(release)
	ins.nextTable, ins.nextLogic = lo, lo
	return ins, nil
}

func (ins *inserts) all() []*batch {
	return []*batch{ins.connections, ins.tables, ins.logics, ins.params,
		ins.search, ins.words, ins.names}
}

// flush writes what the batches still hold, parents before children.
func (ins *inserts) flush(ctx context.Context) error {
	for _, b := range ins.all() {
		if err := b.flush(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (ins *inserts) close() {
	for _, b := range ins.all() {
		b.close()
	}
}

func (ins *inserts) table(ctx context.Context, release int64, pos int, t *Table) error {
	id := ins.nextTable
	ins.nextTable++
	ins.detail = encodeDetail(ins.detail, t, ins.referencedBy[TableRef{Connection: t.Connection, Name: t.Name}])
	// The batch keeps its arguments until it flushes: give it a copy.
	return ins.tables.add(ctx, id, release, t.Connection, t.Name, t.Comment, pos, append([]byte(nil), ins.detail...))
}

// referencedBy works out, for every table the release's foreign keys name,
// the keys that point at it, sorted by referencing table and then in the
// order of its keys.
func referencedBy(snap *Snapshot) map[TableRef][]Reference {
	refs := map[TableRef][]Reference{}
	for i := range snap.Tables {
		t := &snap.Tables[i]
		for _, fk := range t.ForeignKeys {
			to := TableRef{Connection: fk.RefConnection, Name: fk.RefTable}
			refs[to] = append(refs[to], Reference{Table: t.Name, Connection: t.Connection, Name: fk.Name,
				Columns: fk.Columns, RefColumns: fk.RefColumns})
		}
	}
	for _, list := range refs {
		slices.SortStableFunc(list, func(a, b Reference) int {
			return cmp.Or(cmp.Compare(a.Connection, b.Connection), cmp.Compare(a.Table, b.Table))
		})
	}
	return refs
}

func (ins *inserts) logic(ctx context.Context, release int64, pos int, l *Logic) error {
	id := ins.nextLogic
	ins.nextLogic++
	if err := ins.logics.add(ctx, id, release, l.Name, l.Description, l.SQL, l.Auth.Required,
		jsonList(l.Auth.Roles), pos); err != nil {
		return err
	}
	for i, p := range l.Params {
		if err := ins.params.add(ctx, id, i, p.Name, p.Type, p.Required); err != nil {
			return fmt.Errorf("param %q: %w", p.Name, err)
		}
	}
	return nil
}

// searchRows adds the search rows of snap's tables and logics, stored as
// release, and the words they hold: text split into words and joined by
// spaces (see wordSpans), with the rowids that
// migrations/0002_search.sql describes.
func (ins *inserts) searchRows(ctx context.Context, release int64, snap *Snapshot) error {
	lo, _ := idRange(release)
	ws := wordSet{}
	var names, comments []string
	for i := range snap.Tables {
		t := &snap.Tables[i]
		names, comments = names[:0], comments[:0]
		for _, c := range t.Columns {
			names = append(names, c.Name)
			if c.Comment != "" {
				comments = append(comments, c.Comment)
			}
		}
		name := ws.text(false, colName, t.Name)
		if err := ins.search.add(ctx, lo+int64(i), name, ws.text(false, colCols, names...),
			ws.text(false, colComment, t.Comment), ws.text(false, colNotes, comments...), ""); err != nil {
			return fmt.Errorf("search row of table %q: %w", t.Name, err)
		}
		if err := ins.names.add(ctx, release, name, lo+int64(i)); err != nil {
			return fmt.Errorf("search name of table %q: %w", t.Name, err)
		}
	}
	for i := range snap.Logics {
		l := &snap.Logics[i]
		names = names[:0]
		for _, p := range l.Params {
			names = append(names, p.Name)
		}
		name := ws.text(true, colName, l.Name)
		if err := ins.search.add(ctx, lo+logicRows+int64(i), name, ws.text(true, colCols, names...),
			ws.text(true, colComment, l.Description), "", ws.text(true, colBody, l.SQL)); err != nil {
			return fmt.Errorf("search row of logic %q: %w", l.Name, err)
		}
		if err := ins.names.add(ctx, release, name, lo+logicRows+int64(i)); err != nil {
			return fmt.Errorf("search name of logic %q: %w", l.Name, err)
		}
	}
	// In order, so the rows go into the table's B-tree in order.
	for _, w := range slices.Sorted(maps.Keys(ws)) {
		if err := ins.words.add(ctx, release, w, ws[w]); err != nil {
			return fmt.Errorf("search word %q: %w", w, err)
		}
	}
	return nil
}

// wordSet collects the distinct words of a release's search rows, each
// with the columns it occurs in (see columnBit).
type wordSet map[string]uint16

// text returns parts as search column col of a table's or logic's row
// holds them, and notes their words.
func (ws wordSet) text(logics bool, col int, parts ...string) string {
	bit := columnBit(logics, col)
	var sb strings.Builder
	for _, p := range parts {
		for _, sp := range wordSpans(p) {
			if sb.Len() > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(sp.word)
			ws[sp.word] |= bit
		}
	}
	return sb.String()
}

// batchRows is how many rows one INSERT statement of a batch carries.
const batchRows = 64

// batch inserts rows into one table, batchRows rows per statement: one
// call into SQLite per batch instead of one per row.
type batch struct {
	tx    *sql.Tx
	into  string // "table (col, ...)"
	width int    // values per row
	full  *sql.Stmt
	args  []any
}

func (b *batch) add(ctx context.Context, values ...any) error {
	b.args = append(b.args, values...)
	if len(b.args) < batchRows*b.width {
		return nil
	}
	if b.full == nil {
		stmt, err := b.tx.PrepareContext(ctx, b.insert(batchRows))
		if err != nil {
			return err
		}
		b.full = stmt
	}
	_, err := b.full.ExecContext(ctx, b.args...)
	b.args = b.args[:0]
	return err
}

func (b *batch) flush(ctx context.Context) error {
	if len(b.args) == 0 {
		return nil
	}
	_, err := b.tx.ExecContext(ctx, b.insert(len(b.args)/b.width), b.args...)
	b.args = b.args[:0]
	return err
}

func (b *batch) close() {
	if b.full != nil {
		b.full.Close()
	}
}

// insert returns an INSERT of rows rows.
func (b *batch) insert(rows int) string {
	row := "(" + strings.Repeat("?, ", b.width-1) + "?)"
	var sb strings.Builder
	sb.WriteString("INSERT INTO ")
	sb.WriteString(b.into)
	sb.WriteString(" VALUES ")
	for i := range rows {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(row)
	}
	return sb.String()
}

// jsonList encodes a list of names as a JSON array, "[]" when empty.
func jsonList(names []string) string {
	if len(names) == 0 {
		return "[]"
	}
	b, err := json.Marshal(names)
	if err != nil { // []string always marshals
		panic(err)
	}
	return string(b)
}

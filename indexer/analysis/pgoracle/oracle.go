package pgoracle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// session is one connection to a schema's database, with caches of the
// catalog lookups and the log messages the server sends while it parses.
type session struct {
	conn    *pgx.Conn
	logs    []string
	collect bool
	types   map[[2]int64]string
	columns map[[2]int64]Source
	tables  map[uint32]string
}

// described is what Parse/Describe says of a logic.
type described struct {
	rw     *Rewritten
	params []string // PostgreSQL's type of $1, $2, ...
	fields []pgconn.FieldDescription
	// relids maps each table of the range table to its privileges
	// (ACL bits: 1 insert, 2 select, 4 update, 8 delete).
	relids map[uint32]int
	err    *pgconn.PgError
}

// stmtName is the prepared statement each logic becomes in turn.
const stmtName = "pgoracle_logic"

func newSession(ctx context.Context, srv *Server, db string) (*session, error) {
	s := &session{types: map[[2]int64]string{}, columns: map[[2]int64]Source{}, tables: map[uint32]string{}}
	conn, err := srv.Connect(ctx, db, func(n *pgconn.Notice) {
		if s.collect && n.Severity == "LOG" {
			s.logs = append(s.logs, n.Detail)
		}
	})
	if err != nil {
		return nil, err
	}
	s.conn = conn
	for _, q := range []string{"SET statement_timeout = '20s'", "SET debug_pretty_print = off"} {
		if _, err := conn.Exec(ctx, q); err != nil {
			conn.Close(ctx)
			return nil, fmt.Errorf("session setup: %w", err)
		}
	}
	return s, nil
}

// exec runs SQL with the simple protocol (several statements allowed).
func (s *session) exec(ctx context.Context, sql string) error {
	return s.conn.PgConn().Exec(ctx, sql).Close()
}

// useRelease makes ns the schema unqualified names resolve in.
func (s *session) useRelease(ctx context.Context, ns string) error {
	clear(s.tables)
	clear(s.columns)
	return s.exec(ctx, "SET search_path = "+quoteIdent(ns))
}

// createRelease creates schema ns holding the snapshot's tables and loads
// rows with load.
func (s *session) createRelease(ctx context.Context, ns string, snap *Snapshot, load func() error) error {
	ddl, err := SchemaDDL(snap)
	if err != nil {
		return err
	}
	if err := s.exec(ctx, "CREATE SCHEMA "+quoteIdent(ns)); err != nil {
		return fmt.Errorf("create schema %s: %w", ns, err)
	}
	if err := s.useRelease(ctx, ns); err != nil {
		return err
	}
	for _, q := range ddl.Tables {
		if err := s.exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	if err := load(); err != nil {
		return err
	}
	for _, q := range append(ddl.Keys, ddl.Sequences...) {
		if err := s.exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return s.exec(ctx, "ANALYZE")
}

// describe prepares a logic's SQL. With tables, it also reads the
// rewritten query tree PostgreSQL logs (debug_print_rewritten) for the
// tables it touches. A PostgreSQL error is returned in described.err.
func (s *session) describe(ctx context.Context, sql string, tables bool) (*described, error) {
	d := &described{rw: Rewrite(sql)}
	if tables {
		if err := s.exec(ctx, "SET client_min_messages = log; SET debug_print_rewritten = on"); err != nil {
			return nil, err
		}
		s.logs, s.collect = nil, true
	}
	desc, err := s.conn.PgConn().Prepare(ctx, stmtName, d.rw.SQL, nil)
	if tables {
		s.collect = false
		if err := s.exec(ctx, "RESET debug_print_rewritten; RESET client_min_messages"); err != nil {
			return nil, err
		}
		d.relids = rangeTable(s.logs)
	}
	if err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			d.err = pgErr
			return d, nil
		}
		return nil, fmt.Errorf("prepare: %w", err)
	}
	d.fields = desc.Fields
	for _, oid := range desc.ParamOIDs {
		t, err := s.typeName(ctx, oid, -1)
		if err != nil {
			return nil, err
		}
		d.params = append(d.params, t)
	}
	return d, nil
}

// release drops the prepared statement.
func (s *session) release(ctx context.Context) error {
	return s.conn.PgConn().Deallocate(ctx, stmtName)
}

// run executes the prepared logic once with args, in a transaction it
// rolls back, and returns the rows (nil values are NULLs) and the command
// tag. A PostgreSQL error is returned as *pgconn.PgError.
func (s *session) run(ctx context.Context, d *described, args map[string]any) ([][][]byte, pgconn.CommandTag, error) {
	values := make([][]byte, len(d.rw.Names))
	for i, name := range d.rw.Names {
		v, err := argText(args[name], d.params[i])
		if err != nil {
			return nil, pgconn.CommandTag{}, fmt.Errorf("argument %s: %w", name, err)
		}
		values[i] = v
	}
	if err := s.exec(ctx, "BEGIN"); err != nil {
		return nil, pgconn.CommandTag{}, err
	}
	res := s.conn.PgConn().ExecPrepared(ctx, stmtName, values, nil, nil).Read()
	if err := s.exec(ctx, "ROLLBACK"); err != nil {
		return nil, pgconn.CommandTag{}, err
	}
	return res.Rows, res.CommandTag, res.Err
}

// typeName is format_type(oid, typmod).
func (s *session) typeName(ctx context.Context, oid uint32, typmod int32) (string, error) {
	key := [2]int64{int64(oid), int64(typmod)}
	if t, ok := s.types[key]; ok {
		return t, nil
	}
	var mod any
	if typmod >= 0 {
		mod = typmod
	}
	var t string
	if err := s.conn.QueryRow(ctx, "SELECT format_type($1, $2)", oid, mod).Scan(&t); err != nil {
		return "", fmt.Errorf("format_type(%d, %d): %w", oid, typmod, err)
	}
	s.types[key] = t
	return t, nil
}

// source names the table column of a result field, or nil.
func (s *session) source(ctx context.Context, f pgconn.FieldDescription) (*Source, error) {
	if f.TableOID == 0 || f.TableAttributeNumber <= 0 {
		return nil, nil
	}
	key := [2]int64{int64(f.TableOID), int64(f.TableAttributeNumber)}
	src, ok := s.columns[key]
	if !ok {
		err := s.conn.QueryRow(ctx, `SELECT c.relname, a.attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
			WHERE a.attrelid = $1 AND a.attnum = $2`, f.TableOID, f.TableAttributeNumber).Scan(&src.Table, &src.Column)
		if err != nil {
			return nil, fmt.Errorf("column %d.%d: %w", f.TableOID, f.TableAttributeNumber, err)
		}
		s.columns[key] = src
	}
	return &src, nil
}

// tableName is the name of a table by oid.
func (s *session) tableName(ctx context.Context, oid uint32) (string, error) {
	if n, ok := s.tables[oid]; ok {
		return n, nil
	}
	var n string
	if err := s.conn.QueryRow(ctx, "SELECT relname FROM pg_class WHERE oid = $1", oid).Scan(&n); err != nil {
		return "", fmt.Errorf("table %d: %w", oid, err)
	}
	s.tables[oid] = n
	return n, nil
}

// The rewritten query tree names each table of a range table as
// ":rtekind 0 :relid N" and its privileges as ":requiredPerms N" (up to
// PostgreSQL 15, in the entry) or in an RTEPERMISSIONINFO (16 and later).
var (
	rteRE     = regexp.MustCompile(`:rtekind 0 :relid (\d+) `)
	perms15RE = regexp.MustCompile(`:rtekind 0 :relid (\d+) :relkind \w+ :rellockmode \d+ :tablesample <> :lateral \w+ :inh \w+ :inFromCl \w+ :requiredPerms (\d+)`)
	perms16RE = regexp.MustCompile(`\{RTEPERMISSIONINFO :relid (\d+) :inh \w+ :requiredPerms (\d+)`)
)

// rangeTable reads the tables and their privileges from the logged
// rewritten query trees.
func rangeTable(logs []string) map[uint32]int {
	out := map[uint32]int{}
	for _, l := range logs {
		l = strings.Join(strings.Fields(l), " ") // the dump wraps its lines
		for _, m := range rteRE.FindAllStringSubmatch(l, -1) {
			id, _ := strconv.ParseUint(m[1], 10, 32)
			out[uint32(id)] |= 0
		}
		for _, re := range []*regexp.Regexp{perms15RE, perms16RE} {
			for _, m := range re.FindAllStringSubmatch(l, -1) {
				id, _ := strconv.ParseUint(m[1], 10, 32)
				p, _ := strconv.Atoi(m[2])
				out[uint32(id)] |= p
			}
		}
	}
	return out
}

// access is the §11 access word of ACL bits.
func access(perms int) string {
	read, write := perms&2 != 0, perms&(1|4|8) != 0
	switch {
	case read && write:
		return snapshot.AccessReadWrite
	case write:
		return snapshot.AccessWrite
	}
	return snapshot.AccessRead
}

// argText is a JSON argument in PostgreSQL's text format for a parameter
// of type typ: strings as they are, numbers and booleans spelled, arrays
// as array literals (or JSON for a json parameter), objects as JSON, null
// as NULL.
func argText(v any, typ string) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string:
		return []byte(x), nil
	case json.Number:
		return []byte(x.String()), nil
	case bool:
		return []byte(strconv.FormatBool(x)), nil
	case map[string]any:
		return json.Marshal(x)
	case []any:
		if typ == "json" || typ == "jsonb" {
			return json.Marshal(x)
		}
		if !strings.HasSuffix(typ, "[]") {
			return nil, fmt.Errorf("an array for a parameter of type %s", typ)
		}
		elems := make([]string, len(x))
		for i, e := range x {
			if e == nil {
				elems[i] = "NULL"
				continue
			}
			b, err := argText(e, strings.TrimSuffix(typ, "[]"))
			if err != nil {
				return nil, err
			}
			if _, nested := e.([]any); nested {
				elems[i] = string(b)
				continue
			}
			elems[i] = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(string(b)) + `"`
		}
		return []byte("{" + strings.Join(elems, ",") + "}"), nil
	}
	return nil, fmt.Errorf("unsupported JSON value %T", v)
}

// statementOf is the verb of a command tag.
func statementOf(tag pgconn.CommandTag) string {
	switch {
	case tag.Select():
		return "select"
	case tag.Insert():
		return "insert"
	case tag.Update():
		return "update"
	case tag.Delete():
		return "delete"
	case strings.HasPrefix(tag.String(), "MERGE"):
		return "merge"
	}
	return "other"
}

// sortedTables turns a range table into TableTruths, by name.
func (s *session) sortedTables(ctx context.Context, relids map[uint32]int) ([]TableTruth, error) {
	byName := map[string]int{}
	for oid, p := range relids {
		n, err := s.tableName(ctx, oid)
		if err != nil {
			return nil, err
		}
		byName[n] |= p
	}
	out := []TableTruth{}
	for n, p := range byName {
		out = append(out, TableTruth{Table: n, Access: access(p)})
	}
	slices.SortFunc(out, func(a, b TableTruth) int { return strings.Compare(a.Table, b.Table) })
	return out, nil
}

package analysis

import (
	"strings"
	"sync"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// Tables are the release's tables arranged for lookups (the release's, not
// PostgreSQL's catalog): built once per release with NewTables and shared
// by every Analyze (safe for concurrent
// use). A table's column lookups are built the first time a logic names
// it, so a release of many tables and few logics pays for few.
type Tables struct {
	tables      map[string][]*lazyTable // by name, over all connections
	conns       map[string]bool         // connection name -> is postgres
	allPostgres bool
	enums       map[string]bool // names of enum types the snapshot states
	ntables     int
	src         *sourced // not nil: tables are read from a TableSource (tables_source.go)
}

// lazyTable builds a table's lookups at first use.
type lazyTable struct {
	once sync.Once
	src  *snapshot.Table
	conn string
	pg   bool
	info *tableInfo
}

func (l *lazyTable) get() *tableInfo {
	l.once.Do(func() { l.info = buildTable(l.src, l.conn, l.pg) })
	return l.info
}

// tableInfo is one table of the release, as the analysis looks it up.
type tableInfo struct {
	conn, name string
	postgres   bool
	cols       []colInfo
	byName     map[string]int
}

// colInfo is one column of a table.
type colInfo struct {
	name       string
	snapType   string // as the snapshot states it
	t          typ    // the PostgreSQL type, when the analysis knows it
	notNull    bool   // NOT NULL or part of the primary key
	hasDefault bool   // a default, or a serial type
}

// NewTables builds the lookups of one release from its connections and
// tables (the other parts of s are not read); s must not change afterwards
// (its tables are read when logics first name them). Connections missing
// from s.Connections but named by tables count as postgres (the engine
// §11 analyses); a table without a connection is in "main", the
// snapshot's default.
func NewTables(s *snapshot.Snapshot) *Tables {
	c := &Tables{
		tables:      map[string][]*lazyTable{},
		conns:       map[string]bool{},
		allPostgres: true,
		enums:       map[string]bool{},
	}
	if s == nil {
		return c
	}
	for _, cn := range s.Connections {
		pg := isPostgres(cn.Engine)
		c.conns[cn.Name] = pg
		if !pg {
			c.allPostgres = false
		}
	}
	for i := range s.Tables {
		for j := range s.Tables[i].Columns {
			if col := &s.Tables[i].Columns[j]; len(col.Enum) > 0 {
				if name := enumTypeName(col.Type); name != "" {
					c.enums[name] = true
				}
			}
		}
	}
	for i := range s.Tables {
		t := &s.Tables[i]
		conn := t.Connection
		if conn == "" {
			conn = snapshot.DefaultConnection
		}
		pg, ok := c.conns[conn]
		if !ok {
			pg = true
			c.conns[conn] = true
		}
		c.tables[t.Name] = append(c.tables[t.Name], &lazyTable{src: t, conn: conn, pg: pg})
		c.ntables++
	}
	return c
}

// buildTable builds one table's lookups: what the analysis reads of a
// table is its columns (name, type, nullability, default, enum values) and
// its primary key.
func buildTable(t *snapshot.Table, conn string, pg bool) *tableInfo {
	ti := &tableInfo{conn: conn, name: t.Name, postgres: pg, byName: make(map[string]int, len(t.Columns))}
	pk := map[string]bool{}
	for _, k := range t.PrimaryKey {
		pk[k] = true
	}
	for i := range t.Columns {
		col := &t.Columns[i]
		ct := parseTypeText(col.Type)
		if len(col.Enum) > 0 {
			if name := enumTypeName(col.Type); name != "" {
				ct = typ{base: name, enum: true}
			} else {
				ct = tUnknown
			}
		}
		ti.cols = append(ti.cols, colInfo{
			name:       col.Name,
			snapType:   col.Type,
			t:          ct,
			notNull:    !col.Nullable || pk[col.Name],
			hasDefault: col.Default != "" || serialTypes[strings.ToLower(strings.TrimSpace(col.Type))],
		})
		if _, dup := ti.byName[col.Name]; !dup {
			ti.byName[col.Name] = i
		}
	}
	return ti
}

// IsPostgres reports whether a connection engine is PostgreSQL, the
// engine whose logics are analysed.
func IsPostgres(engine string) bool { return isPostgres(engine) }

// isPostgres reports whether a connection engine is PostgreSQL.
func isPostgres(engine string) bool {
	e := strings.ToLower(strings.TrimSpace(engine))
	return e == "postgres" || e == "postgresql"
}

// enumTypeName returns the name of a user-defined enum type as a snapshot
// states it ("post_status"), or "" when the text is a built-in type name or
// not a plain identifier ("string", "USER-DEFINED", "enum").
func enumTypeName(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || parseTypeText(s).known() {
		return ""
	}
	switch strings.ToLower(s) {
	case "string", "enum", "user-defined", "text", "varchar":
		return ""
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || ('a' <= c && c <= 'z') || (i > 0 && '0' <= c && c <= '9')) {
			return "" // upper case or anything else: not how format_type would spell it
		}
	}
	return s
}

// lookupTable finds the tables named name (exactly, after PostgreSQL's
// folding of the SQL's identifier). A name PostgreSQL truncated to 63
// bytes also matches a longer snapshot name with that prefix.
func (c *Tables) lookupTable(name string) []*tableInfo {
	if c.src != nil {
		return c.src.lookup(name)
	}
	lts := c.tables[name]
	if lts == nil && len(name) == maxIdentLen {
		for n, ts := range c.tables {
			if len(n) > maxIdentLen && truncateIdent(n) == name {
				lts = append(lts, ts...)
			}
		}
	}
	if lts == nil {
		return nil
	}
	out := make([]*tableInfo, len(lts))
	for i, l := range lts {
		out[i] = l.get()
	}
	return out
}

// maxIdentLen is PostgreSQL's NAMEDATALEN-1: longer identifiers are cut.
const maxIdentLen = 63

// truncateIdent cuts s to 63 bytes on a character boundary, as PostgreSQL
// does.
func truncateIdent(s string) string {
	if len(s) <= maxIdentLen {
		return s
	}
	n := maxIdentLen
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// column returns the column named name, truncation aside.
func (t *tableInfo) column(name string) (int, bool) {
	if i, ok := t.byName[name]; ok {
		return i, true
	}
	if len(name) == maxIdentLen {
		for i, c := range t.cols {
			if truncateIdent(c.name) == name {
				return i, true
			}
		}
	}
	return 0, false
}

package analysis

import (
	"sync"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// TableSource gives Tables the release's tables when a logic first names
// them, so that the caller need not hold a release of 100,000 tables in
// memory to analyse its logics (package store reads them from the index,
// inside the transaction that writes the release).
type TableSource interface {
	// Tables returns the release's tables named name, in every connection.
	// With prefix, name is 63 bytes long (PostgreSQL cut it) and Tables
	// returns the tables whose name starts with it; Tables keeps
	// those whose name PostgreSQL would cut to name. Of a table, the
	// analysis reads its connection, name, columns (name, type, nullable,
	// default, enum values) and primary key: the rest (comments, foreign
	// keys, indexes) may be left out.
	Tables(name string, prefix bool) ([]snapshot.Table, error)
	// EnumTypes returns the types, as the snapshot states them, of the
	// release's columns that list enum values. It is called at most once,
	// the first time a logic casts to a type the analysis does not know.
	EnumTypes() ([]string, error)
}

// sourced is the part of Tables read from a TableSource.
type sourced struct {
	src   TableSource
	conns map[string]bool // the Tables': connection name -> is postgres

	mu     sync.Mutex
	tables map[string][]*tableInfo // by name; nil entries: no such table
	enums  map[string]bool         // nil until read
	err    error                   // the first error of src
}

// sourceCacheTables bounds the names sourced Tables keep: past it the
// cache starts again (a release whose logics name many tables reads some
// of them twice rather than keep them all).
const sourceCacheTables = 4096

// TablesFrom returns the Tables of a release of ntables tables (the
// count decides whether an unknown name is a problem: a release without
// tables was not captured) in connections conns, whose tables are read
// from src when a logic first names them. Connections named by tables
// but missing from conns count as postgres, as in NewTables. Unlike
// NewTables', they are for one goroutine at a time (TableSource need
// not be safe for concurrent use; Analyze calls on it are serialised).
//
// When src fails, the lookup says no table, which could report a false
// problem: the caller must check Err after each Analyze and discard the
// analysis when it is not nil.
func TablesFrom(conns []snapshot.Connection, ntables int, src TableSource) *Tables {
	c := NewTables(&snapshot.Snapshot{Connections: conns})
	c.ntables = ntables
	c.src = &sourced{src: src, conns: c.conns, tables: map[string][]*tableInfo{}}
	return c
}

// Err returns the first error of the Tables' TableSource, if any.
func (c *Tables) Err() error {
	if c.src == nil {
		return nil
	}
	c.src.mu.Lock()
	defer c.src.mu.Unlock()
	return c.src.err
}

// isEnum reports whether name is an enum type the snapshot states.
func (c *Tables) isEnum(name string) bool {
	if c.src == nil {
		return c.enums[name]
	}
	s := c.src
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.enums == nil && s.err == nil {
		types, err := s.src.EnumTypes()
		if err != nil {
			s.err = err
			return false
		}
		s.enums = map[string]bool{}
		for _, t := range types {
			if n := enumTypeName(t); n != "" {
				s.enums[n] = true
			}
		}
	}
	return s.enums[name]
}

// lookup finds the tables named name, reading them from the source the
// first time.
func (s *sourced) lookup(name string) []*tableInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ts, ok := s.tables[name]; ok {
		return ts
	}
	if s.err != nil {
		return nil
	}
	prefix := len(name) == maxIdentLen
	tables, err := s.src.Tables(name, prefix)
	if err != nil {
		s.err = err
		return nil
	}
	if len(s.tables) >= sourceCacheTables {
		clear(s.tables)
	}
	var out []*tableInfo
	for i := range tables {
		t := &tables[i]
		if t.Name != name && !(prefix && len(t.Name) > maxIdentLen && truncateIdent(t.Name) == name) {
			continue
		}
		conn := t.Connection
		if conn == "" {
			conn = snapshot.DefaultConnection
		}
		pg, known := s.conns[conn]
		if !known {
			pg = true
		}
		out = append(out, buildTable(t, conn, pg))
	}
	s.tables[name] = out
	return out
}

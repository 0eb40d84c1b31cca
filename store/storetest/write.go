package storetest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
)

// WriteRelease writes the snapshot document of the release Release(size)
// returns, in the snapshot format (docs/design.md), one table or logic at a
// time: a 100,000-table document never exists in memory whole, here or in
// a benchmark that reads it.
func WriteRelease(w io.Writer, size Size) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	rel := map[string]any{"id": release.ID, "project": release.Project, "environment": release.Environment,
		"version": release.Version, "createdAt": release.CreatedAt}
	conns := make([]map[string]any, len(connections))
	for i, c := range connections {
		// A URL, as the Hub sends one: it must never reach the cache.
		conns[i] = map[string]any{"name": c.Name, "engine": c.Engine, "url": c.Engine + "://app:secret@db/" + c.Name}
	}
	fmt.Fprint(bw, `{"formatVersion":1,"release":`)
	enc.Encode(rel)
	fmt.Fprint(bw, `,"connections":`)
	enc.Encode(conns)
	rng := rand.New(rand.NewPCG(1, 2))
	fmt.Fprint(bw, `,"tables":[`)
	for i := range size.Tables {
		if i > 0 {
			bw.WriteByte(',')
		}
		t := table(rng, i)
		if err := enc.Encode(tableDoc(&t)); err != nil {
			return err
		}
	}
	fmt.Fprint(bw, `],"logics":[`)
	for i := range size.Logics {
		if i > 0 {
			bw.WriteByte(',')
		}
		if err := enc.Encode(logicDoc(logic(rng, i, size.Tables))); err != nil {
			return err
		}
	}
	fmt.Fprint(bw, "]}\n")
	return bw.Flush()
}

// tableDoc is a table as a snapshot document writes it.
func tableDoc(t *snapshot.Table) map[string]any {
	cols := make([]map[string]any, len(t.Columns))
	for i, c := range t.Columns {
		col := map[string]any{"name": c.Name, "type": c.Type, "nullable": c.Nullable}
		if c.Comment != "" {
			col["comment"] = c.Comment
		}
		if c.Default != "" {
			col["default"] = c.Default
		}
		if len(c.Enum) > 0 {
			col["enum"] = c.Enum
		}
		cols[i] = col
	}
	fks := make([]map[string]any, len(t.ForeignKeys))
	for i, fk := range t.ForeignKeys {
		fks[i] = map[string]any{"name": fk.Name, "columns": fk.Columns, "onDelete": fk.OnDelete,
			"references": map[string]any{"table": fk.RefTable, "connection": fk.RefConnection, "columns": fk.RefColumns}}
	}
	ixs := make([]map[string]any, len(t.Indexes))
	for i, ix := range t.Indexes {
		ixs[i] = map[string]any{"name": ix.Name, "columns": ix.Columns, "unique": ix.Unique}
	}
	doc := map[string]any{"name": t.Name, "connection": t.Connection, "columns": cols, "foreignKeys": fks, "indexes": ixs}
	if t.Comment != "" {
		doc["comment"] = t.Comment
	}
	if len(t.PrimaryKey) > 0 {
		doc["primaryKey"] = t.PrimaryKey
	}
	return doc
}

// logicDoc is a logic as a snapshot document writes it, with a secret the
// cache must never keep.
func logicDoc(l snapshot.Logic) map[string]any {
	params := make([]map[string]any, len(l.Params))
	for i, p := range l.Params {
		params[i] = map[string]any{"name": p.Name, "type": p.Type, "required": p.Required}
	}
	return map[string]any{"name": l.Name, "description": l.Description, "sql": l.SQL, "params": params,
		"auth":    map[string]any{"required": l.Auth.Required, "roles": l.Auth.Roles},
		"secrets": map[string]any{"API_KEY": "sk_live_storetest"}}
}

// Names returns the names of the tables and logics of Release(size), in
// release order, without holding the release.
func Names(size Size) (tables, logics []string) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range size.Tables {
		tables = append(tables, table(rng, i).Name)
	}
	for i := range size.Logics {
		logics = append(logics, logic(rng, i, size.Tables).Name)
	}
	return tables, logics
}

// Fill sends the release Release(size) returns to w, one table or logic at
// a time, without holding it. judge, when not nil, gives the findings of
// the schema rules about each table (indexer/lint's Linter.Table), written
// with it as an import writes them.
func Fill(w *store.ReleaseWriter, size Size, judge func(*snapshot.Table) []snapshot.Finding) error {
	w.Release(release, origin)
	for _, c := range connections {
		if err := w.Connection(c); err != nil {
			return err
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range size.Tables {
		t := table(rng, i)
		if err := w.Table(&t); err != nil {
			return err
		}
		if judge != nil {
			if err := w.Findings(judge(&t)); err != nil {
				return err
			}
		}
	}
	for i := range size.Logics {
		l := logic(rng, i, size.Tables)
		if err := w.Logic(&l); err != nil {
			return err
		}
	}
	return nil
}

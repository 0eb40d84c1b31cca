package snapshot

import (
	"encoding/json"
)

// The snapshot format, version 1, as JSON types, for writing release files:
// only the fields named here exist, so a release file holds nothing else.
// The Decoder keeps the same fields, and only them, when it reads a
// document: connection URLs, passwords, logic secrets and any field the
// format does not name are dropped at every level.

// document is a whole snapshot.
type document struct {
	FormatVersion int             `json:"formatVersion"`
	Release       docRelease      `json:"release"`
	Origin        *docOrigin      `json:"origin,omitempty"` // written by hubsnap in release files only
	Connections   []docConnection `json:"connections"`
	Tables        []docTable      `json:"tables"`
	Logics        []docLogic      `json:"logics"`
}

type docRelease struct {
	ID          string `json:"id"`
	Project     string `json:"project"`
	Environment string `json:"environment"`
	Version     int64  `json:"version"`
	CreatedAt   string `json:"createdAt"`
}

// docOrigin records where a cached release came from. hubsnap writes it in
// release files; in a document from the Hub or an imported file it is
// ignored and replaced.
type docOrigin struct {
	Source   string `json:"source"`
	Digest   string `json:"digest"`
	SyncedAt string `json:"syncedAt"`
}

// docConnection deliberately has no URL field.
type docConnection struct {
	Name   string `json:"name"`
	Engine string `json:"engine,omitempty"`
}

type docTable struct {
	Name        string          `json:"name"`
	Connection  string          `json:"connection,omitempty"`
	Comment     string          `json:"comment,omitempty"`
	Columns     []docColumn     `json:"columns"`
	PrimaryKey  []string        `json:"primaryKey,omitempty"`
	ForeignKeys []docForeignKey `json:"foreignKeys,omitempty"`
	Indexes     []docIndex      `json:"indexes,omitempty"`
}

type docColumn struct {
	Name string `json:"name"`
	Type string `json:"type"`
	// Nullable is a pointer to tell a missing value (nullable, as in SQL)
	// from false.
	Nullable *bool  `json:"nullable,omitempty"`
	Comment  string `json:"comment,omitempty"`
	// Default and Enum may be strings, numbers or booleans in a document;
	// a release file writes them as strings.
	Default json.RawMessage   `json:"default,omitempty"`
	Enum    []json.RawMessage `json:"enum,omitempty"`
}

type docForeignKey struct {
	Name       string        `json:"name,omitempty"`
	Columns    []string      `json:"columns"`
	References docReferences `json:"references"`
	OnDelete   string        `json:"onDelete,omitempty"`
}

type docReferences struct {
	Table      string   `json:"table"`
	Connection string   `json:"connection,omitempty"`
	Columns    []string `json:"columns"`
}

type docIndex struct {
	Name    string   `json:"name,omitempty"`
	Columns []string `json:"columns"`
	Unique  bool     `json:"unique"`
}

type docLogic struct {
	Name        string     `json:"name"`
	Description string     `json:"description,omitempty"`
	SQL         string     `json:"sql"`
	Params      []docParam `json:"params"`
	Auth        *docAuth   `json:"auth,omitempty"`
}

type docParam struct {
	Name     string `json:"name"`
	Type     string `json:"type,omitempty"`
	Required bool   `json:"required"`
}

type docAuth struct {
	Required bool     `json:"required"`
	Roles    []string `json:"roles"`
}

// scalarJSON is the JSON form of a scalar's text in a release file: always
// a string.
func scalarJSON(text string) json.RawMessage {
	if text == "" {
		return nil
	}
	b, _ := json.Marshal(text)
	return b
}

// FormatVersion is the snapshot format version this build reads and writes.
const FormatVersion = 1

// mustJSON encodes a string as JSON.
func mustJSON(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// docTableOf converts a table to its form in a release file, with every
// default written out.
func docTableOf(t *Table) docTable {
	dt := docTable{
		Name:        t.Name,
		Connection:  t.Connection,
		Comment:     t.Comment,
		Columns:     make([]docColumn, len(t.Columns)),
		PrimaryKey:  t.PrimaryKey,
		ForeignKeys: make([]docForeignKey, len(t.ForeignKeys)),
		Indexes:     make([]docIndex, len(t.Indexes)),
	}
	for j, c := range t.Columns {
		dt.Columns[j] = docColumn{Name: c.Name, Type: c.Type, Nullable: &c.Nullable, Comment: c.Comment,
			Default: scalarJSON(c.Default)}
		for _, e := range c.Enum {
			dt.Columns[j].Enum = append(dt.Columns[j].Enum, json.RawMessage(mustJSON(e)))
		}
	}
	for j, fk := range t.ForeignKeys {
		dt.ForeignKeys[j] = docForeignKey{
			Name:    fk.Name,
			Columns: fk.Columns,
			References: docReferences{
				Table: fk.RefTable, Connection: fk.RefConnection, Columns: fk.RefColumns,
			},
			OnDelete: fk.OnDelete,
		}
	}
	for j, ix := range t.Indexes {
		dt.Indexes[j] = docIndex(ix)
	}
	return dt
}

// docLogicOf converts a logic to its form in a release file.
func docLogicOf(l *Logic) docLogic {
	dl := docLogic{Name: l.Name, Description: l.Description, SQL: l.SQL,
		Params: make([]docParam, len(l.Params)),
		Auth:   &docAuth{Required: l.Auth.Required, Roles: l.Auth.Roles}}
	if dl.Auth.Roles == nil {
		dl.Auth.Roles = []string{}
	}
	for j, p := range l.Params {
		dl.Params[j] = docParam(p)
	}
	return dl
}

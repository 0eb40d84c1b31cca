package pgoracle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Snapshot is the part of a snapshot document (SPEC §5) the oracle needs.
// It keeps the fields the corpus uses; it is not hubsnap's decoder.
type Snapshot struct {
	FormatVersion int          `json:"formatVersion"`
	Release       Release      `json:"release"`
	Connections   []Connection `json:"connections"`
	Tables        []Table      `json:"tables"`
	Logics        []Logic      `json:"logics"`
}

// Release identifies a release.
type Release struct {
	ID          string `json:"id"`
	Project     string `json:"project"`
	Environment string `json:"environment"`
	Version     int64  `json:"version"`
	CreatedAt   string `json:"createdAt"`
}

// Connection is a database of the release.
type Connection struct {
	Name   string `json:"name"`
	Engine string `json:"engine,omitempty"`
}

// Table is a table with its columns and keys.
type Table struct {
	Name        string       `json:"name"`
	Connection  string       `json:"connection,omitempty"`
	Comment     string       `json:"comment,omitempty"`
	Columns     []Column     `json:"columns"`
	PrimaryKey  []string     `json:"primaryKey,omitempty"`
	ForeignKeys []ForeignKey `json:"foreignKeys,omitempty"`
	Indexes     []Index      `json:"indexes,omitempty"`
}

// Column is a column. Type is a PostgreSQL type as the snapshot spells
// it; for an enum column it names the enum type and Enum lists its
// values. Default is SQL text (a JSON string, number or boolean).
type Column struct {
	Name     string          `json:"name"`
	Type     string          `json:"type"`
	Nullable *bool           `json:"nullable,omitempty"`
	Comment  string          `json:"comment,omitempty"`
	Default  json.RawMessage `json:"default,omitempty"`
	Enum     []string        `json:"enum,omitempty"`
}

// ForeignKey is a foreign key.
type ForeignKey struct {
	Name       string     `json:"name,omitempty"`
	Columns    []string   `json:"columns"`
	References References `json:"references"`
	OnDelete   string     `json:"onDelete,omitempty"`
}

// References is the target of a foreign key.
type References struct {
	Table   string   `json:"table"`
	Columns []string `json:"columns"`
}

// Index is an index; unique ones back ON CONFLICT targets.
type Index struct {
	Name    string   `json:"name,omitempty"`
	Columns []string `json:"columns"`
	Unique  bool     `json:"unique"`
}

// Logic is a logic: SQL with :name placeholders and its declared params.
type Logic struct {
	Name        string  `json:"name"`
	Description string  `json:"description,omitempty"`
	SQL         string  `json:"sql"`
	Params      []Param `json:"params"`
}

// Param is a declared parameter of a logic.
type Param struct {
	Name     string `json:"name"`
	Type     string `json:"type,omitempty"`
	Required bool   `json:"required"`
}

// IsNullable reports whether the column accepts NULL (a missing
// "nullable" means it does, as in SQL).
func (c *Column) IsNullable() bool { return c.Nullable == nil || *c.Nullable }

// DefaultSQL is the column's default as SQL text, or "".
func (c *Column) DefaultSQL() string {
	if len(c.Default) == 0 || string(c.Default) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(c.Default, &s) == nil {
		return s
	}
	return string(c.Default) // a number or a boolean
}

// ParseSnapshot decodes a snapshot document.
func ParseSnapshot(doc []byte) (*Snapshot, error) {
	var s Snapshot
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	if s.FormatVersion != 1 {
		return nil, fmt.Errorf("snapshot: formatVersion %d, want 1", s.FormatVersion)
	}
	return &s, nil
}

// Table returns the table named name, or nil.
func (s *Snapshot) Table(name string) *Table {
	for i := range s.Tables {
		if s.Tables[i].Name == name {
			return &s.Tables[i]
		}
	}
	return nil
}

// Logic returns the logic named name, or nil.
func (s *Snapshot) Logic(name string) *Logic {
	for i := range s.Logics {
		if s.Logics[i].Name == name {
			return &s.Logics[i]
		}
	}
	return nil
}

// Column returns the column named name, or nil.
func (t *Table) Column(name string) *Column {
	for i := range t.Columns {
		if t.Columns[i].Name == name {
			return &t.Columns[i]
		}
	}
	return nil
}

// Clone returns a deep copy, for mutating.
func (s *Snapshot) Clone() *Snapshot {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // a Snapshot always encodes
	}
	var c Snapshot
	if err := json.Unmarshal(b, &c); err != nil {
		panic(err)
	}
	return &c
}

// Encode writes the document as the corpus keeps it: JSON with one
// column, key, index or logic field per line, no HTML escaping, ending in
// a newline.
func (s *Snapshot) Encode() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\n  \"formatVersion\": %d,\n  \"release\": %s,\n  \"connections\": [", s.FormatVersion, compact(s.Release))
	for i, c := range s.Connections {
		b.WriteString(sep(i) + "\n    " + compact(c))
	}
	b.WriteString("\n  ],\n  \"tables\": [")
	for i, t := range s.Tables {
		fmt.Fprintf(&b, "%s\n    {\n      \"name\": %s", sep(i), compact(t.Name))
		if t.Connection != "" {
			fmt.Fprintf(&b, ", \"connection\": %s", compact(t.Connection))
		}
		if t.Comment != "" {
			fmt.Fprintf(&b, ", \"comment\": %s", compact(t.Comment))
		}
		b.WriteString(",\n      \"columns\": [")
		for j, c := range t.Columns {
			b.WriteString(sep(j) + "\n        " + compact(c))
		}
		b.WriteString("\n      ]")
		if len(t.PrimaryKey) > 0 {
			fmt.Fprintf(&b, ",\n      \"primaryKey\": %s", compact(t.PrimaryKey))
		}
		list := func(key string, n int, item func(int) any) {
			if n == 0 {
				return
			}
			fmt.Fprintf(&b, ",\n      %q: [", key)
			for j := range n {
				b.WriteString(sep(j) + "\n        " + compact(item(j)))
			}
			b.WriteString("\n      ]")
		}
		list("foreignKeys", len(t.ForeignKeys), func(j int) any { return t.ForeignKeys[j] })
		list("indexes", len(t.Indexes), func(j int) any { return t.Indexes[j] })
		b.WriteString("\n    }")
	}
	b.WriteString("\n  ],\n  \"logics\": [")
	for i, l := range s.Logics {
		fmt.Fprintf(&b, "%s\n    {\n      \"name\": %s", sep(i), compact(l.Name))
		if l.Description != "" {
			fmt.Fprintf(&b, ",\n      \"description\": %s", compact(l.Description))
		}
		fmt.Fprintf(&b, ",\n      \"sql\": %s", compact(l.SQL))
		params := l.Params
		if params == nil {
			params = []Param{}
		}
		b.WriteString(",\n      \"params\": [")
		for j, p := range params {
			b.WriteString(sep(j) + "\n        " + compact(p))
		}
		if len(params) > 0 {
			b.WriteString("\n      ")
		}
		b.WriteString("]\n    }")
	}
	b.WriteString("\n  ]\n}\n")
	return b.Bytes()
}

// compact is v as one line of JSON, HTML characters left alone.
func compact(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // the snapshot's types always encode
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// sep is the comma before the i-th item of a list.
func sep(i int) string {
	if i == 0 {
		return ""
	}
	return ","
}

// quoteIdent quotes an SQL identifier.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// quoteLiteral quotes an SQL string literal.
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

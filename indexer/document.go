package indexer

import (
	"bytes"
	"encoding/json"
)

// The snapshot format, version 1, as JSON types. Decoding a document into
// these types is the sanitizer: only the fields named here exist, so
// connection URLs, passwords, logic secrets and any field the format does
// not name are dropped at every level before anything else sees the data.
// Release files in the cache are written from these types too, so they hold
// nothing else either.

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
	// Default and Enum may be strings, numbers or booleans; they are kept
	// raw here and checked by validate, which knows their exact path.
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

// scalarText returns the text of a JSON string, number or boolean (a
// number keeps its literal form; null is ""). ok is false for an object or
// an array: no structure, and nothing hidden in one, gets through.
func scalarText(raw json.RawMessage) (text string, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", true
	}
	switch raw[0] {
	case '"':
		var v string
		err := json.Unmarshal(raw, &v)
		return v, err == nil
	case '{', '[':
		return "", false
	case 'n':
		return "", true
	}
	return string(raw), true // a number or a boolean, already valid JSON
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

// kindOfRaw names the JSON kind of a raw value, for messages.
func kindOfRaw(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		return "an array"
	}
	return "an object"
}

// FormatVersion is the snapshot format version this build reads and writes.
const FormatVersion = 1

package indexer

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
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
	Nullable *bool    `json:"nullable,omitempty"`
	Comment  string   `json:"comment,omitempty"`
	Default  scalar   `json:"default,omitempty"`
	Enum     []scalar `json:"enum,omitempty"`
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

// scalar is a JSON string, number or boolean kept as text: a column default
// or an enum value. Objects and arrays are refused, so no structure (and
// nothing hidden in one) can ride in these fields.
type scalar string

// UnmarshalJSON accepts a string, number, boolean or null.
func (s *scalar) UnmarshalJSON(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	switch b[0] {
	case '"':
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = scalar(v)
	case 'n': // null
		*s = ""
	case 't', 'f':
		*s = scalar(b)
	case '{', '[':
		kind := "object"
		if b[0] == '[' {
			kind = "array"
		}
		return &json.UnmarshalTypeError{Value: kind, Type: scalarType}
	default: // a number: keep its literal text, whatever its range
		if _, err := strconv.ParseFloat(string(b), 64); err != nil && !errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("invalid number %s", b)
		}
		*s = scalar(b)
	}
	return nil
}

// MarshalJSON writes the value as a JSON string.
func (s scalar) MarshalJSON() ([]byte, error) { return json.Marshal(string(s)) }

var scalarType = reflect.TypeFor[scalar]()

// FormatVersion is the snapshot format version this build reads and writes.
const FormatVersion = 1

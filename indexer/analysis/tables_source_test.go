package analysis

import (
	"errors"
	"strings"
	"testing"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// schemaSource is a TableSource over a snapshot.Snapshot, counting its calls.
type schemaSource struct {
	s             *snapshot.Snapshot
	calls, enumsN int
	fail          error
}

func (m *schemaSource) Tables(name string, prefix bool) ([]snapshot.Table, error) {
	m.calls++
	if m.fail != nil {
		return nil, m.fail
	}
	var out []snapshot.Table
	for _, t := range m.s.Tables {
		if t.Name == name || (prefix && strings.HasPrefix(t.Name, name)) {
			out = append(out, t)
		}
	}
	return out, nil
}

func (m *schemaSource) EnumTypes() ([]string, error) {
	m.enumsN++
	var out []string
	for _, t := range m.s.Tables {
		for _, c := range t.Columns {
			if len(c.Enum) > 0 {
				out = append(out, c.Type)
			}
		}
	}
	return out, nil
}

// sourceTables are the Tables of s read through a TableSource, as package
// store builds it: every connection a table names is listed.
func sourceTables(s *snapshot.Snapshot) (*Tables, *schemaSource) {
	conns := append([]snapshot.Connection(nil), s.Connections...)
	seen := map[string]bool{}
	for _, c := range conns {
		seen[c.Name] = true
	}
	for _, t := range s.Tables {
		name := t.Connection
		if name == "" {
			name = "main"
		}
		if !seen[name] {
			seen[name] = true
			conns = append(conns, snapshot.Connection{Name: name, Engine: "postgres"})
		}
	}
	src := &schemaSource{s: s}
	return TablesFrom(conns, len(s.Tables), src), src
}

// TestTablesFromCaches: a table is read once, however often logics
// name it; enum types once; a failing source is said by Err.
func TestTablesFromCaches(t *testing.T) {
	c, src := sourceTables(shopSchema())
	for range 3 {
		if got := c.lookupTable("users"); len(got) != 1 {
			t.Fatalf("lookupTable(users) = %d tables, want 1", len(got))
		}
		c.lookupTable("nope")
		c.isEnum("nope")
	}
	if src.calls != 2 || src.enumsN != 1 {
		t.Errorf("source calls = %d tables, %d enums; want 2, 1", src.calls, src.enumsN)
	}
	if err := c.Err(); err != nil {
		t.Errorf("Err() = %v", err)
	}
	bad, bsrc := sourceTables(shopSchema())
	bsrc.fail = errors.New("disk gone")
	bad.lookupTable("users")
	if err := bad.Err(); err == nil || err.Error() != "disk gone" {
		t.Errorf("Err() = %v, want disk gone", err)
	}
}

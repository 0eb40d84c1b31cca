package pgoracle

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// DDL is the SQL that creates a snapshot's schema in the current
// search_path, so that PostgreSQL's schema is exactly the snapshot's.
type DDL struct {
	// Tables creates the enum types (one per enum column, named by its
	// type), the sequences the defaults call nextval on, and the tables
	// with their types, NOT NULL, DEFAULT and primary keys.
	Tables []string
	// Keys creates the indexes (unique ones too) and foreign keys; it runs
	// after the rows are loaded.
	Keys []string
	// Sequences moves every nextval sequence past the loaded rows; it runs
	// after the rows are loaded.
	Sequences []string
}

// nextvalRE finds the sequence a default draws from.
var nextvalRE = regexp.MustCompile(`nextval\('([A-Za-z_][A-Za-z0-9_]*)'`)

// SchemaDDL builds the DDL of the snapshot's tables. A foreign key to a
// table the release does not hold is left out (SPEC §5 keeps it; PostgreSQL
// could not create it).
func SchemaDDL(s *Snapshot) (*DDL, error) {
	d := &DDL{}
	enums := map[string][]string{}
	seqs := map[string]bool{}
	for _, t := range s.Tables {
		var defs []string
		for _, c := range t.Columns {
			if len(c.Enum) > 0 {
				if prev, ok := enums[c.Type]; ok {
					if !slices.Equal(prev, c.Enum) {
						return nil, fmt.Errorf("table %s column %s: enum type %s has other values elsewhere", t.Name, c.Name, c.Type)
					}
				} else {
					enums[c.Type] = c.Enum
					vals := make([]string, len(c.Enum))
					for i, v := range c.Enum {
						vals[i] = quoteLiteral(v)
					}
					d.Tables = append(d.Tables, fmt.Sprintf("CREATE TYPE %s AS ENUM (%s)", c.Type, strings.Join(vals, ", ")))
				}
			}
			def := quoteIdent(c.Name) + " " + c.Type
			if !c.IsNullable() {
				def += " NOT NULL"
			}
			if dv := c.DefaultSQL(); dv != "" {
				def += " DEFAULT " + dv
				for _, m := range nextvalRE.FindAllStringSubmatch(dv, -1) {
					if !seqs[m[1]] {
						seqs[m[1]] = true
						d.Tables = append(d.Tables, "CREATE SEQUENCE "+quoteIdent(m[1]))
					}
					d.Sequences = append(d.Sequences, fmt.Sprintf("SELECT setval(%s, COALESCE((SELECT max(%s) FROM %s), 0) + 1, false)",
						quoteLiteral(m[1]), quoteIdent(c.Name), quoteIdent(t.Name)))
				}
			}
			defs = append(defs, def)
		}
		if len(t.PrimaryKey) > 0 {
			defs = append(defs, "PRIMARY KEY ("+identList(t.PrimaryKey)+")")
		}
		d.Tables = append(d.Tables, fmt.Sprintf("CREATE TABLE %s (\n  %s\n)", quoteIdent(t.Name), strings.Join(defs, ",\n  ")))
	}
	for _, t := range s.Tables {
		for i, ix := range t.Indexes {
			name := ix.Name
			if name == "" {
				name = fmt.Sprintf("%s_idx%d", t.Name, i+1)
			}
			unique := ""
			if ix.Unique {
				unique = "UNIQUE "
			}
			d.Keys = append(d.Keys, fmt.Sprintf("CREATE %sINDEX %s ON %s (%s)", unique, quoteIdent(name), quoteIdent(t.Name), identList(ix.Columns)))
		}
	}
	for _, t := range s.Tables {
		for _, fk := range t.ForeignKeys {
			if s.Table(fk.References.Table) == nil {
				continue
			}
			con := ""
			if fk.Name != "" {
				con = "CONSTRAINT " + quoteIdent(fk.Name) + " "
			}
			stmt := fmt.Sprintf("ALTER TABLE %s ADD %sFOREIGN KEY (%s) REFERENCES %s (%s)", quoteIdent(t.Name), con,
				identList(fk.Columns), quoteIdent(fk.References.Table), identList(fk.References.Columns))
			if fk.OnDelete != "" {
				stmt += " ON DELETE " + strings.ToUpper(strings.ReplaceAll(fk.OnDelete, "_", " "))
			}
			d.Keys = append(d.Keys, stmt)
		}
	}
	return d, nil
}

// identList quotes and joins column names.
func identList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quoteIdent(n)
	}
	return strings.Join(q, ", ")
}

package pgoracle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// Truth is PostgreSQL's answer for one schema of the corpus: what each
// base logic returns, and how every logic fares under every mutated
// release. It is committed as truth.json beside the schema.
type Truth struct {
	Schema string `json:"schema"`
	// PostgresMajor is the major version that gave the answer; messages
	// may differ in another.
	PostgresMajor int `json:"postgresMajor"`
	// Types maps every column type the schema's releases spell (e.g.
	// "int4", "varchar(100)") to PostgreSQL's spelling ("integer",
	// "character varying(100)"), read back with format_type.
	Types map[string]string `json:"types"`
	// Enums are the enum types of the base release.
	Enums     []string        `json:"enums"`
	Logics    []LogicTruth    `json:"logics"`
	Mutations []MutationTruth `json:"mutations"`
}

// LogicTruth is PostgreSQL's answer for a base logic, which prepares and
// runs without error (the corpus is sound).
type LogicTruth struct {
	Name string `json:"name"`
	// Statement is the command tag's verb: select, insert, update,
	// delete, merge, or other.
	Statement string `json:"statement"`
	// Params are the placeholders in $n order with the type PostgreSQL
	// inferred and the declared type.
	Params []ParamTruth `json:"params"`
	// Result are the columns of a row, as Describe gives them; null when
	// the statement returns no rows.
	Result []ColumnTruth `json:"result"`
	// Tables are the tables of the rewritten query's range table (the
	// tables the statement touches, CTEs and subqueries included; not
	// those only reached through foreign key checks), with PostgreSQL's
	// privilege-based access: read when it reads a column, write when it
	// inserts, updates or deletes, read_write when both.
	Tables []TableTruth `json:"tables"`
}

// ParamTruth is one placeholder.
type ParamTruth struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Declared string `json:"declared,omitempty"`
}

// ColumnTruth is one result column.
type ColumnTruth struct {
	Name string `json:"name"`
	Type string `json:"type"`
	// Source is the table column PostgreSQL traces the value to (the
	// RowDescription's table and attribute), through subqueries, CTEs and
	// RETURNING; absent for an expression.
	Source *Source `json:"source,omitempty"`
	// NullSeen says a run returned NULL in this column.
	NullSeen bool `json:"nullSeen"`
}

// Source is a table column.
type Source struct {
	Table  string `json:"table"`
	Column string `json:"column"`
}

// TableTruth is a table a statement touches.
type TableTruth struct {
	Table  string `json:"table"`
	Access string `json:"access"`
}

// MutationTruth is PostgreSQL's verdict on every logic of one mutated
// release.
type MutationTruth struct {
	Name   string `json:"name"`
	Change string `json:"change"`
	Note   string `json:"note,omitempty"`
	// OK lists the logics PostgreSQL accepts and that expect no problem.
	OK []string `json:"ok"`
	// Verdicts are the other logics.
	Verdicts []Verdict `json:"verdicts"`
}

// Verdict is PostgreSQL's answer for one logic of a mutated release, and
// the §11 problems it means.
type Verdict struct {
	Logic string `json:"logic"`
	// Phase is "prepare" when Parse/Describe failed, "execute" when the
	// run with the sample arguments did, "" when neither did.
	Phase    string `json:"phase,omitempty"`
	SQLState string `json:"sqlstate,omitempty"`
	Message  string `json:"message,omitempty"`
	// Position is the 1-based character offset in the logic's SQL, 0
	// when PostgreSQL gives none.
	Position int `json:"position,omitempty"`
	// Expect are the §11 codes the analysis must report (from the
	// SQLSTATE, and hubsnap's own UNDECLARED_PARAM and UNUSED_PARAM).
	Expect []string `json:"expect,omitempty"`
	// May are codes the analysis may report without being wrong:
	// PARAM_TYPE where a placeholder's declared kind differs from the
	// type PostgreSQL inferred or blamed.
	May []string `json:"may,omitempty"`
}

// Rejected says PostgreSQL refuses the logic: it does not prepare, or it
// leaves a NOT NULL column NULL when it runs.
func (v *Verdict) Rejected() bool {
	return v.Phase == "prepare" || v.Phase == "execute" && v.SQLState == "23502"
}

// SQLSTATEs and the §11 problem codes they mean. 42601 means SYNTAX only
// for the parser's "syntax error ..." (PostgreSQL also uses it for e.g.
// "INSERT has more expressions than target columns"). A type error
// (42804, 42883, 42725) means PARAM_TYPE only when its position is on a
// placeholder, and then only may. 23502 comes from running an INSERT
// that leaves out a NOT NULL column with no default. Any other SQLSTATE
// has no §11 code: the analysis need not report anything.
var sqlstateCodes = map[string]string{
	"42601": snapshot.CodeSyntax,
	"42P01": snapshot.CodeUnknownTable,
	"42703": snapshot.CodeUnknownColumn,
	"42702": snapshot.CodeAmbiguousColumn,
	"23502": snapshot.CodeMissingColumn,
}

// typeErrors are the SQLSTATEs that may mean PARAM_TYPE.
var typeErrors = []string{"42804", "42883", "42725"}

// SQLSTATEMapping returns the mapping from SQLSTATE to §11 code the
// oracle applies, for reports and docs.
func SQLSTATEMapping() map[string]string {
	m := map[string]string{}
	for k, v := range sqlstateCodes {
		m[k] = v
	}
	for _, k := range typeErrors {
		m[k] = "PARAM_TYPE (may, when at a placeholder)"
	}
	return m
}

// expectProblems fills v.Expect and v.May from PostgreSQL's verdict, the
// placeholders and the declared params. inferred holds PostgreSQL's type
// of each $n when the logic prepared.
func expectProblems(v *Verdict, l *Logic, rw *Rewritten, inferred []string, enums map[string]bool) {
	v.Expect, v.May = nil, nil
	declared := map[string]string{}
	for _, p := range l.Params {
		declared[p.Name] = p.Type
	}
	for _, n := range rw.Names {
		if _, ok := declared[n]; !ok {
			v.Expect = append(v.Expect, snapshot.CodeUndeclaredParam)
			break
		}
	}
	for _, p := range l.Params {
		if !slices.Contains(rw.Names, p.Name) {
			v.Expect = append(v.Expect, snapshot.CodeUnusedParam)
			break
		}
	}
	if v.Rejected() {
		code := sqlstateCodes[v.SQLState]
		if v.SQLState == "42601" && !strings.HasPrefix(v.Message, "syntax error") {
			code = ""
		}
		if code != "" {
			v.Expect = append(v.Expect, code)
		}
		if slices.Contains(typeErrors, v.SQLState) {
			if p, ok := rw.PlaceholderAt(v.Position); ok && declared[p.Name] != "" {
				v.May = append(v.May, snapshot.CodeParamType)
			}
		}
	} else {
		for i, t := range inferred {
			d, ok := declared[rw.Names[i]]
			if ok && relateKinds(declaredKind(d), pgKind(t, enums)) == kindsDifferent {
				v.May = append(v.May, snapshot.CodeParamType)
				break
			}
		}
	}
	slices.Sort(v.Expect)
}

// Marshal encodes the truth as committed: indented JSON ending in a
// newline.
func (t *Truth) Marshal() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(t); err != nil {
		panic(err) // a Truth always encodes
	}
	return buf.Bytes()
}

// LoadTruth reads a schema's committed truth.json.
func LoadTruth(s *Schema) (*Truth, error) {
	b, err := os.ReadFile(filepath.Join(s.Dir, "truth.json"))
	if err != nil {
		return nil, fmt.Errorf("truth of %s: %w", s.Name, err)
	}
	var t Truth
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("truth of %s: %w", s.Name, err)
	}
	return &t, nil
}

// Logic returns the truth of the base logic named name, or nil.
func (t *Truth) Logic(name string) *LogicTruth {
	for i := range t.Logics {
		if t.Logics[i].Name == name {
			return &t.Logics[i]
		}
	}
	return nil
}

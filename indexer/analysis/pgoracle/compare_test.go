package pgoracle

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// loadAll loads the corpus with its committed truth.
func loadAll(tb testing.TB) ([]*Schema, []*Truth) {
	tb.Helper()
	schemas := corpus(tb)
	truths := make([]*Truth, len(schemas))
	for i, s := range schemas {
		var err error
		if truths[i], err = LoadTruth(s); err != nil {
			tb.Fatal(err)
		}
	}
	return schemas, truths
}

// PostgreSQL's own answer, fed back as the analysis, agrees everywhere.
func TestCompareTruthAgrees(t *testing.T) {
	t.Parallel()
	schemas, truths := loadAll(t)
	r := Compare(schemas, truths, TruthAnalyser(schemas, truths))
	var out strings.Builder
	r.Format(&out, 20)
	t.Log("\n" + out.String())
	for name, f := range r.Figures {
		if f.Agree != f.Compared {
			t.Errorf("%s: %d of %d agree, want all", name, f.Agree, f.Compared)
		}
	}
	if len(r.Disagreements) > 0 || r.FalseProblems > 0 || r.NullDefects > 0 || r.Misses > 0 {
		t.Errorf("got %d disagreements, %d false problems, %d null defects, %d misses; want none",
			len(r.Disagreements), r.FalseProblems, r.NullDefects, r.Misses)
	}
	if got := r.Figures["problems found"]; got == nil || got.Compared < 100 {
		t.Errorf("problems found compared %v times, want the mutations' expected problems (100 or more)", got)
	}
}

// A careless analysis is caught: a problem on every logic, every column
// not nullable and of type text, a binding to a missing column.
func TestCompareCatchesDefects(t *testing.T) {
	t.Parallel()
	schemas, truths := loadAll(t)
	truthful := TruthAnalyser(schemas, truths)
	careless := func(doc []byte, logic string) ([]byte, error) {
		b, err := truthful(doc, logic)
		if err != nil {
			return nil, err
		}
		a, err := ParseAnalysis(b)
		if err != nil {
			return nil, err
		}
		no := false
		for i := range a.Result {
			a.Result[i].Nullable = &no
			a.Result[i].Type = "text"
		}
		a.Bindings = append(a.Bindings, Binding{Param: "nope", Table: "t", Column: "c"})
		a.Problems = append(a.Problems, Problem{Code: snapshot.CodeUnknownTable, Message: "relation t does not exist"})
		return json.Marshal(a)
	}
	r := Compare(schemas, truths, careless)
	if r.FalseProblems < r.Logics {
		t.Errorf("false problems = %d, want at least one per base logic (%d)", r.FalseProblems, r.Logics)
	}
	if r.NullDefects == 0 {
		t.Error("no nullability defect counted, want one per column where a NULL was seen")
	}
	if a := r.Agreement("types"); a >= 1 || a <= 0 {
		t.Errorf("types agreement = %v, want between 0 and 1 (text is right sometimes)", a)
	}
	if a := r.Agreement("bindings"); a != 0 {
		t.Errorf("bindings agreement = %v, want 0", a)
	}
	// An analysis that fails is a disagreement, never a crash.
	r = Compare(schemas[:1], truths[:1], func([]byte, string) ([]byte, error) { return []byte("{"), nil })
	if got := r.Figures["analyses"]; got.Agree != 0 || got.Compared == 0 {
		t.Errorf("analyses = %+v, want all failed", got)
	}
}

func TestNormType(t *testing.T) {
	t.Parallel()
	spelled := map[string]string{"order_status": "order_status", "varchar(64)": "character varying(64)"}
	for in, want := range map[string]string{
		"int4": "integer", "INT8": "bigint", "bool": "boolean", "varchar(100)": "character varying(100)",
		"varchar(64)": "character varying(64)", "timestamptz": "timestamp with time zone",
		"timestamp": "timestamp without time zone", "timestamptz(3)": "timestamp(3) with time zone",
		"decimal(6, 2)": "numeric(6,2)", "char(2)": "character(2)", "text[]": "text[]", "int4[]": "integer[]",
		"float8": "double precision", "order_status": "order_status", "unknown_type": "unknown_type",
	} {
		if got := normType(in, spelled); got != want {
			t.Errorf("normType(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRelateKinds(t *testing.T) {
	t.Parallel()
	enums := map[string]bool{"order_status": true}
	for _, tc := range []struct {
		declared, pg string
		want         int
	}{
		{"string", "character varying", kindsSame},
		{"string", "order_status", kindsSame},
		{"integer", "bigint", kindsSame},
		{"integer", "numeric", kindsClose},
		{"string", "uuid", kindsClose},
		{"string", "integer", kindsDifferent},
		{"integer", "text", kindsDifferent},
		{"string[]", "text[]", kindsSame},
		{"string[]", "jsonb", kindsDifferent},
		{"whatever", "integer", kindsClose},
		{"boolean", "smallint", kindsDifferent},
	} {
		if got := relateKinds(declaredKind(tc.declared), pgKind(tc.pg, enums)); got != tc.want {
			t.Errorf("relateKinds(%s, %s) = %d, want %d", tc.declared, tc.pg, got, tc.want)
		}
	}
}

// A binding agrees when its column is of the kind PostgreSQL gives the
// placeholder (col = ANY (:ids) binds an array to its element's column).
func TestCompareBindings(t *testing.T) {
	t.Parallel()
	schemas, truths := loadAll(t)
	truthful := TruthAnalyser(schemas, truths)
	bindings := map[string][]Binding{
		"orders/lines":            {{Param: "order_id", Table: "order_items", Column: "order_id"}},
		"catalog/products_by_ids": {{Param: "ids", Table: "products", Column: "id"}},
		"customers/set_tier":      {{Param: "tier", Table: "customers", Column: "tier"}},
		"catalog/product_by_sku":  {{Param: "sku", Table: "products", Column: "id"}}, // wrong: text to bigint
	}
	r := Compare(schemas[2:], truths[2:], func(doc []byte, logic string) ([]byte, error) {
		b, err := truthful(doc, logic)
		if err != nil || bindings[logic] == nil {
			return b, err
		}
		a, err := ParseAnalysis(b)
		if err != nil {
			return nil, err
		}
		a.Bindings = bindings[logic]
		return json.Marshal(a)
	})
	if schemas[2].Name != "shop" {
		t.Fatalf("schemas[2] is %s, want shop", schemas[2].Name)
	}
	got := r.Figures["bindings"]
	// Three logics bind right; under each mutated release the bindings
	// are not compared, only problems.
	if got == nil || got.Compared != 4 || got.Agree != 3 {
		t.Errorf("bindings = %+v, want 3 of 4 agreeing", got)
	}
	if len(r.Disagreements) != 1 || r.Disagreements[0].Logic != "catalog/product_by_sku" {
		t.Errorf("disagreements = %+v, want the one wrong binding", r.Disagreements)
	}
}

package mcpserver

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sync/errgroup"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/answer"
	"github.com/hubsnap/hubsnap/store/storetest"
)

// The tools' answers are composed by SQL (package store), their shape is
// declared by the Go types of this package. These tests hold the two
// together: every answer about every table and logic of storetest.Large
// and of the shop fixture
//
//   - decodes into its Go type with unknown fields refused,
//   - validates against the output schema the tool advertises and the
//     whole one inferred from its Go type, and
//   - is, member for member, the JSON that the Go type itself marshals to
//     when it is built here, independently, from the snapshot document;
//     for the answers one statement composes whole (schema_get_table's
//     qTableJSON into answer.Table, logic_get's qLogicJSON into
//     answer.Logic), byte for byte, members in the type's order.
//
// So a change to the shape made in one place only (the SQL, or a field or
// tag of a type) fails here.

func TestContractLarge(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("builds the 10,000-table index; .ci/run runs it without -race")
	}
	checkContract(t, largeStore(t), bigDev, storetest.Release(storetest.Large))
}

func TestContractShop(t *testing.T) {
	st := openStore(t)
	snap := shopSnapshot(t)
	putCurrent(t, st, snap)
	checkContract(t, st, store.Target{Project: "shop", Environment: "dev"}, snap)
}

func checkContract(t *testing.T, st *store.Store, target store.Target, snap *snapshot.Snapshot) {
	srv := New(st, Options{Target: target, Version: "test"})
	t.Cleanup(srv.Shutdown)
	ctx := context.Background()
	schemas := outputSchemas(t, srv)
	check := func(tool string, ans []byte, got, want any) {
		t.Helper()
		if err := contractError(schemas[tool], ans, got, want); err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
	}

	// Every table and logic, on as many goroutines as there are CPUs: the
	// race detector makes each check costly.
	byName := map[string]int{} // tables of a bare name
	for _, tb := range snap.Tables {
		byName[tb.Name]++
	}
	refs := referencesTo(snap)
	as := analyses(t, snap) // analysis_test.go: the analysis in memory
	usedBy := usedByOf(as)
	var items []func() error
	for i := range snap.Tables {
		tb := &snap.Tables[i]
		items = append(items, func() error {
			in := GetTableInput{Table: TableName(tb.Name)}
			if byName[tb.Name] > 1 {
				in.Connection = Name(tb.Connection)
			}
			ans, err := srv.getTable(ctx, &mcp.CallToolRequest{}, in)
			if err == nil {
				key := store.TableRef{Connection: tb.Connection, Name: tb.Name}
				want := wantTable(tb, refs[key])
				want.UsedBy, want.UsedByTotal = usedBy[key], 0
				if n := len(want.UsedBy); n > 100 {
					want.UsedBy, want.UsedByTotal = want.UsedBy[:100], n
				}
				err = contractError(schemas["schema_get_table"], ans, new(answer.Table), want)
				if err == nil {
					err = sameBytes(ans, want)
				}
			}
			if err != nil {
				return fmt.Errorf("schema_get_table %s.%s: %w", tb.Connection, tb.Name, err)
			}
			return nil
		})
	}
	for i := range snap.Logics {
		l := &snap.Logics[i]
		items = append(items, func() error {
			ans, err := srv.getLogic(ctx, &mcp.CallToolRequest{}, GetLogicInput{Name: Name(l.Name)})
			if err == nil {
				want := wantLogic(l)
				if a := as[l.Name]; a != nil {
					want.Analysis = wantAnalysis(a)
				}
				err = contractError(schemas["logic_get"], ans, new(answer.Logic), want)
				if err == nil {
					err = sameBytes(ans, want)
				}
			}
			if err != nil {
				return fmt.Errorf("logic_get %s: %w", l.Name, err)
			}
			return nil
		})
	}
	var g errgroup.Group
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		g.Go(func() error {
			for i := w; i < len(items); i += workers {
				if err := items[i](); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}

	// The lists, a page of 1,000 at a time.
	list := make([]answer.TableRef, len(snap.Tables))
	for i, tb := range snap.Tables {
		list[i] = answer.TableRef{Name: tb.Name, Connection: tb.Connection}
	}
	slices.SortFunc(list, func(a, b answer.TableRef) int {
		return cmp.Or(cmp.Compare(a.Connection, b.Connection), cmp.Compare(a.Name, b.Name))
	})
	for from, cursor := 0, ""; ; {
		ans, err := srv.listTables(ctx, &mcp.CallToolRequest{}, ListTablesInput{Cursor: Cursor(cursor), Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		want := ListTablesOutput{Tables: list[from:min(from+1000, len(list))], Total: len(list)}
		var got ListTablesOutput
		json.Unmarshal(ans, &got)
		want.NextCursor = got.NextCursor // opaque; its paging is tested elsewhere
		if from+1000 < len(list) && got.NextCursor == "" {
			t.Fatalf("schema_list_tables: no nextCursor after %d of %d tables", from+1000, len(list))
		}
		check("schema_list_tables", ans, new(ListTablesOutput), want)
		if got.NextCursor == "" {
			break
		}
		from, cursor = from+1000, got.NextCursor
	}
	names := make([]string, len(snap.Logics))
	for i, l := range snap.Logics {
		names[i] = l.Name
	}
	slices.Sort(names)
	ans, err := srv.listLogics(ctx, &mcp.CallToolRequest{}, ListLogicsInput{Limit: store.MaxPageLimit})
	if err != nil {
		t.Fatal(err)
	}
	check("logic_list", ans, new(ListLogicsOutput), ListLogicsOutput{Logics: names, Total: len(names)})

	ans, err = srv.releaseInfo(ctx, &mcp.CallToolRequest{}, ReleaseInfoInput{})
	if err != nil {
		t.Fatal(err)
	}
	r := snap.Release
	info := ReleaseInfo{ID: r.ID, Project: r.Project, Environment: r.Environment,
		Version: r.Version, CreatedAt: r.CreatedAt, SyncedAt: snap.Origin.SyncedAt, Tables: len(snap.Tables),
		Logics: len(snap.Logics), SchemaProblems: len(wantFindings(snap, nil)), OtherReleases: []answer.ReleaseRef{}}
	if as != nil {
		n := logicProblemsOf(as)
		info.LogicProblems = &n
	}
	check("release_info", ans, new(ReleaseInfo), info)

	checkCheckContract(t, srv, schemas["release_check"], snap)
}

// contractError checks one answer: it decodes strictly into got, it
// validates against schema, and it is the JSON that want marshals to.
func contractError(schema *jsonschema.Resolved, ans []byte, got, want any) error {
	dec := json.NewDecoder(bytes.NewReader(ans))
	dec.DisallowUnknownFields()
	if err := dec.Decode(got); err != nil {
		return fmt.Errorf("%v in %s", err, ans)
	}
	var doc any
	if err := json.Unmarshal(ans, &doc); err != nil {
		return err
	}
	if err := schema.Validate(doc); err != nil {
		return fmt.Errorf("the answer fails the output schema (advertised or whole): %v\n%s", err, ans)
	}
	wantJSON, err := json.Marshal(want)
	if err != nil {
		return err
	}
	var wantDoc any
	if err := json.Unmarshal(wantJSON, &wantDoc); err != nil {
		return err
	}
	if !reflect.DeepEqual(doc, wantDoc) {
		return fmt.Errorf("answer and Go type differ:\nsql: %s\ngo:  %s", ans, wantJSON)
	}
	return nil
}

// sameBytes checks that an answer composed by one SQL statement is, byte
// for byte, what encoding/json writes for want (with <, > and & as they
// are, as the statements write them): the statement writes the members
// of the answer's Go type, in the type's order, and nothing else, so the
// type is the whole of its shape.
func sameBytes(ans []byte, want any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(want); err != nil {
		return err
	}
	if goJSON := bytes.TrimSuffix(buf.Bytes(), []byte("\n")); !bytes.Equal(ans, goJSON) {
		return fmt.Errorf("answer and Go type differ in bytes (order or spelling):\nsql: %s\ngo:  %s", ans, goJSON)
	}
	return nil
}

// outputSchemas returns, for each tool, the output schema it advertises
// and the whole one inferred from its Go type (inferredSchemas), resolved
// as one: an answer must validate against both.
func outputSchemas(t *testing.T, srv *Server) map[string]*jsonschema.Resolved {
	t.Helper()
	cs := connect(t, srv)
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*jsonschema.Resolved{}
	whole := inferredSchemas()
	for _, tool := range list.Tools {
		b, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		both := &jsonschema.Schema{AllOf: []*jsonschema.Schema{&s, whole[tool.Name][1]}}
		if out[tool.Name], err = both.Resolve(nil); err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
	}
	return out
}

// ref is a foreign key of the release seen from the table it names.
type ref struct {
	answer.Reference
	conn string // the referencing table's connection
	pos  int    // the key's position in it
}

// referencesTo returns the foreign keys of the release by the table they
// name, in referencedBy's order: by referencing connection, table and key
// position.
func referencesTo(snap *snapshot.Snapshot) map[store.TableRef][]ref {
	out := map[store.TableRef][]ref{}
	for _, other := range snap.Tables {
		for pos, fk := range other.ForeignKeys {
			to := store.TableRef{Connection: fk.RefConnection, Name: fk.RefTable}
			out[to] = append(out[to], ref{Reference: answer.Reference{Table: other.Name, Name: fk.Name, Columns: fk.Columns,
				ReferencedColumns: fk.RefColumns}, conn: other.Connection, pos: pos})
		}
	}
	for _, refs := range out {
		slices.SortFunc(refs, func(a, b ref) int {
			return cmp.Or(cmp.Compare(a.conn, b.conn), cmp.Compare(a.Table, b.Table), cmp.Compare(a.pos, b.pos))
		})
	}
	return out
}

// wantTable builds the schema_get_table answer of tb, with refs the
// foreign keys that name it, as docs/tools.md describes it.
func wantTable(tb *snapshot.Table, refs []ref) answer.Table {
	out := answer.Table{Name: tb.Name, Connection: tb.Connection, Comment: tb.Comment,
		Columns: make([]answer.Column, len(tb.Columns)), ForeignKeys: []answer.ForeignKey{}}
	types := map[string]string{}
	for i, c := range tb.Columns {
		types[c.Name] = c.Type
		out.Columns[i] = answer.Column{Name: c.Name, Type: c.Type, Nullable: c.Nullable, Comment: c.Comment,
			Default: c.Default, Enum: c.Enum}
	}
	if len(tb.PrimaryKey) > 0 {
		k := &answer.Key{Columns: make([]answer.KeyColumn, len(tb.PrimaryKey))}
		for i, c := range tb.PrimaryKey {
			k.Columns[i] = answer.KeyColumn{Name: c, Type: types[c]}
		}
		if len(k.Columns) == 1 {
			k.Name, k.Type = k.Columns[0].Name, k.Columns[0].Type
		}
		out.PrimaryKey = k
	}
	for _, fk := range tb.ForeignKeys {
		f := answer.ForeignKey{Name: fk.Name, Columns: fk.Columns, OnDelete: fk.OnDelete,
			References: answer.References{Table: fk.RefTable, Columns: fk.RefColumns}}
		if fk.RefConnection != tb.Connection {
			f.References.Connection = fk.RefConnection
		}
		if len(fk.Columns) == 1 {
			f.Column = fk.Columns[0]
		}
		if len(fk.RefColumns) == 1 {
			f.References.Column = fk.RefColumns[0]
		}
		out.ForeignKeys = append(out.ForeignKeys, f)
	}
	for _, ix := range tb.Indexes {
		out.Indexes = append(out.Indexes, answer.Index{Name: ix.Name, Columns: ix.Columns, Unique: ix.Unique})
	}
	// A reference names its connection only when it is not the table's; at
	// most 100 are listed.
	for i, r := range refs {
		if i == 100 {
			out.ReferencedByTotal = len(refs)
			break
		}
		if r.conn != tb.Connection {
			r.Connection = r.conn
		}
		out.ReferencedBy = append(out.ReferencedBy, r.Reference)
	}
	return out
}

// wantLogic builds the logic_get answer of l, as docs/tools.md describes
// it.
func wantLogic(l *snapshot.Logic) answer.Logic {
	out := answer.Logic{Name: l.Name, Description: l.Description, SQL: l.SQL, Params: make([]answer.Param, len(l.Params)),
		Auth: answer.Auth{Required: l.Auth.Required, Roles: l.Auth.Roles}}
	for i, p := range l.Params {
		out.Params[i] = answer.Param{Name: p.Name, Type: p.Type, Required: p.Required}
	}
	if out.Auth.Roles == nil {
		out.Auth.Roles = []string{}
	}
	return out
}

// TestContractDetectsDrift shows the check catches what it is for: an
// answer with a member the Go type lacks, one without a member it has, and
// one with another value.
func TestContractDetectsDrift(t *testing.T) {
	snap := shopSnapshot(t)
	want, _ := json.Marshal(wantTable(&snap.Tables[1], nil))
	for _, drift := range []string{
		strings.Replace(string(want), `"name":`, `"title":"x","name":`, 1),
		strings.Replace(string(want), `,"onDelete":"cascade"`, ``, 1),
		strings.Replace(string(want), `"nullable":false`, `"nullable":true`, 1),
	} {
		if drift == string(want) {
			t.Fatalf("the drift did not apply to %s", want)
		}
		dec := json.NewDecoder(strings.NewReader(drift))
		dec.DisallowUnknownFields()
		var got answer.Table
		if dec.Decode(&got) == nil && jsonEqual(t, []byte(drift), want) {
			t.Errorf("drift not detected: %s", drift)
		}
	}
}

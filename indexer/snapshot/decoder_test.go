package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decTable returns tables: [t] with t's members as raw JSON after a valid
// name and column.
func decTable(members string) map[string]string {
	return map[string]string{"tables": `[{"name":"t","columns":[{"name":"id"}]` + members + `}]`}
}

// decColumns returns tables: [t] with the given columns.
func decColumns(columns string) map[string]string {
	return map[string]string{"tables": `[{"name":"t","columns":[` + columns + `]}]`}
}

func TestDecodeDuplicateKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"top level", []byte(`{"formatVersion":1,"tables":[],"tables":[]}`), "tables: duplicate key (line 1, column 32)"},
		{"table", decDoc(t, map[string]string{"tables": `[` + decUsers + `,{"name":"a","columns":[],"name":"b"}]`}),
			"tables[1].name: duplicate key"},
		{"column", decDoc(t, decTable(`,"primaryKey":["id"],"columns":[]`)), "tables[0].columns: duplicate key"},
		{"release", decDoc(t, map[string]string{"release": `{"id":"r","id":"s"}`}), "release.id: duplicate key"},
		{"dropped field", decDoc(t, map[string]string{"logics": `[{"name":"l","secrets":{"K":"a","K":"b"}}]`}),
			"logics[0].secrets.K: duplicate key"},
		{"dropped key in a table", decDoc(t, decTable(`,"COMMENT":"a","COMMENT":"b"`)), "tables[0].COMMENT: duplicate key"},
		{"escaped the same", decDoc(t, decTable(`,"comment":"a","c\u006fmment":"b"`)), "tables[0].comment: duplicate key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			serr := decError(t, tt.data)
			if !strings.HasPrefix(serr.Problems[0], tt.want) {
				t.Errorf("first problem = %q, want it to start with %q", serr.Problems[0], tt.want)
			}
		})
	}
}

func TestDecodeInvalidUTF8(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"table comment", decDoc(t, decTable(`,"comment":"ok `+"\xff"+`"`)), "tables[0].comment: invalid UTF-8 (line "},
		{"column name", decDoc(t, map[string]string{"tables": `[{"name":"t","columns":[{"name":"a"},{"name":"` + "\xc3(" + `"}]}]`}),
			"tables[0].columns[1].name: invalid UTF-8"},
		{"enum value", decDoc(t, map[string]string{"tables": `[{"name":"t","columns":[{"name":"a","enum":["x","` + "\xed\xa0\x80" + `"]}]}]`}),
			"tables[0].columns[0].enum[1]: invalid UTF-8"},
		{"key", decDoc(t, decTable(`,"comm`+"\xff"+`ent":"a"`)), "tables[0]: invalid UTF-8 in a key"},
		{"top-level key", []byte("{\"formatVersion\":1,\"\xff\":1}"), "document: invalid UTF-8 in a key"},
		{"dropped field", decDoc(t, map[string]string{"logics": `[{"name":"l","secrets":{"K":"` + "\xff" + `"}}]`}),
			"logics[0].secrets.K: invalid UTF-8"},
		{"dropped nested field", decDoc(t, map[string]string{"connections": `[{"name":"main","options":{"list":[1,"` + "\xfe" + `"]}}]`}),
			"connections[0].options.list[1]: invalid UTF-8"},
		{"dropped key", decDoc(t, map[string]string{"logics": `[{"name":"l","secrets":{"` + "\xff" + `K":"v"}}]`}),
			"logics[0].secrets: invalid UTF-8 in a key"},
		{"escaped lone surrogate", decDoc(t, decTable(`,"comment":"\ud800"`)), "invalid JSON at line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			serr := decError(t, tt.data)
			if !strings.HasPrefix(serr.Problems[0], tt.want) {
				t.Errorf("first problem = %q, want it to start with %q", serr.Problems[0], tt.want)
			}
		})
	}
}

func TestDecodeControlCharacters(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		members map[string]string
		want    string
	}{
		{"NUL in a table name", map[string]string{"tables": `[{"name":"us\u0000ers"}]`}, `tables[0].name: "us\x00ers" has a control character`},
		{"raw DEL in a table name", map[string]string{"tables": "[{\"name\":\"users\x7f\"}]"}, `tables[0].name: "users\x7f" has a control character`},
		{"newline in a column name", map[string]string{"tables": `[{"name":"t","columns":[{"name":"a\nb"}]}]`},
			`tables[0].columns[0].name: "a\nb" has a control character`},
		{"tab in a column type", map[string]string{"tables": `[{"name":"t","columns":[{"name":"a","type":"text\t"}]}]`},
			`tables[0].columns[0].type: "text\t" has a control character`},
		{"unit separator in a connection", map[string]string{"connections": `[{"name":"main\u001f"}]`},
			`connections[0].name: "main\x1f" has a control character`},
		{"engine", map[string]string{"connections": `[{"name":"main","engine":"pg\r"}]`}, `connections[0].engine: "pg\r" has a control character`},
		{"table connection", map[string]string{"tables": `[{"name":"t","connection":"a\u0001"}]`}, `tables[0].connection: "a\x01" has a control character`},
		{"foreign key name", decTable(`,"foreignKeys":[{"name":"f\u0000","columns":["id"],"references":{"table":"u","columns":["id"]}}]`),
			`tables[0].foreignKeys[0].name: "f\x00" has a control character`},
		{"referenced table", decTable(`,"foreignKeys":[{"columns":["id"],"references":{"table":"u\u0000","columns":["id"]}}]`),
			`tables[0].foreignKeys[0].references.table: "u\x00" has a control character`},
		{"onDelete", decTable(`,"foreignKeys":[{"columns":["id"],"references":{"table":"u","columns":["id"]},"onDelete":"x\u0000"}]`),
			`tables[0].foreignKeys[0].onDelete: "x\x00" has a control character`},
		{"primary key column", decTable(`,"primaryKey":["id\u0000"]`), `tables[0].primaryKey[0]: "id\x00" has a control character`},
		{"index name", decTable(`,"indexes":[{"name":"i\u0000","columns":["id"]}]`), `tables[0].indexes[0].name: "i\x00" has a control character`},
		{"enum value", map[string]string{"tables": `[{"name":"t","columns":[{"name":"a","enum":["ok","b\u0000"]}]}]`},
			`tables[0].columns[0].enum[1]: "b\x00" has a control character`},
		{"param name", map[string]string{"logics": `[{"name":"l","params":[{"name":"p\u0000"}]}]`}, `logics[0].params[0].name: "p\x00" has a control character`},
		{"param type", map[string]string{"logics": `[{"name":"l","params":[{"name":"p","type":"t\u0000"}]}]`}, `logics[0].params[0].type: "t\x00" has a control character`},
		{"role", map[string]string{"logics": `[{"name":"l","auth":{"roles":["admin","r\u0000"]}}]`}, `logics[0].auth.roles[1]: "r\x00" has a control character`},
		{"logic name", map[string]string{"logics": `[{"name":"a\u0000"}]`}, `logics[0].name: "a\x00": segments may hold only A-Z a-z 0-9 _ . -`},
		{"createdAt", map[string]string{"release": `{"id":"r","project":"p","environment":"e","createdAt":"2026\u0000"}`},
			`release.createdAt: "2026\x00" has a control character`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			decWantProblem(t, decDoc(t, tt.members), tt.want)
		})
	}

	// Comments, descriptions, defaults and SQL are text: line breaks and
	// tabs are theirs to keep.
	snap := decMustDecode(t, decDoc(t, map[string]string{
		"tables": `[{"name":"t","comment":"a\nb","columns":[{"name":"c","comment":"x\ty","default":"'a'\n"}]}]`,
		"logics": `[{"name":"l","description":"line 1\nline 2","sql":"SELECT 1\n\tFROM t"}]`,
	}))
	if got := snap.Tables[0].Comment + snap.Tables[0].Columns[0].Comment + snap.Logics[0].SQL; got != "a\nbx\tySELECT 1\n\tFROM t" {
		t.Errorf("text = %q, want the control characters kept", got)
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// countHandler counts the tables and logics it is handed.
func countHandler(n *int) handler { return &recorder{count: n} }

// recorder is a handler that records what it is handed, and fails on the
// table or logic named fail.
type recorder struct {
	discard
	count *int
	calls []string
	fail  string
}

var errRecorder = errors.New("recorder says no")

func (r *recorder) Release(rel Release) error {
	r.calls = append(r.calls, "release "+rel.ID)
	return nil
}

func (r *recorder) Table(i int, t *Table) error {
	return r.record(fmt.Sprintf("tables[%d] %s", i, t.Name), t.Name)
}

func (r *recorder) Logic(i int, l *Logic) error {
	return r.record(fmt.Sprintf("logics[%d] %s", i, l.Name), l.Name)
}

func (r *recorder) record(call, name string) error {
	if r.count != nil {
		*r.count++
		return nil
	}
	r.calls = append(r.calls, call)
	if name == r.fail {
		return errRecorder
	}
	return nil
}

// TestDecodeTypeErrorPathsIndented checks that a mistyped value is named
// exactly in a compact and an indented document alike.
func TestDecodeTypeErrorPathsIndented(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ doc, want string }{
		{`{"formatVersion":1,"release":{"id":"r","project":"p","environment":"e","version":1e20,"createdAt":"x"}}`,
			"release.version: want an integer, got number 1e20"},
		{`{"formatVersion":1,"release":{"id":"r","project":"p","environment":"e","version":100000000000000000000}}`,
			"release.version: want an integer, got number 100000000000000000000"},
		{`{"formatVersion":1,"tables":[{"name":"a","columns":[{"name":"x"},{"name":"y","nullable":"yes","comment":"c"}]}]}`,
			"tables[0].columns[1].nullable: want a boolean, got string"},
		{`{"formatVersion":1,"tables":[{"name":"a","columns":[{"name":"x","nullable":true},{"name":"y","type":7}]}]}`,
			"tables[0].columns[1].type: want a string, got number"},
		{`{"formatVersion":1,"logics":[{"name":"l"},{"name":"m","params":[{"name":"p","required":"no"}],"sql":"x"}]}`,
			"logics[1].params[0].required: want a boolean, got string"},
		{`{"formatVersion":1,"tables":[{"name":"a","indexes":[{"columns":["x"],"unique":1}]}]}`,
			"tables[0].indexes[0].unique: want a boolean, got number"},
	} {
		var indented bytes.Buffer
		if err := json.Indent(&indented, []byte(tc.doc), "", "    "); err != nil {
			t.Fatal(err)
		}
		for name, doc := range map[string][]byte{"compact": []byte(tc.doc), "indented": indented.Bytes()} {
			serr := decError(t, doc)
			if !strings.HasPrefix(serr.Problems[0], tc.want+" (line ") {
				t.Errorf("%s %s: problems %q, want the first to be %q at its position", name, tc.doc, serr.Problems, tc.want)
			}
		}
	}
}

func TestDecodeStreamAnyOrder(t *testing.T) {
	t.Parallel()
	// Tables before the release, the release before formatVersion, and a
	// foreign key to a table that comes later.
	data := []byte(`{"logics":[` + decLogic + `],"tables":[` + decPosts + `,` + decUsers + `],` +
		`"release":{"id":"rel_1","project":"shop","environment":"dev"},"formatVersion":1}`)
	rec := &recorder{}
	if err := decodeStream(bytes.NewReader(data), rec); err != nil {
		t.Fatal(err)
	}
	want := []string{"logics[0] purchase_item", "tables[0] posts", "tables[1] users", "release rel_1"}
	if diff := cmp.Diff(want, rec.calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	snap := decMustDecode(t, data)
	if got := snap.Tables[0].ForeignKeys[0].RefTable; got != "users" {
		t.Errorf("foreign key to %q, want users", got)
	}

	// The columns of a table that comes later are checked all the same.
	bad := strings.Replace(string(data), `"columns":["id"]}}]`, `"columns":["uid"]}}]`, 1)
	decWantProblem(t, []byte(bad), `tables[0].foreignKeys[0].references.columns[0]: column "uid" is not in table "main.users"`)
}

func TestDecodeStreamHandlerError(t *testing.T) {
	t.Parallel()
	rec := &recorder{fail: "posts"}
	data := decDoc(t, map[string]string{"tables": `[` + decUsers + `,` + decPosts + `,{"name":"later"}]`})
	err := decodeStream(bytes.NewReader(data), rec)
	if err != errRecorder {
		t.Fatalf("err = %v, want the handler's error as is", err)
	}
	want := []string{"release rel_1", "tables[0] users", "tables[1] posts"}
	if diff := cmp.Diff(want, rec.calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

func TestDecodeStreamStopsHandingOverAfterAProblem(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	data := decDoc(t, map[string]string{"tables": `[` + decUsers + `,{"name":""},` + decPosts + `]`})
	serr, ok := errors.AsType[*Error](decodeStream(bytes.NewReader(data), rec))
	if !ok || serr.Problems[0] != "tables[1].name: empty" {
		t.Fatalf("err = %v, want tables[1].name: empty", serr)
	}
	want := []string{"release rel_1", "tables[0] users"}
	if diff := cmp.Diff(want, rec.calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

// TestDecodeStreamReadError checks that a failing reader's error comes
// back as is, not as a problem of the document.
func TestDecodeStreamReadError(t *testing.T) {
	t.Parallel()
	boom := errors.New("disk on fire")
	r := io.MultiReader(strings.NewReader(`{"formatVersion":1,"tables":[`), readerFunc(func([]byte) (int, error) { return 0, boom }))
	if err := decodeStream(r, discard{}); err != boom {
		t.Errorf("err = %v, want %v", err, boom)
	}
}

// handler receives the parts decodeStream pulls from a Decoder: the tests
// check the decoder's order and stops through it.
type handler interface {
	Release(r Release) error
	Origin(o Origin) error
	Connection(i int, c Connection) error
	Table(i int, t *Table) error
	Logic(i int, l *Logic) error
}

// decodeStream pulls every part of the document r holds and hands it to h,
// stopping at h's first error, which it returns as is.
func decodeStream(r io.Reader, h handler) error {
	d := NewDecoder(r)
	defer d.Close()
	for d.Next() {
		p := d.Part()
		var err error
		switch p.Kind {
		case KindRelease:
			err = h.Release(p.Release)
		case KindOrigin:
			err = h.Origin(p.Origin)
		case KindConnection:
			err = h.Connection(p.Index, p.Connection)
		case KindTable:
			err = h.Table(p.Index, p.Table)
		case KindLogic:
			err = h.Logic(p.Index, p.Logic)
		}
		if err != nil {
			return err
		}
	}
	return d.Err()
}

// discard is a handler that keeps nothing.
type discard struct{}

func (discard) Release(Release) error            { return nil }
func (discard) Origin(Origin) error              { return nil }
func (discard) Connection(int, Connection) error { return nil }
func (discard) Table(int, *Table) error          { return nil }
func (discard) Logic(int, *Logic) error          { return nil }

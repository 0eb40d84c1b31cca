package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The helpers in this file start with "dec" so they do not clash with the
// helpers of the package's other test files.

// decShopPath is the shared example snapshot, relative to the package.
const decShopPath = "../../testdata/snapshots/shop.json"

// Tables and logics of the valid document decDoc builds by default.
const (
	decUsers = `{"name":"users","columns":[` +
		`{"name":"id","type":"string","nullable":false},` +
		`{"name":"email","type":"string","nullable":false}],"primaryKey":["id"]}`
	decPosts = `{"name":"posts","columns":[` +
		`{"name":"id","type":"string","nullable":false},` +
		`{"name":"author_id","type":"string","nullable":false}],"primaryKey":["id"],` +
		`"foreignKeys":[{"name":"posts_author_fk","columns":["author_id"],` +
		`"references":{"table":"users","columns":["id"]}}],` +
		`"indexes":[{"name":"posts_author_idx","columns":["author_id"]}]}`
	decLogic = `{"name":"purchase_item","sql":"SELECT 1",` +
		`"params":[{"name":"user_id","type":"string","required":true}],` +
		`"auth":{"required":true,"roles":["authenticated"]}}`
)

// decDefaultMembers are the top-level members of a small valid document.
var decDefaultMembers = map[string]string{
	"formatVersion": `1`,
	"release":       `{"id":"rel_1","project":"shop","environment":"dev","version":1,"createdAt":"2026-11-01T10:00:00Z"}`,
	"connections":   `[{"name":"main","engine":"postgres"}]`,
	"tables":        `[` + decUsers + `,` + decPosts + `]`,
	"logics":        `[` + decLogic + `]`,
}

// decDoc returns a valid snapshot document with the given top-level members
// replaced by raw JSON. A value of "" leaves the member out; members that
// are not in decDefaultMembers are added after the others.
func decDoc(tb testing.TB, members map[string]string) []byte {
	tb.Helper()
	all := map[string]string{}
	for k, v := range decDefaultMembers {
		all[k] = v
	}
	for k, v := range members {
		all[k] = v
	}
	keys := []string{"formatVersion", "release", "connections", "tables", "logics"}
	var extra []string
	for k := range all {
		if !slices.Contains(keys, k) {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	var b strings.Builder
	b.WriteString("{")
	first := true
	for _, k := range append(keys, extra...) {
		v := all[k]
		if v == "" {
			continue
		}
		if !first {
			b.WriteString(",\n")
		}
		first = false
		fmt.Fprintf(&b, "%q: %s", k, v)
	}
	b.WriteString("}")
	return []byte(b.String())
}

// decRelease returns the release member of a default document with one
// field set to value.
func decRelease(field, value string) string {
	r := map[string]string{"id": "rel_1", "project": "shop", "environment": "dev"}
	r[field] = value
	return fmt.Sprintf(`{"id":%q,"project":%q,"environment":%q,"version":1}`, r["id"], r["project"], r["environment"])
}

// decMustDecode decodes data and fails the test on an error.
func decMustDecode(tb testing.TB, data []byte) *Snapshot {
	tb.Helper()
	snap, err := Decode(data)
	if err != nil {
		tb.Fatalf("Decode: %v\ndocument:\n%s", err, data)
	}
	return snap
}

// decMustEncode encodes snap as a release file and fails the test on an
// error.
func decMustEncode(tb testing.TB, snap *Snapshot) []byte {
	tb.Helper()
	data, err := encodeRelease(snap)
	if err != nil {
		tb.Fatalf("encodeRelease: %v", err)
	}
	return data
}

// decError decodes data, which must fail, and returns the error as
// a *Error.
func decError(tb testing.TB, data []byte) *Error {
	tb.Helper()
	snap, err := Decode(data)
	if err == nil {
		tb.Fatalf("Decode succeeded (%d tables, %d logics), want an error\ndocument:\n%s",
			len(snap.Tables), len(snap.Logics), data)
	}
	serr, ok := errors.AsType[*Error](err)
	if !ok {
		tb.Fatalf("Decode error is %T (%v), want *Error", err, err)
	}
	if len(serr.Problems) == 0 {
		tb.Fatalf("Error has no problems")
	}
	return serr
}

// decWantProblem decodes data and checks that it fails with exactly the
// one problem want, and that Error shows it.
func decWantProblem(tb testing.TB, data []byte, want string) {
	tb.Helper()
	serr := decError(tb, data)
	if diff := cmp.Diff([]string{want}, serr.Problems); diff != "" {
		tb.Errorf("Problems (-want +got):\n%s\ndocument:\n%s", diff, data)
	}
	if got := serr.Error(); !strings.Contains(got, want) {
		tb.Errorf("Error() = %q, want it to contain %q", got, want)
	}
}

func TestDecodeValidateRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		members map[string]string
		want    string
	}{
		{
			name:    "formatVersion unknown",
			members: map[string]string{"formatVersion": `2`},
			want:    `formatVersion: unsupported version 2; this hubsnap reads version 1`,
		},
		{
			name:    "formatVersion missing",
			members: map[string]string{"formatVersion": ``},
			want:    `formatVersion: missing (or 0); this hubsnap reads version 1`,
		},
		{
			name:    "release version negative",
			members: map[string]string{"release": `{"id":"rel_1","project":"shop","environment":"dev","version":-1}`},
			want:    `release.version: negative (-1)`,
		},

		// Empty names.
		{
			name:    "empty connection name",
			members: map[string]string{"connections": `[{"name":"main"},{"name":"","engine":"postgres"}]`},
			want:    `connections[1].name: empty`,
		},
		{
			name:    "empty table name",
			members: map[string]string{"tables": `[` + decUsers + `,{"name":"","columns":[{"name":"id"}]}]`},
			want:    `tables[1].name: empty`,
		},
		{
			name: "empty column name",
			members: map[string]string{"tables": `[` + decUsers + `,` +
				`{"name":"tags","columns":[{"name":"id"},{"name":"","type":"string"}]}]`},
			want: `tables[1].columns[1].name: empty`,
		},
		{
			name:    "empty logic name",
			members: map[string]string{"logics": `[` + decLogic + `,{"name":"","sql":"SELECT 1"}]`},
			want:    `logics[1].name: empty`,
		},
		{
			name: "empty param name",
			members: map[string]string{"logics": `[{"name":"l","sql":"SELECT 1",` +
				`"params":[{"name":"a"},{"name":"b"},{"name":"","type":"string"}]}]`},
			want: `logics[0].params[2].name: empty`,
		},

		// Duplicates.
		{
			name:    "duplicate connection",
			members: map[string]string{"connections": `[{"name":"main"},{"name":"main"}]`},
			want:    `connections[1].name: duplicate "main"`,
		},
		{
			name:    "duplicate table",
			members: map[string]string{"tables": `[` + decUsers + `,` + decPosts + `,` + decUsers + `]`},
			want:    `tables[2].name: duplicate "users" in connection "main"`,
		},
		{
			// "main" is the default, so naming it does not make another table.
			name: "duplicate table with the default connection spelt out",
			members: map[string]string{"tables": `[` + decUsers + `,` +
				`{"name":"users","connection":"main","columns":[{"name":"id"}]}]`},
			want: `tables[1].name: duplicate "users" in connection "main"`,
		},
		{
			name: "duplicate table in another connection",
			members: map[string]string{
				"connections": `[{"name":"main"},{"name":"analytics"}]`,
				"tables": `[` + decUsers + `,{"name":"users","connection":"analytics","columns":[{"name":"day"}]},` +
					`{"name":"users","connection":"analytics","columns":[{"name":"day"}]}]`,
			},
			want: `tables[2].name: duplicate "users" in connection "analytics"`,
		},
		{
			name: "duplicate column",
			members: map[string]string{"tables": `[` + decPosts + `,` +
				`{"name":"users","columns":[{"name":"id"},{"name":"email"},{"name":"email","type":"text"}]}]`},
			want: `tables[1].columns[2].name: duplicate "email"`,
		},
		{
			name:    "duplicate logic",
			members: map[string]string{"logics": `[{"name":"admin/users","sql":"SELECT 1"},` + decLogic + `,{"name":"admin/users","sql":"SELECT 2"}]`},
			want:    `logics[2].name: duplicate "admin/users"`,
		},
		{
			name: "duplicate param",
			members: map[string]string{"logics": `[` + decLogic + `,{"name":"l","sql":"SELECT 1",` +
				`"params":[{"name":"id"},{"name":"id","type":"integer"}]}]`},
			want: `logics[1].params[1].name: duplicate "id"`,
		},

		// Key columns.
		{
			name: "primary key column missing",
			members: map[string]string{"tables": `[{"name":"users","columns":[{"name":"id"}],` +
				`"primaryKey":["id","nope"]}]`},
			want: `tables[0].primaryKey[1]: column "nope" is not in table "users"`,
		},
		{
			name: "foreign key column missing",
			members: map[string]string{"tables": `[` + decUsers + `,{"name":"posts","columns":[{"name":"id"}],` +
				`"foreignKeys":[{"columns":["author_id"],"references":{"table":"users","columns":["id"]}}]}]`},
			want: `tables[1].foreignKeys[0].columns[0]: column "author_id" is not in table "posts"`,
		},
		{
			name: "index column missing",
			members: map[string]string{"tables": `[{"name":"users","columns":[{"name":"id"},{"name":"email"}],` +
				`"indexes":[{"name":"ok","columns":["email"]},{"name":"bad","columns":["id","mail"]}]}]`},
			want: `tables[0].indexes[1].columns[1]: column "mail" is not in table "users"`,
		},
		{
			name: "foreign key with more referenced columns",
			members: map[string]string{"tables": `[` + decUsers + `,{"name":"posts","columns":[{"name":"author_id"}],` +
				`"foreignKeys":[{"columns":["author_id"],"references":{"table":"users","columns":["id","email"]}}]}]`},
			want: `tables[1].foreignKeys[0].references.columns: 2 columns, but the foreign key has 1`,
		},
		{
			name: "foreign key with fewer referenced columns",
			members: map[string]string{"tables": `[` + decUsers + `,{"name":"posts","columns":[{"name":"a"},{"name":"b"}],` +
				`"foreignKeys":[{"columns":["a","b"],"references":{"table":"users","columns":["id"]}}]}]`},
			want: `tables[1].foreignKeys[0].references.columns: 1 columns, but the foreign key has 2`,
		},
		{
			name: "referenced column missing from a table in the release",
			members: map[string]string{"tables": `[` + decUsers + `,{"name":"posts","columns":[{"name":"author_id"}],` +
				`"foreignKeys":[{"columns":["author_id"],"references":{"table":"users","columns":["uid"]}}]}]`},
			want: `tables[1].foreignKeys[0].references.columns[0]: column "uid" is not in table "main.users"`,
		},
		{
			name: "referenced column missing from a table in another connection",
			members: map[string]string{
				"connections": `[{"name":"main"},{"name":"analytics"}]`,
				"tables": `[` + decUsers + `,{"name":"rollup","connection":"analytics","columns":[{"name":"user_id"}],` +
					`"foreignKeys":[{"columns":["user_id"],"references":{"table":"users","connection":"main","columns":["user_id"]}}]}]`,
			},
			want: `tables[1].foreignKeys[0].references.columns[0]: column "user_id" is not in table "main.users"`,
		},
		{
			name: "self reference to a missing column",
			members: map[string]string{"tables": `[{"name":"nodes","columns":[{"name":"id"},{"name":"parent_id"}],` +
				`"foreignKeys":[{"columns":["parent_id"],"references":{"table":"nodes","columns":["uid"]}}]}]`},
			want: `tables[0].foreignKeys[0].references.columns[0]: column "uid" is not in table "main.nodes"`,
		},
	}
	// Release names become file names: the same rules for all three.
	for _, field := range []string{"id", "project", "environment"} {
		for _, value := range []string{"../../x", "a/b", "..", ".hidden", "-x", "a b", strings.Repeat("a", 129)} {
			tests = append(tests, struct {
				name    string
				members map[string]string
				want    string
			}{
				name:    fmt.Sprintf("release.%s %.12q", field, value),
				members: map[string]string{"release": decRelease(field, value)},
				// Long values are shortened in the message.
				want: fmt.Sprintf("release.%s: %s is not valid: it must match %s", field, quote(value), NamePattern),
			})
		}
		tests = append(tests, struct {
			name    string
			members map[string]string
			want    string
		}{
			name:    fmt.Sprintf("release.%s empty", field),
			members: map[string]string{"release": decRelease(field, "")},
			want:    fmt.Sprintf("release.%s: empty", field),
		})
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			decWantProblem(t, decDoc(t, tt.members), tt.want)
		})
	}
}

func TestDecodeValidDocument(t *testing.T) {
	t.Parallel()
	// The base document of the rule tests is valid, so each rule test
	// fails for its own reason only.
	decMustDecode(t, decDoc(t, nil))
}

func TestDecodeValidReleaseNames(t *testing.T) {
	t.Parallel()
	for _, value := range []string{"rel_42", "a", "0", "A.b-c_d", "v1.2.3", strings.Repeat("a", 128)} {
		for _, field := range []string{"id", "project", "environment"} {
			t.Run(field+"="+value[:min(len(value), 10)], func(t *testing.T) {
				t.Parallel()
				snap := decMustDecode(t, decDoc(t, map[string]string{"release": decRelease(field, value)}))
				got := map[string]string{"id": snap.Release.ID, "project": snap.Release.Project,
					"environment": snap.Release.Environment}[field]
				if got != value {
					t.Errorf("release.%s = %q, want %q", field, got, value)
				}
			})
		}
	}
}

func TestDecodeSameTableInTwoConnections(t *testing.T) {
	t.Parallel()
	data := decDoc(t, map[string]string{
		"connections": `[{"name":"main"},{"name":"analytics"}]`,
		"tables": `[` + decUsers + `,` +
			`{"name":"users","connection":"analytics","columns":[{"name":"day"},{"name":"user_id"}],` +
			`"foreignKeys":[{"columns":["user_id"],"references":{"table":"users","connection":"main","columns":["id"]}}]}]`,
	})
	snap := decMustDecode(t, data)
	var got []struct{ Connection, Name string }
	for _, tb := range snap.Tables {
		got = append(got, struct{ Connection, Name string }{Connection: tb.Connection, Name: tb.Name})
	}
	want := []struct{ Connection, Name string }{{Connection: "main", Name: "users"}, {Connection: "analytics", Name: "users"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tables (-want +got):\n%s", diff)
	}
}

func TestDecodeForeignKeyOutsideRelease(t *testing.T) {
	t.Parallel()
	// A referenced table that is not in the release is kept as is, even
	// with columns that could not be checked.
	data := decDoc(t, map[string]string{
		"tables": `[{"name":"posts","columns":[{"name":"id"},{"name":"author_id"}],` +
			`"foreignKeys":[{"name":"posts_author_fk","columns":["author_id"],` +
			`"references":{"table":"accounts","connection":"auth","columns":["no_such_column"]},"onDelete":"cascade"},` +
			// Same name as a table in the release, but another connection.
			`{"columns":["id"],"references":{"table":"posts","connection":"archive","columns":["legacy_id"]}}]}]`,
	})
	snap := decMustDecode(t, data)
	want := []ForeignKey{
		{Name: "posts_author_fk", Columns: []string{"author_id"}, RefConnection: "auth", RefTable: "accounts",
			RefColumns: []string{"no_such_column"}, OnDelete: "cascade"},
		{Columns: []string{"id"}, RefConnection: "archive", RefTable: "posts", RefColumns: []string{"legacy_id"}},
	}
	if diff := cmp.Diff(want, snap.Tables[0].ForeignKeys); diff != "" {
		t.Errorf("foreign keys (-want +got):\n%s", diff)
	}
}

func TestCheckLogicName(t *testing.T) {
	t.Parallel()
	valid := []string{"purchase_item", "admin/users", "a.b/c-d_e", "a", "A-Z/0-9/x.y", "...", "a/b/c/d"}
	for _, name := range valid {
		if why := LogicNameProblem(name); why != "" {
			t.Errorf("LogicNameProblem(%q) = %q, want valid", name, why)
		}
	}
	invalid := []struct{ name, reason string }{
		{"", "empty"},
		{"/a", "empty segment"},
		{"a/", "empty segment"},
		{"a//b", "empty segment"},
		{"/", "empty segment"},
		{"a/../b", `".." segment`},
		{"..", `".." segment`},
		{"../a", `".." segment`},
		{"a/./b", `"." segment`},
		{".", `"." segment`},
		{"a b", "segments may hold only"},
		{`a\b`, "segments may hold only"},
		{"ü", "segments may hold only"},
		{"a/b\n", "segments may hold only"},
		{"a:b", "segments may hold only"},
	}
	for _, tt := range invalid {
		if why := LogicNameProblem(tt.name); !strings.Contains(why, tt.reason) {
			t.Errorf("LogicNameProblem(%q) = %q, want it to contain %q", tt.name, why, tt.reason)
		}
	}
}

func TestDecodeLogicNames(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"purchase_item", "admin/users", "a.b/c-d_e"} {
		t.Run("valid "+name, func(t *testing.T) {
			t.Parallel()
			logic := fmt.Sprintf(`{"name":%q,"sql":"SELECT 1"}`, name)
			snap := decMustDecode(t, decDoc(t, map[string]string{"logics": `[` + logic + `]`}))
			if got := snap.Logics[0].Name; got != name {
				t.Errorf("logic name = %q, want %q", got, name)
			}
		})
	}
	invalid := []struct{ name, reason string }{
		{"", `empty`},
		{"/a", `"/a" has an empty segment (no leading, trailing or double /)`},
		{"a/", `"a/" has an empty segment (no leading, trailing or double /)`},
		{"a//b", `"a//b" has an empty segment (no leading, trailing or double /)`},
		{"a/../b", `"a/../b" has a ".." segment`},
		{"..", `".." has a ".." segment`},
		{"a/./b", `"a/./b" has a "." segment`},
		{"a b", `"a b": segments may hold only A-Z a-z 0-9 _ . -`},
		{`a\b`, `"a\\b": segments may hold only A-Z a-z 0-9 _ . -`},
		{"ü", `"ü": segments may hold only A-Z a-z 0-9 _ . -`},
	}
	for _, tt := range invalid {
		t.Run(fmt.Sprintf("invalid %q", tt.name), func(t *testing.T) {
			t.Parallel()
			// The bad logic comes second so the index in the path counts.
			logics := fmt.Sprintf(`[%s,{"name":%q,"sql":"SELECT 1"}]`, decLogic, tt.name)
			decWantProblem(t, decDoc(t, map[string]string{"logics": logics}), "logics[1].name: "+tt.reason)
		})
	}
}

func TestDecodeReportsAllProblems(t *testing.T) {
	t.Parallel()
	data := decDoc(t, map[string]string{
		"formatVersion": `2`,
		"release":       `{"id":"../../x","project":"","environment":"dev"}`,
		"tables": `[{"name":"users","columns":[{"name":"id"},{"name":"id"}],"primaryKey":["uid"]},` +
			`{"name":"users","columns":[{"name":"x"}]}]`,
		"logics": `[{"name":"a//b","params":[{"name":"p"},{"name":"p"}]}]`,
	})
	serr := decError(t, data)
	want := []string{
		`formatVersion: unsupported version 2; this hubsnap reads version 1`,
		`release.id: "../../x" is not valid: it must match ` + NamePattern,
		`release.project: empty`,
		// One table at a time, in the order of the document.
		`tables[0].columns[1].name: duplicate "id"`,
		`tables[0].primaryKey[0]: column "uid" is not in table "users"`,
		`tables[1].name: duplicate "users" in connection "main"`,
		`logics[0].name: "a//b" has an empty segment (no leading, trailing or double /)`,
		`logics[0].params[1].name: duplicate "p"`,
	}
	if diff := cmp.Diff(want, serr.Problems); diff != "" {
		t.Errorf("Problems (-want +got):\n%s", diff)
	}
	if serr.More {
		t.Errorf("More = true, want false")
	}
	got := serr.Error()
	wantMsg := "invalid snapshot: " + want[0] + " (and 7 more problems)"
	if got != wantMsg {
		t.Errorf("Error() = %q, want %q", got, wantMsg)
	}
}

func TestDecodeErrorMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  Error
		want string
	}{
		{Error{Problems: []string{"a: x"}}, "invalid snapshot: a: x"},
		{Error{Problems: []string{"a: x", "b: y"}}, "invalid snapshot: a: x (and 1 more problem)"},
		{Error{Problems: []string{"a: x", "b: y", "c: z"}}, "invalid snapshot: a: x (and 2 more problems)"},
		{Error{Problems: []string{"a: x", "b: y"}, More: true}, "invalid snapshot: a: x (and 1+ more problems)"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestDecodeCapsProblems(t *testing.T) {
	t.Parallel()
	var logics []string
	for range maxProblems + 10 {
		logics = append(logics, `{"name":"","sql":"SELECT 1"}`)
	}
	serr := decError(t, decDoc(t, map[string]string{"logics": "[" + strings.Join(logics, ",") + "]"}))
	if got, want := len(serr.Problems), maxProblems; got != want {
		t.Errorf("len(Problems) = %d, want %d", got, want)
	}
	if !serr.More {
		t.Errorf("More = false, want true")
	}
	if got, want := serr.Error(), fmt.Sprintf("(and %d+ more problems)", maxProblems-1); !strings.Contains(got, want) {
		t.Errorf("Error() = %q, want it to contain %q", got, want)
	}
}

func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	shop, err := os.ReadFile(decShopPath)
	if err != nil {
		t.Fatal(err)
	}
	column := func(c string) []byte {
		return decDoc(t, map[string]string{"tables": `[{"name":"t","columns":[{"name":"id"},` + c + `]}]`})
	}
	tests := []struct {
		name string
		data []byte
		want []string // each must appear in the message
	}{
		{"array", []byte(`[{"formatVersion":1}]`), []string{"document: want a JSON object, got an array"}},
		{"null", []byte(`null`), []string{"document: want a JSON object, got null"}},
		{"string", []byte(`"snapshot"`), []string{"document: want a JSON object, got a string"}},
		{"number", []byte(`1`), []string{"document: want a JSON object, got a number"}},
		{"empty input", []byte(``), []string{"ends early"}},
		{"only spaces", []byte(" \n\t"), []string{"ends early"}},
		{
			"syntax error",
			[]byte("{\n  \"formatVersion\": 1,\n  \"tables\": [}\n}"),
			[]string{"invalid JSON at line 3, column 14", "invalid character '}'"},
		},
		{
			"syntax error in a key",
			[]byte("{\n  formatVersion: 1}"),
			[]string{"invalid JSON at line 2, column 3"},
		},
		{"truncated", shop[:len(shop)/2], []string{"ends early (truncated?)"}},
		{"truncated after the brace", []byte(`{`), []string{"ends early"}},
		{"truncated inside a table", []byte(`{"formatVersion":1,"tables":[{"name":"t","col`), []string{"ends early"}},
		{"trailing object", append(decDoc(t, nil), []byte(` {}`)...), []string{"unexpected data after the end of the JSON object"}},
		{"trailing garbage", append(decDoc(t, nil), []byte("\nx")...), []string{"unexpected data after the end of the JSON object"}},
		{"trailing brace", append(decDoc(t, nil), '}'), []string{"unexpected data after the end of the JSON object"}},
		{
			"nullable as a string",
			decDoc(t, map[string]string{"tables": `[{"name":"t","columns":[{"name":"id","nullable":"yes"}]}]`}),
			[]string{"tables[0]", "nullable", "want a boolean"},
		},
		{
			"nullable in the second table",
			decDoc(t, map[string]string{"tables": `[` + decUsers + `,{"name":"t","columns":[{"name":"id","nullable":1}]}]`}),
			[]string{"tables[1]", "nullable", "want a boolean"},
		},
		{"enum as an object", column(`{"name":"c","enum":{"a":"PLANTED"}}`), []string{"tables[0]", "enum", "want an array, got object"}},
		{"enum as an array of arrays", column(`{"name":"c","enum":[["a"]]}`), []string{"tables[0]", "want a string, number or boolean", "array"}},
		{"enum element an object", column(`{"name":"c","enum":["a",{"b":1}]}`), []string{"tables[0]", "want a string, number or boolean", "object"}},
		{"enum as a string", column(`{"name":"c","enum":"a"}`), []string{"tables[0]", "enum", "want an array"}},
		{"default as an object", column(`{"name":"c","default":{"expr":"now()"}}`), []string{"tables[0]", "want a string, number or boolean", "object"}},
		{"default as an array", column(`{"name":"c","default":[1]}`), []string{"tables[0]", "want a string, number or boolean", "array"}},
		{"formatVersion as a string", decDoc(t, map[string]string{"formatVersion": `"1"`}), []string{"formatVersion: want an integer, got string"}},
		{"formatVersion as a fraction", decDoc(t, map[string]string{"formatVersion": `1.5`}), []string{"formatVersion", "want an integer"}},
		{"release as an array", decDoc(t, map[string]string{"release": `[]`}), []string{"release: want an object, got array"}},
		{"version as a string", decDoc(t, map[string]string{"release": `{"id":"r","project":"p","environment":"e","version":"42"}`}), []string{"release.version: want an integer, got string"}},
		{"tables as an object", decDoc(t, map[string]string{"tables": `{"users":{}}`}), []string{"tables: want an array, got an object"}},
		{"logics as a string", decDoc(t, map[string]string{"logics": `"purchase_item"`}), []string{"logics: want an array, got a string"}},
		{"table as a string", decDoc(t, map[string]string{"tables": `[` + decUsers + `,"posts"]`}), []string{"tables[1]: want an object, got string"}},
		{"columns as an object", decDoc(t, map[string]string{"tables": `[{"name":"t","columns":{}}]`}), []string{"tables[0]", "columns", "want an array"}},
		{"auth roles as a string", decDoc(t, map[string]string{"logics": `[{"name":"l","auth":{"roles":"admin"}}]`}), []string{"logics[0]", "roles", "want an array"}},
		{"required as a string", decDoc(t, map[string]string{"logics": `[{"name":"l","params":[{"name":"p","required":"yes"}]}]`}), []string{"logics[0]", "required", "want a boolean"}},
		{"connection name as a number", decDoc(t, map[string]string{"connections": `[{"name":1}]`}), []string{"connections[0]", "name", "want a string"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			serr := decError(t, tt.data)
			got := serr.Error()
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("Error() = %q, want it to contain %q", got, w)
				}
			}
		})
	}
}

// TestDecodeErrorsQuoteNoSecrets checks that a rejected value does not show
// up in the message: a mistyped field may well hold a secret.
func TestDecodeErrorsQuoteNoSecrets(t *testing.T) {
	t.Parallel()
	data := decDoc(t, map[string]string{"tables": `[{"name":"t","columns":[{"name":"c","default":{"v":"PLANTED_ERR_SECRET"}}]}]`})
	if got := decError(t, data).Error(); strings.Contains(got, "PLANTED_ERR_SECRET") {
		t.Errorf("Error() = %q, shows the rejected value", got)
	}
}

func TestDecodeScalars(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		defaultJSON string
		enumJSON    string
		wantDefault string
		wantEnum    []string
	}{
		{"string", `"'draft'"`, `["draft","published"]`, "'draft'", []string{"draft", "published"}},
		{"zero", `0`, `[0,1,2]`, "0", []string{"0", "1", "2"}},
		{"true", `true`, `[true,false]`, "true", []string{"true", "false"}},
		{"false", `false`, ``, "false", nil},
		{"fraction", `1.50`, `[-2.5e3]`, "1.50", []string{"-2.5e3"}},
		{"negative", `-7`, `["a",1,true]`, "-7", []string{"a", "1", "true"}},
		{"null", `null`, `null`, "", nil},
		{"empty string", `""`, `[""]`, "", []string{""}},
		// A valid JSON number too big for a float64 is still a valid
		// default; it is kept as text like any other number.
		{"huge number", `1e400`, `[1e400]`, "1e400", []string{"1e400"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			col := `{"name":"c","type":"x","default":` + tt.defaultJSON
			if tt.enumJSON != "" {
				col += `,"enum":` + tt.enumJSON
			}
			col += `}`
			snap := decMustDecode(t, decDoc(t, map[string]string{"tables": `[{"name":"t","columns":[` + col + `]}]`}))
			got := snap.Tables[0].Columns[0]
			if got.Default != tt.wantDefault {
				t.Errorf("Default = %q, want %q", got.Default, tt.wantDefault)
			}
			if diff := cmp.Diff(tt.wantEnum, got.Enum); diff != "" {
				t.Errorf("Enum (-want +got):\n%s", diff)
			}
			// Kept as text, the value survives a release file unchanged.
			again := decMustDecode(t, decMustEncode(t, snap)).Tables[0].Columns[0]
			if diff := cmp.Diff(got, again); diff != "" {
				t.Errorf("column after a round trip (-before +after):\n%s", diff)
			}
		})
	}
}

// decPlanted is a document with secrets and unknown fields planted at every
// level. Every string starting with PLANTED must be dropped; every other
// value is named by the format and must survive.
const decPlanted = `{
  "formatVersion": 1,
  "PLANTED_doc_key": "PLANTED_doc_value",
  "password": "PLANTED_doc_password",
  "release": {"id": "rel_7", "project": "shop", "environment": "prod", "version": 7,
              "createdAt": "2026-11-02T09:00:00Z",
              "PLANTED_release_key": {"nested": "PLANTED_release_value"}},
  "origin": {"source": "hub", "digest": "sha256:abc", "syncedAt": "2026-11-02T10:00:00Z",
             "PLANTED_origin_key": "PLANTED_origin_value"},
  "connections": [
    {"name": "main", "engine": "postgres", "url": "postgres://app:PLANTED_url_password@db/shop",
     "password": "PLANTED_conn_password", "user": "PLANTED_conn_user",
     "PLANTED_conn_key": ["PLANTED_conn_value"]},
    {"name": "analytics", "engine": "clickhouse",
     "url": "clickhouse://PLANTED_url_user:PLANTED_url_password2@ch/stats"}
  ],
  "tables": [
    {"name": "users", "comment": "Accounts", "PLANTED_table_key": "PLANTED_table_value",
     "columns": [
       {"name": "id", "type": "uuid", "nullable": false, "PLANTED_column_key": "PLANTED_column_value"},
       {"name": "email", "type": "text", "nullable": true, "comment": "lower-cased",
        "default": "''", "enum": ["a@example.com", 1, true], "secret": "PLANTED_column_secret"}
     ],
     "primaryKey": ["id"],
     "indexes": [{"name": "users_email_key", "columns": ["email"], "unique": true,
                  "where": "PLANTED_index_where", "PLANTED_index_key": 1}]},
    {"name": "visits", "connection": "analytics",
     "columns": [{"name": "user_id", "type": "uuid", "nullable": false}],
     "foreignKeys": [{"name": "visits_user_fk", "columns": ["user_id"], "onDelete": "cascade",
                      "references": {"table": "users", "connection": "main", "columns": ["id"],
                                     "PLANTED_references_key": "PLANTED_references_value"},
                      "PLANTED_fk_key": "PLANTED_fk_value"}]}
  ],
  "logics": [
    {"name": "billing/charge", "description": "Charge a card", "sql": "SELECT charge(:amount)",
     "params": [{"name": "amount", "type": "integer", "required": true,
                 "default": "PLANTED_param_default", "PLANTED_param_key": "PLANTED_param_value"}],
     "auth": {"required": true, "roles": ["billing"], "token": "PLANTED_auth_token",
              "PLANTED_auth_key": "PLANTED_auth_value"},
     "secrets": {"PLANTED_SECRET_NAME": "sk_live_PLANTED_secret_value"},
     "env": {"STRIPE_KEY": "PLANTED_env_value"},
     "PLANTED_logic_key": "PLANTED_logic_value"}
  ]
}`

func TestDecodeSanitizes(t *testing.T) {
	t.Parallel()
	data := []byte(decPlanted)
	markers := decMarkers(t, data)

	snap := decMustDecode(t, data)
	encoded := decMustEncode(t, snap)
	for _, m := range markers {
		if bytes.Contains(encoded, []byte(m)) {
			t.Errorf("release file holds %q:\n%s", m, encoded)
		}
		if dump := fmt.Sprintf("%#v", snap); strings.Contains(dump, m) {
			t.Errorf("snapshot holds %q", m)
		}
	}
	// Field names of the format only: no url, password or secrets key.
	for _, key := range []string{`"url"`, `"password"`, `"secrets"`, `"secret"`, `"token"`, `"user"`, `"where"`, `"env"`} {
		if bytes.Contains(encoded, []byte(key)) {
			t.Errorf("release file holds the key %s:\n%s", key, encoded)
		}
	}

	want := &Snapshot{
		Release: Release{ID: "rel_7", Project: "shop", Environment: "prod", Version: 7,
			CreatedAt: "2026-11-02T09:00:00Z"},
		Origin:      Origin{Source: "hub", Digest: "sha256:abc", SyncedAt: "2026-11-02T10:00:00Z"},
		Connections: []Connection{{Name: "main", Engine: "postgres"}, {Name: "analytics", Engine: "clickhouse"}},
		Tables: []Table{
			{
				Name: "users", Connection: "main", Comment: "Accounts",
				Columns: []Column{
					{Name: "id", Type: "uuid", Nullable: false},
					{Name: "email", Type: "text", Nullable: true, Comment: "lower-cased", Default: "''",
						Enum: []string{"a@example.com", "1", "true"}},
				},
				PrimaryKey: []string{"id"},
				Indexes:    []Index{{Name: "users_email_key", Columns: []string{"email"}, Unique: true}},
			},
			{
				Name: "visits", Connection: "analytics",
				Columns: []Column{{Name: "user_id", Type: "uuid", Nullable: false}},
				ForeignKeys: []ForeignKey{{Name: "visits_user_fk", Columns: []string{"user_id"},
					RefConnection: "main", RefTable: "users", RefColumns: []string{"id"}, OnDelete: "cascade"}},
			},
		},
		Logics: []Logic{{
			Name: "billing/charge", Description: "Charge a card", SQL: "SELECT charge(:amount)",
			Params: []Param{{Name: "amount", Type: "integer", Required: true}},
			Auth:   Auth{Required: true, Roles: []string{"billing"}},
		}},
	}
	if diff := cmp.Diff(want, snap); diff != "" {
		t.Errorf("Decode (-want +got):\n%s", diff)
	}
	// What the release file holds is all there is: it decodes to the same.
	if diff := cmp.Diff(want, decMustDecode(t, encoded)); diff != "" {
		t.Errorf("Decode of the release file (-want +got):\n%s", diff)
	}
}

func TestDecodeSanitizesShop(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(decShopPath)
	if err != nil {
		t.Fatal(err)
	}
	markers := decMarkers(t, data)
	markers = append(markers, "sk_live_", "PAYMENT_API_KEY", "db.internal", "postgres://", "clickhouse://")
	encoded := decMustEncode(t, decMustDecode(t, data))
	for _, m := range markers {
		if bytes.Contains(encoded, []byte(m)) {
			t.Errorf("release file holds %q", m)
		}
	}
}

// decMarkers returns the planted strings in data: every run of letters,
// digits and underscores that contains "PLANTED".
func decMarkers(tb testing.TB, data []byte) []string {
	tb.Helper()
	words := strings.FieldsFunc(string(data), func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
	var out []string
	for _, w := range words {
		if strings.Contains(w, "PLANTED") && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		tb.Fatal("no planted markers in the document")
	}
	return out
}

func TestDecodeDefaults(t *testing.T) {
	t.Parallel()
	data := decDoc(t, map[string]string{
		"connections": `[{"name":"main"},{"name":"analytics"}]`,
		"origin":      `{"source":"import","digest":"sha256:feed","syncedAt":"2026-01-01T00:00:00Z"}`,
		"tables": `[` +
			`{"name":"users","columns":[{"name":"id","type":"uuid","nullable":false},{"name":"nick","type":"text"}],` +
			`"primaryKey":["id"]},` +
			`{"name":"posts","columns":[{"name":"author_id","nullable":true}],` +
			`"foreignKeys":[{"columns":["author_id"],"references":{"table":"users","columns":["id"]}}]},` +
			`{"name":"rollup","connection":"analytics","columns":[{"name":"user_id"}],` +
			// Defaults to analytics: "users" is not in that connection, so the
			// missing column is not checked.
			`"foreignKeys":[{"columns":["user_id"],"references":{"table":"users","columns":["uid"]}}]}]`,
		"logics": `[{"name":"open","sql":"SELECT 1"},{"name":"closed","sql":"SELECT 2","auth":{"required":true}}]`,
	})
	snap := decMustDecode(t, data)

	want := &Snapshot{
		Release: Release{ID: "rel_1", Project: "shop", Environment: "dev", Version: 1,
			CreatedAt: "2026-11-01T10:00:00Z"},
		// Decode keeps the document's origin; Sync and Import overwrite it.
		Origin:      Origin{Source: "import", Digest: "sha256:feed", SyncedAt: "2026-01-01T00:00:00Z"},
		Connections: []Connection{{Name: "main"}, {Name: "analytics"}},
		Tables: []Table{
			{
				Name: "users", Connection: "main",
				Columns: []Column{
					{Name: "id", Type: "uuid", Nullable: false},
					// A missing nullable means nullable, as in SQL.
					{Name: "nick", Type: "text", Nullable: true},
				},
				PrimaryKey: []string{"id"},
			},
			{
				Name: "posts", Connection: "main",
				Columns: []Column{{Name: "author_id", Nullable: true}},
				ForeignKeys: []ForeignKey{{Columns: []string{"author_id"},
					RefConnection: "main", RefTable: "users", RefColumns: []string{"id"}}},
			},
			{
				Name: "rollup", Connection: "analytics",
				Columns: []Column{{Name: "user_id", Nullable: true}},
				ForeignKeys: []ForeignKey{{Columns: []string{"user_id"},
					RefConnection: "analytics", RefTable: "users", RefColumns: []string{"uid"}}},
			},
		},
		Logics: []Logic{
			{Name: "open", SQL: "SELECT 1", Auth: Auth{Required: false}},
			{Name: "closed", SQL: "SELECT 2", Auth: Auth{Required: true}},
		},
	}
	if diff := cmp.Diff(want, snap); diff != "" {
		t.Errorf("Decode (-want +got):\n%s", diff)
	}
}

func TestDecodeWithoutOrigin(t *testing.T) {
	t.Parallel()
	snap := decMustDecode(t, decDoc(t, nil))
	if diff := cmp.Diff(Origin{}, snap.Origin); diff != "" {
		t.Errorf("Origin (-want +got):\n%s", diff)
	}
}

func TestDecodeKeysMatchExactly(t *testing.T) {
	t.Parallel()
	// Keys match the format's names exactly: a case variant is a field the
	// format does not name, dropped like any other.
	data := decDoc(t, map[string]string{
		"Tables": `[{"name":"ghost","columns":[{"name":"id"}]}]`,
		"tables": `[{"name":"users","COMMENT":"PLANTED_upper","Comment":"PLANTED_title",` +
			`"columns":[{"name":"id","Type":"PLANTED_type","NULLABLE":false}]}]`,
		"logics": `[{"name":"l","sql":"SELECT 1","Description":"PLANTED_description","SQL":"PLANTED_sql",` +
			`"auth":{"Required":true,"ROLES":["PLANTED_role"]}}]`,
	})
	snap := decMustDecode(t, data)
	want := []Table{{Name: "users", Connection: "main", Columns: []Column{{Name: "id", Nullable: true}}}}
	if diff := cmp.Diff(want, snap.Tables); diff != "" {
		t.Errorf("tables (-want +got):\n%s", diff)
	}
	wantLogics := []Logic{{Name: "l", SQL: "SELECT 1"}}
	if diff := cmp.Diff(wantLogics, snap.Logics); diff != "" {
		t.Errorf("logics (-want +got):\n%s", diff)
	}

	// At the top level too: "FormatVersion" is not "formatVersion".
	data = []byte(`{"FormatVersion":1,"formatVersion":1,"RELEASE":{"ID":"x"},` +
		`"release":{"id":"rel_1","project":"shop","environment":"dev","ID":"other"}}`)
	if got := decMustDecode(t, data).Release.ID; got != "rel_1" {
		t.Errorf("release id = %q, want rel_1", got)
	}
	decWantProblem(t, []byte(`{"FormatVersion":1,"release":{"id":"rel_1","project":"shop","environment":"dev"}}`),
		"formatVersion: missing (or 0); this hubsnap reads version 1")
}

func TestDecodeRoundTrip(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob("../../testdata/snapshots/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(paths, filepath.FromSlash(decShopPath)) {
		t.Fatalf("%s not found among %v", decShopPath, paths)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			first := decMustDecode(t, data)
			encoded := decMustEncode(t, first)
			second := decMustDecode(t, encoded)
			if diff := cmp.Diff(first, second); diff != "" {
				t.Errorf("Decode(encodeRelease(Decode(doc))) differs (-first +second):\n%s", diff)
			}
			if again := decMustEncode(t, first); !bytes.Equal(encoded, again) {
				t.Errorf("encodeRelease is not deterministic:\n%s\n----\n%s", encoded, again)
			}
			if again := decMustEncode(t, second); !bytes.Equal(encoded, again) {
				t.Errorf("a release file does not encode to itself:\n%s\n----\n%s", encoded, again)
			}
		})
	}
}

// TestDecodeRoundTripEmptyLists covers documents that spell empty lists
// differently: a release file must decode to the same snapshot as the
// document it was written from.
func TestDecodeRoundTripEmptyLists(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		members map[string]string
	}{
		{"logic without auth", map[string]string{"logics": `[{"name":"l","sql":"SELECT 1"}]`}},
		{"auth without roles", map[string]string{"logics": `[{"name":"l","auth":{"required":true}}]`}},
		{"auth with null roles", map[string]string{"logics": `[{"name":"l","auth":{"required":true,"roles":null}}]`}},
		{"auth with no roles", map[string]string{"logics": `[{"name":"l","auth":{"roles":[]}}]`}},
		{"empty primary key", map[string]string{"tables": `[{"name":"t","columns":[{"name":"id"}],"primaryKey":[]}]`}},
		{"null primary key", map[string]string{"tables": `[{"name":"t","columns":[{"name":"id"}],"primaryKey":null}]`}},
		{"empty enum", map[string]string{"tables": `[{"name":"t","columns":[{"name":"id","enum":[]}]}]`}},
		{"null enum", map[string]string{"tables": `[{"name":"t","columns":[{"name":"id","enum":null}]}]`}},
		{"empty params", map[string]string{"logics": `[{"name":"l","params":[],"auth":{"roles":["a"]}}]`}},
		{"null lists", map[string]string{"connections": `null`, "tables": `null`, "logics": `null`}},
		{"empty lists", map[string]string{"connections": `[]`, "tables": `[]`, "logics": `[]`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			first := decMustDecode(t, decDoc(t, tt.members))
			second := decMustDecode(t, decMustEncode(t, first))
			if diff := cmp.Diff(first, second); diff != "" {
				t.Errorf("Decode(encodeRelease(Decode(doc))) differs (-first +second):\n%s", diff)
			}
		})
	}
}

func TestDecodeEmptyListsAreNil(t *testing.T) {
	t.Parallel()
	// An empty list is nil in the model, whether the document wrote [],
	// null or nothing.
	for _, empty := range []string{`[]`, `null`, ``} {
		t.Run(fmt.Sprintf("%q", empty), func(t *testing.T) {
			t.Parallel()
			member := func(key string) string {
				if empty == "" {
					return ""
				}
				return fmt.Sprintf(",%q:%s", key, empty)
			}
			data := decDoc(t, map[string]string{
				"tables": `[{"name":"t"` + member("columns") + member("primaryKey") + member("foreignKeys") +
					member("indexes") + `},{"name":"u","columns":[{"name":"c"` + member("enum") + `}]}]`,
				"logics": `[{"name":"l"` + member("params") + `,"auth":{"required":true` + member("roles") + `}}]`,
			})
			snap := decMustDecode(t, data)
			if tbl := snap.Tables[0]; tbl.Columns != nil || tbl.PrimaryKey != nil || tbl.ForeignKeys != nil || tbl.Indexes != nil {
				t.Errorf("table = %#v, want nil lists", tbl)
			}
			if got := snap.Tables[1].Columns[0].Enum; got != nil {
				t.Errorf("Enum = %#v, want nil", got)
			}
			if l := snap.Logics[0]; l.Params != nil || l.Auth.Roles != nil {
				t.Errorf("logic = %#v, want nil lists", l)
			}
			snap = decMustDecode(t, decDoc(t, map[string]string{"connections": empty, "tables": empty, "logics": empty}))
			if snap.Connections != nil || snap.Tables != nil || snap.Logics != nil {
				t.Errorf("connections, tables, logics = %#v, %#v, %#v, want nil",
					snap.Connections, snap.Tables, snap.Logics)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	paths, err := filepath.Glob("../../testdata/snapshots/*.json")
	if err != nil {
		f.Fatal(err)
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add(decDoc(f, nil))
	f.Add([]byte(decPlanted))
	for _, s := range []string{
		``, `{}`, `[]`, `null`, `"x"`, `{"formatVersion":1}`, `{"formatVersion":2}`, `{"formatVersion":1} {}`,
		`{"formatVersion":1,"release":{"id":"r","project":"p","environment":"e"}}`,
		`{"formatVersion":1,"release":{"id":"r","project":"p","environment":"e"},` +
			`"tables":[{"name":"t","columns":[{"name":"c","default":0,"enum":[1,"a",true,null]}],"primaryKey":["c"],` +
			`"foreignKeys":[{"columns":["c"],"references":{"table":"u","columns":["x"]}}],"indexes":[{"columns":["c"]}]}],` +
			`"logics":[{"name":"a/b","params":[{"name":"p"}],"auth":{"roles":null}}]}`,
		`{"formatVersion":1,"tables":[{"name":"t","columns":[{"name":"c","nullable":"x"}]}]}`,
		`{"formatVersion":1,"tables":[{`,
		`{"formatVersion":1,"logics":[{"name":"a//b"}]}`,
		`{"formatVersion":1,"release":{"id":"r","version":1e20}}`,
		`{"formatVersion":1,"tables":[{"name":"t","COMMENT":"x","comment":"y","comment":"z"}]}`,
		"{\"formatVersion\":1,\"tables\":[{\"name\":\"t\\u0000\",\"x\":\"\xff\"}]}",
		`{"logics":[],"tables":[{"name":"a","foreignKeys":[{"columns":["x"],"references":{"table":"b","columns":["y"]}}]},` +
			`{"name":"b","columns":[{"name":"z"}]}],"release":{"id":"r","project":"p","environment":"e"},"formatVersion":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		decCheckForms(t, data)
		first, err := Decode(data)
		if err != nil {
			serr, ok := errors.AsType[*Error](err)
			if !ok {
				t.Fatalf("Decode error is %T (%v), want *Error", err, err)
			}
			if len(serr.Problems) == 0 {
				t.Fatalf("Error without problems")
			}
			_ = serr.Error()
			return
		}
		encoded, err := encodeRelease(first)
		if err != nil {
			t.Fatalf("encodeRelease: %v", err)
		}
		second, err := Decode(encoded)
		if err != nil {
			t.Fatalf("Decode of the release file: %v\nrelease file:\n%s", err, encoded)
		}
		if diff := cmp.Diff(first, second); diff != "" {
			t.Fatalf("Decode(encodeRelease(Decode(doc))) differs (-first +second):\n%s", diff)
		}
		again, err := encodeRelease(second)
		if err != nil {
			t.Fatalf("encodeRelease of the decoded release file: %v", err)
		}
		if !bytes.Equal(encoded, again) {
			t.Fatalf("a release file does not encode to itself:\n%s\n----\n%s", encoded, again)
		}
	})
}

// TestDecodeTypeErrorPaths checks that a mistyped value is named by its
// exact path, array indexes included, even deep inside an element.
func TestDecodeTypeErrorPaths(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"formatVersion": 1, "tables": [{"name": "a", "columns": [{"name": "x"}, {"name": "y", "nullable": "yes"}]}]}`,
			`tables[0].columns[1].nullable: want a boolean, got string`},
		{`{"formatVersion": 1, "tables": [{"name": "a", "columns": [{"name": "x"}]}, {"name": "b", "columns": [{"name": "x"}, {"name": "y", "comment": {"a": 1}}]}]}`,
			`tables[1].columns[1].comment: want a string, got object`},
		{`{"formatVersion": 1, "tables": [{"name": "a", "columns": {"name": "x"}}]}`,
			`tables[0].columns: want an array, got object`},
		{`{"formatVersion": 1, "logics": [{"name": "a", "params": [{"name": "p"}, {"name": "q", "required": "no"}]}]}`,
			`logics[0].params[1].required: want a boolean, got string`},
		{`{"formatVersion": 1, "tables": [{"name": "a", "foreignKeys": [{"columns": ["a"], "references": {"table": "b", "columns": [1]}}]}]}`,
			`tables[0].foreignKeys[0].references.columns[0]: want a string, got number`},
		{"{\"formatVersion\": 1,\n \"release\": {\"id\": \"r\", \"version\": \"x\"}}",
			// The position of the mistyped value's first byte.
			`release.version: want an integer, got string (line 2, column 36)`},
		{`{"formatVersion": 1, "release": {"id": "r", "project": "p", "environment": "dev"}, "tables": [{"name": "a", "columns": [{"name": "y"}, {"name": "z", "enum": ["a", {"a": 1}], "default": [1]}]}]}`,
			`tables[0].columns[1].default: want a string, number or boolean, got an array`},
		{`{"formatVersion": 1, "release": {"id": "r", "project": "p", "environment": "dev"}, "tables": [{"name": "a", "columns": [{"name": "y"}, {"name": "z", "enum": ["a", {"a": 1}], "default": [1]}]}]}`,
			`tables[0].columns[1].enum[1]: want a string, number or boolean, got an object`},
	} {
		_, err := Decode([]byte(tc.doc))
		var se *Error
		if !errors.As(err, &se) {
			t.Errorf("Decode(%s) = %v, want a *Error", tc.doc, err)
			continue
		}
		if !slices.ContainsFunc(se.Problems, func(p string) bool { return strings.Contains(p, tc.want) }) {
			t.Errorf("Decode(%s): problems %q lack %q", tc.doc, se.Problems, tc.want)
		}
	}
}

// encodeRelease renders a snapshot as the JSON of a release file.
func encodeRelease(snap *Snapshot) ([]byte, error) {
	var buf bytes.Buffer
	err := Encode(&buf, snap)
	return buf.Bytes(), err
}

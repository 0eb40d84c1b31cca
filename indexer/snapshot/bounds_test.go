package snapshot

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

func TestDecodeBounds(t *testing.T) {
	t.Parallel()
	str := func(n int) string { return `"` + strings.Repeat("a", n) + `"` }
	rep := func(n int, item string) string { return strings.TrimSuffix(strings.Repeat(item+",", n), ",") }
	manyNames := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `{"name":"c%d"},`, i)
		}
		return strings.TrimSuffix(b.String(), ",")
	}
	manyColumns := func(n int) string { return `[` + manyNames(n) + `]` }
	fk := `{"columns":["id"],"references":{"table":"t","columns":["id"]}}`
	tests := []struct {
		name    string
		ok, bad map[string]string
		want    string
	}{
		{"table name", map[string]string{"tables": `[{"name":` + str(1024) + `}]`}, map[string]string{"tables": `[{"name":` + str(1025) + `}]`},
			"tables[0].name: longer than 1 KiB"},
		{"column name", decColumns(`{"name":` + str(1024) + `}`), decColumns(`{"name":"a"},{"name":` + str(1025) + `}`),
			"tables[0].columns[1].name: longer than 1 KiB"},
		{"connection name", map[string]string{"connections": `[{"name":` + str(1024) + `}]`}, map[string]string{"connections": `[{"name":` + str(1025) + `}]`},
			"connections[0].name: longer than 1 KiB"},
		{"key name", decTable(`,"foreignKeys":[{"name":` + str(1024) + `,"columns":["id"],"references":{"table":"t","columns":["id"]}}]`),
			decTable(`,"foreignKeys":[{"name":` + str(1025) + `,"columns":["id"],"references":{"table":"t","columns":["id"]}}]`),
			"tables[0].foreignKeys[0].name: longer than 1 KiB"},
		{"index name", decTable(`,"indexes":[{"name":` + str(1024) + `,"columns":["id"]}]`), decTable(`,"indexes":[{"name":` + str(1025) + `,"columns":["id"]}]`),
			"tables[0].indexes[0].name: longer than 1 KiB"},
		{"logic name", map[string]string{"logics": `[{"name":` + str(1024) + `}]`}, map[string]string{"logics": `[{"name":` + str(1025) + `}]`},
			"logics[0].name: longer than 1 KiB"},
		{"param name", map[string]string{"logics": `[{"name":"l","params":[{"name":` + str(1024) + `}]}]`},
			map[string]string{"logics": `[{"name":"l","params":[{"name":` + str(1025) + `}]}]`}, "logics[0].params[0].name: longer than 1 KiB"},
		{"role", map[string]string{"logics": `[{"name":"l","auth":{"roles":[` + str(1024) + `]}}]`},
			map[string]string{"logics": `[{"name":"l","auth":{"roles":[` + str(1025) + `]}}]`}, "logics[0].auth.roles[0]: longer than 1 KiB"},
		{"column type", decColumns(`{"name":"a","type":` + str(1024) + `}`), decColumns(`{"name":"a","type":` + str(1025) + `}`),
			"tables[0].columns[0].type: longer than 1 KiB"},
		{"table comment", decTable(`,"comment":` + str(16384)), decTable(`,"comment":` + str(16385)), "tables[0].comment: longer than 16 KiB"},
		{"column comment", decColumns(`{"name":"a","comment":` + str(16384) + `}`), decColumns(`{"name":"a","comment":` + str(16385) + `}`),
			"tables[0].columns[0].comment: longer than 16 KiB"},
		{"description", map[string]string{"logics": `[{"name":"l","description":` + str(16384) + `}]`},
			map[string]string{"logics": `[{"name":"l","description":` + str(16385) + `}]`}, "logics[0].description: longer than 16 KiB"},
		{"sql", map[string]string{"logics": `[{"name":"l","sql":` + str(48<<10) + `}]`}, map[string]string{"logics": `[{"name":"l","sql":` + str(48<<10+1) + `}]`},
			"logics[0].sql: longer than 48 KiB"},
		{"escaped sql", map[string]string{"logics": `[{"name":"l","sql":"` + strings.Repeat(`\u0041`, 48<<10) + `"}]`},
			map[string]string{"logics": `[{"name":"l","sql":"` + strings.Repeat(`\u0041`, 48<<10+1) + `"}]`}, "logics[0].sql: longer than 48 KiB"},
		{"default", decColumns(`{"name":"a","default":` + str(4096) + `}`), decColumns(`{"name":"a","default":` + str(4097) + `}`),
			"tables[0].columns[0].default: longer than 4 KiB"},
		{"numeric default", decColumns(`{"name":"a","default":` + strings.Repeat("9", 4096) + `}`),
			decColumns(`{"name":"a","default":` + strings.Repeat("9", 4097) + `}`), "tables[0].columns[0].default: longer than 4 KiB"},
		{"enum values", decColumns(`{"name":"a","enum":[` + rep(1000, `"v"`) + `]}`), decColumns(`{"name":"a","enum":[` + rep(1001, `"v"`) + `]}`),
			"tables[0].columns[0].enum: more than 1000 values"},
		{"enum value", decColumns(`{"name":"a","enum":["x",` + str(1024) + `]}`), decColumns(`{"name":"a","enum":["x",` + str(1025) + `]}`),
			"tables[0].columns[0].enum[1]: longer than 1 KiB"},
		{"columns", map[string]string{"tables": `[{"name":"t","columns":` + manyColumns(4096) + `}]`},
			map[string]string{"tables": `[{"name":"t","columns":` + manyColumns(4097) + `}]`}, "tables[0].columns: more than 4096 columns"},
		{"foreign keys", decTable(`,"foreignKeys":[` + rep(4096, fk) + `]`), decTable(`,"foreignKeys":[` + rep(4097, fk) + `]`),
			"tables[0].foreignKeys: more than 4096 foreign keys"},
		{"indexes", decTable(`,"indexes":[` + rep(4096, `{"columns":["id"]}`) + `]`), decTable(`,"indexes":[` + rep(4097, `{"columns":["id"]}`) + `]`),
			"tables[0].indexes: more than 4096 indexes"},
		{"params", map[string]string{"logics": `[{"name":"l","params":[` + rep(4096, `{"name":"p"}`) + `]}]`},
			map[string]string{"logics": `[{"name":"l","params":[` + rep(4097, `{"name":"p"}`) + `]}]`}, "logics[0].params: more than 4096 params"},
		{"roles", map[string]string{"logics": `[{"name":"l","auth":{"roles":[` + rep(4096, `"r"`) + `]}}]`},
			map[string]string{"logics": `[{"name":"l","auth":{"roles":[` + rep(4097, `"r"`) + `]}}]`}, "logics[0].auth.roles: more than 4096 roles"},
		{"key columns", decTable(`,"primaryKey":[` + rep(4096, `"id"`) + `]`), decTable(`,"primaryKey":[` + rep(4097, `"id"`) + `]`),
			"tables[0].primaryKey: more than 4096 columns"},
		{"connections", map[string]string{"connections": `[` + manyNames(4096) + `]`},
			map[string]string{"connections": `[` + manyNames(4097) + `]`}, "connections: more than 4096 connections"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// At the bound: no bound problem (other rules may still fail).
			if _, err := Decode(decDoc(t, tt.ok)); err != nil && strings.Contains(err.Error(), "than ") {
				t.Errorf("at the bound: %v", err)
			}
			serr := decError(t, decDoc(t, tt.bad))
			if serr.Problems[0] != tt.want {
				t.Errorf("problems = %q, want the first to be %q", serr.Problems, tt.want)
			}
		})
	}
}

// TestDecodeTopLevelBound builds a release one table over the bound, as a
// stream so that the test does not hold it.
func TestDecodeTopLevelBound(t *testing.T) {
	if testing.Short() {
		t.Skip("a million tables")
	}
	t.Parallel()
	for _, key := range []string{"tables", "logics"} {
		n := 0
		head := `{"formatVersion":1,"release":{"id":"r","project":"p","environment":"e"},"` + key + `":[`
		r := io.MultiReader(strings.NewReader(head), readerFunc(func(p []byte) (int, error) {
			if n > maxTopLevel {
				return copy(p, "]}"), io.EOF
			}
			item := fmt.Sprintf(`{"name":"x%d"},`, n)
			if n == maxTopLevel {
				item = item[:len(item)-1]
			}
			n++
			return copy(p, item), nil
		}))
		var got int
		err := decodeStream(r, countHandler(&got))
		want := fmt.Sprintf("invalid snapshot: %s: more than 1000000 %s", key, key)
		if err == nil || err.Error() != want {
			t.Errorf("%s: err = %v, want %s", key, err, want)
		}
		if got != maxTopLevel {
			t.Errorf("%s: handed %d, want %d", key, got, maxTopLevel)
		}
	}
}

// TestDecodeHugeValue checks that a value far over its bound fails without
// being read whole, in a field of the format and in a dropped one.
func TestDecodeHugeValue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ key, want string }{
		{"comment", "tables[0].comment: value longer than 1 MiB (line 1, column "},
		{"blob", "tables[0].blob: value longer than 1 MiB (line 1, column "},
	} {
		var read int64
		head := `{"formatVersion":1,"tables":[{"name":"t","` + tc.key + `":"`
		body := readerFunc(func(p []byte) (int, error) {
			for i := range p {
				p[i] = 'a'
			}
			read += int64(len(p))
			if read > 200<<20 {
				return 0, io.EOF
			}
			return len(p), nil
		})
		serr, ok := errors.AsType[*Error](decodeStream(io.MultiReader(strings.NewReader(head), body), discard{}))
		if !ok || !strings.HasPrefix(serr.Problems[0], tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.key, serr, tc.want)
		}
		if read > 2<<20 {
			t.Errorf("%s: read %d bytes of a 200 MB value, want at most about 1 MiB", tc.key, read)
		}
	}
}

// TestDecodeOpenKeys checks the cap on keys held at once to reject a key
// that comes twice: an object of a million keys would take 100 MB.
func TestDecodeOpenKeys(t *testing.T) {
	t.Parallel()
	keys := func(n int, prefix string) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"%s%d":0`, prefix, i)
		}
		return b.String()
	}
	// Many keys, but not at once: fine.
	var objects []string
	for range 20 {
		objects = append(objects, `{`+keys(10_000, "k")+`}`)
	}
	decMustDecode(t, decDoc(t, decTable(`,"blob":[`+strings.Join(objects, ",")+`]`)))
	decMustDecode(t, decDoc(t, decTable(`,"blob":{`+keys(maxOpenKeys-100, "k")+`}`)))

	for name, members := range map[string]map[string]string{
		"one dropped object": decTable(`,"blob":{` + keys(maxOpenKeys+1, "k") + `}`),
		"nested":             decTable(`,"blob":{` + keys(maxOpenKeys/2, "a") + `,"inner":{` + keys(maxOpenKeys/2, "b") + `}}`),
		"a table":            decTable(`,` + keys(maxOpenKeys+1, "k")),
	} {
		serr := decError(t, decDoc(t, members))
		if want := "more than 100000 keys in the objects open at once"; !strings.Contains(serr.Problems[0], want) ||
			!strings.HasPrefix(serr.Problems[0], "tables[0]") {
			t.Errorf("%s: problems = %.200q, want the first to name tables[0]... and say %q", name, serr.Problems, want)
		}
	}
}

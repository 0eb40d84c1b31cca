package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const cobraPath = "github.com/spf13/cobra"

// moduleRoot finds the folder of go.mod above the test's folder and the
// module path it declares.
func moduleRoot(tb testing.TB) (dir, module string) {
	tb.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		tb.Fatal(err)
	}
	for {
		f, err := os.Open(filepath.Join(dir, "go.mod"))
		if err == nil {
			defer f.Close()
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if m, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
					return dir, strings.Trim(strings.TrimSpace(m), `"`)
				}
			}
			tb.Fatalf("%s/go.mod names no module", dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("no go.mod above the test folder")
		}
		dir = parent
	}
}

// goFiles lists the module's non-test Go files, relative to root with
// slashes, leaving out testdata, vendor and hidden folders.
func goFiles(tb testing.TB, root string) []string {
	tb.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if p != root && fileExists(filepath.Join(p, "go.mod")) { // another module
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// allowed says which project packages (by layer: the top-level folder, or
// one of the subpackages that stand on their own, below) a package may
// import: cmd -> transport -> {indexer, mcpserver} -> store -> migrations
// (transport, mcpserver/transport, is above mcpserver: it serves a Server
// and mcpserver never knows it), and anyone above store may import the
// leaves: snapshot (indexer/snapshot, the release model and the analysis
// result of a logic), analysis
// (indexer/analysis, the logic analyser, on the model), lint (indexer/lint, the schema
// rules and their registry), answer (store/answer, the answers' Go types, built of the model's),
// atomicfile (store/atomicfile, the one way to replace a file), cksumvfs
// (store/cksumvfs, the checksummed SQLite VFS) and access
// (mcpserver/access, scopes and the token file), which import no layer
// above them. store, all SQL, imports migrations and the leaves it writes
// and reads with, by name: the model, the answers, atomicfile and cksumvfs;
// not the analysis, not the lint, whose results it is handed as rows. indexer
// and mcpserver do not know each other. A package may also import its own
// subpackages, except those that stand alone: hubtest, transport and the
// leaves.
var allowed = map[string][]string{
	"cmd":        {"cmd", "indexer", "hubtest", "transport", "mcpserver", "store", "migrations", leaves},
	"transport":  {"transport", "mcpserver", "store", "migrations", leaves},
	"indexer":    {"indexer", "store", "migrations", leaves},
	"hubtest":    {},
	"mcpserver":  {"mcpserver", "store", "migrations", leaves},
	"store":      {"store", "migrations", "snapshot", "answer", "atomicfile", "cksumvfs"},
	"snapshot":   {},
	"analysis":   {"analysis", "snapshot"},
	"lint":       {"snapshot"},
	"atomicfile": {},
	"answer":     {"snapshot"},
	"cksumvfs":   {},
	"access":     {"access", "atomicfile"},
	"migrations": {},
}

// leaves stands, in allowed, for every leaf layer.
const leaves = "(leaves)"

// leafLayers are the leaf layers: each may be imported from any layer that
// lists leaves, and imports only what its own entry in allowed says.
var leafLayers = []string{"snapshot", "analysis", "lint", "answer", "atomicfile", "cksumvfs", "access"}

// temporary are the arrows against the map that the code still has, each
// until the change that removes it, which deletes its entry. There is one:
// store runs the logic analysis as a release is written
// (store/logic_analysis*.go, writer.go, release_tx.go), so it imports
// indexer/analysis until that driver moves to indexer, which hands store
// the analysis as rows (issue 33, item 1).
var temporary = map[[2]string]bool{
	{"store", "analysis"}: true,
}

// mayImport reports whether layer from may import layer to.
func mayImport(from, to string) bool {
	may := allowed[from]
	return slices.Contains(may, to) || slices.Contains(may, leaves) && slices.Contains(leafLayers, to) ||
		temporary[[2]string{from, to}]
}

// store/answer holds the Go types of the answers (the tools' output
// schemas), which store builds and mcpserver and cmd read: a leaf too,
// whose analysis parts are the model's (snapshot.Problem, ...).

// stdOnly are the layers that may import, outside this module, the
// standard library only (answer also imports snapshot: allowed above).
var stdOnly = []string{"atomicfile", "answer"}

// noSQL are the layers that must not reach SQLite: the leaves hold the
// model, its analysis and its lint, which every output reads without an
// index; the transports serve what mcpserver answers.
var noSQL = []string{"snapshot", "analysis", "lint", "transport", "access"}

// noUnsafe are the layers that must not import package unsafe: store's
// one use of it is the checksummed VFS, in store/cksumvfs.
var noUnsafe = []string{"store"}

// sqlPackages are the imports that reach SQLite.
var sqlPackages = []string{"database/sql", "modernc.org/sqlite"}

// wasmPackages are the imports of PostgreSQL's parser compiled to
// WebAssembly and its runtime, and wasmHome the one folder that may import
// them: the analysis reads SQL through its internal pgparse only.
var (
	wasmPackages = []string{"github.com/tetratelabs/wazero", "github.com/wasilibs"}
	wasmHome     = "indexer/analysis/internal/pgparse"
)

// layer names the layer of a package folder (slash-separated, relative to
// the module root; "." for the root).
func layer(dir string) string {
	for _, sub := range []struct{ dir, layer string }{
		{"indexer/hubtest", "hubtest"},
		{"indexer/snapshot", "snapshot"},
		{"indexer/analysis", "analysis"},
		{"indexer/lint", "lint"},
		{"store/atomicfile", "atomicfile"},
		{"store/cksumvfs", "cksumvfs"},
		{"store/answer", "answer"},
		{"mcpserver/access", "access"},
		{"mcpserver/transport", "transport"},
	} {
		if dir == sub.dir || strings.HasPrefix(dir, sub.dir+"/") {
			return sub.layer
		}
	}
	top, _, _ := strings.Cut(dir, "/")
	return top
}

func TestImportLayering(t *testing.T) {
	t.Parallel()
	root, module := moduleRoot(t)
	for _, v := range layeringViolations(t, root, module) {
		t.Error(v)
	}
	layers := map[string]bool{}
	for _, f := range goFiles(t, root) {
		layers[layer(path.Dir(f))] = true
	}
	for _, want := range []string{"cmd", "indexer", "store", "migrations", "snapshot", "analysis", "lint", "transport", "mcpserver",
		"access", "answer", "atomicfile", "cksumvfs"} {
		if !layers[want] {
			t.Errorf("found no Go files in the %s layer; is the walk right?", want)
		}
	}
}

// layeringViolations walks the non-test Go files of the module at root and
// describes every import against the layering.
func layeringViolations(tb testing.TB, root, module string) []string {
	tb.Helper()
	files := goFiles(tb, root)
	if len(files) == 0 {
		tb.Fatal("found no Go files")
	}
	var bad []string
	fset := token.NewFileSet()
	for _, rel := range files {
		f, err := parser.ParseFile(fset, filepath.Join(root, filepath.FromSlash(rel)), nil, parser.ImportsOnly)
		if err != nil {
			bad = append(bad, fmt.Sprintf("parse %s: %v", rel, err))
			continue
		}
		from := layer(path.Dir(rel))
		_, known := allowed[from]
		if !known {
			bad = append(bad, fmt.Sprintf("%s: package folder %q is not in the layering cmd -> transport -> {indexer, mcpserver} -> store -> migrations", rel, path.Dir(rel)))
			continue
		}
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				tb.Fatal(err)
			}
			if (p == cobraPath || strings.HasPrefix(p, cobraPath+"/")) && from != "cmd" {
				bad = append(bad, fmt.Sprintf("%s imports %s: only cmd/... may use cobra", rel, p))
			}
			if slices.Contains(noSQL, from) && slices.ContainsFunc(sqlPackages, func(q string) bool { return p == q || strings.HasPrefix(p, q+"/") }) {
				bad = append(bad, fmt.Sprintf("%s imports %s: the %s layer must not reach SQLite (all SQL is in store)", rel, p, from))
			}
			if p == "unsafe" && slices.Contains(noUnsafe, from) {
				bad = append(bad, fmt.Sprintf("%s imports unsafe: the %s layer keeps it in store/cksumvfs", rel, from))
			}
			if slices.ContainsFunc(wasmPackages, func(q string) bool { return p == q || strings.HasPrefix(p, q+"/") }) && path.Dir(rel) != wasmHome {
				bad = append(bad, fmt.Sprintf("%s imports %s: only %s runs the WebAssembly parser", rel, p, wasmHome))
			}
			dir, ok := strings.CutPrefix(p, module+"/")
			if !ok {
				if p == module {
					bad = append(bad, fmt.Sprintf("%s imports the module root package %s", rel, p))
				}
				if first, _, _ := strings.Cut(p, "/"); slices.Contains(stdOnly, from) && strings.Contains(first, ".") {
					bad = append(bad, fmt.Sprintf("%s imports %s: the %s layer may import the standard library only", rel, p, from))
				}
				continue
			}
			if to := layer(dir); !mayImport(from, to) {
				bad = append(bad, fmt.Sprintf("%s (layer %s) imports %s (layer %s): against cmd -> transport -> {indexer, mcpserver} -> store -> migrations", rel, from, p, to))
			}
		}
	}
	return bad
}

// The layering check itself catches reverse arrows, store's imports of
// anything but migrations and its leaves (but the one temporary arrow),
// and unsafe outside store/cksumvfs; and ignores tests and testdata.
func TestImportLayeringCatchesReverseArrows(t *testing.T) {
	t.Parallel()
	const module = "example.com/m"
	root := t.TempDir()
	for name, imports := range map[string][]string{
		"go.mod":                              nil,
		"cmd/hubsnap/main.go":                 {module + "/indexer", module + "/mcpserver", module + "/indexer/hubtest", cobraPath},
		"indexer/sync.go":                     {module + "/store", module + "/mcpserver"},                                  // bad: indexer -> mcpserver
		"indexer/hubtest/hub.go":              {module + "/store"},                                                         // bad: hubtest -> store
		"mcpserver/tools.go":                  {module + "/store", cobraPath},                                              // bad: cobra
		"store/store.go":                      {module + "/migrations", module + "/indexer", module + "/store/atomicfile"}, // bad: store -> indexer
		"store/atomicfile/file.go":            {"os", module + "/store"},                                                   // bad: atomicfile -> store
		"store/atomicfile/sys.go":             {"golang.org/x/sys/unix"},                                                   // bad: not the standard library
		"indexer/cache.go":                    {module + "/store", module + "/store/atomicfile"},
		"mcpserver/access/file.go":            {module + "/store/atomicfile"},
		"migrations/migrations.go":            {"embed"},
		"store/store_test.go":                 {module + "/cmd/hubsnap", cobraPath},                         // tests are not checked
		"testdata/gen/gen.go":                 {module + "/cmd/hubsnap"},                                    // testdata is not checked
		"tools/tool.go":                       {"fmt"},                                                      // bad: not in the layering
		"store/writer.go":                     {module + "/indexer/snapshot", module + "/indexer/analysis"}, // the temporary arrow
		"store/lint.go":                       {module + "/indexer/lint"},                                   // bad: store is handed the lint's rows
		"store/pages.go":                      {"unsafe", module + "/store/cksumvfs"},                       // bad: unsafe
		"store/cksumvfs/vfs.go":               {"unsafe", "modernc.org/libc", "modernc.org/sqlite/lib"},
		"store/cksumvfs/open.go":              {module + "/store", module + "/indexer/analysis"}, // bad twice: the arrow is store's only
		"indexer/lint/rule.go":                {module + "/indexer/snapshot"},
		"indexer/lint/sql.go":                 {"database/sql", module + "/store"}, // bad twice
		"indexer/ingest.go":                   {module + "/indexer/lint", module + "/store", module + "/indexer/analysis"},
		"mcpserver/check.go":                  {module + "/indexer/snapshot", module + "/indexer/analysis", module + "/indexer/lint"},
		"indexer/snapshot/model.go":           {module + "/store"},                   // bad: a leaf imports store
		"indexer/snapshot/decoder.go":         {"modernc.org/sqlite"},                // bad: a leaf reaches SQLite
		"indexer/analysis/analyze.go":         {"database/sql", module + "/indexer"}, // bad twice
		"indexer/analysis/pgoracle/oracle.go": {module + "/indexer/analysis"},
		"mcpserver/tools_indexer.go":          {module + "/indexer"}, // bad: mcpserver -> indexer
		"mcpserver/transport/http.go":         {module + "/mcpserver", module + "/mcpserver/access", module + "/mcpserver/transport/oauth"},
		"mcpserver/transport/oauth/oauth.go":  {module + "/mcpserver/access"},
		"mcpserver/server.go":                 {module + "/mcpserver/transport", module + "/mcpserver/access"}, // bad: mcpserver -> transport
		"mcpserver/transport/sql.go":          {"database/sql", module + "/indexer"},                           // bad twice: SQL, and indexer
		"mcpserver/access/scope.go":           {module + "/mcpserver", module + "/store/atomicfile"},           // bad: a leaf imports mcpserver
		"store/tokens.go":                     {module + "/mcpserver/access"},                                  // bad: not a leaf of store's
		"mcpserver/tokens.go":                 {module + "/mcpserver/access"},                                  // a leaf: anyone above store may

		// The model, the answers and the parser.
		"indexer/analysis/tables.go":                  {module + "/indexer/snapshot", module + "/indexer/analysis/internal/pgparse"},
		"indexer/analysis/parse.go":                   {"github.com/tetratelabs/wazero"}, // bad: the wasm host is pgparse's
		"indexer/analysis/internal/pgparse/parser.go": {"github.com/tetratelabs/wazero/api", "github.com/wasilibs/go-pgquery/parser"},
		"store/answer/analysis.go":                    {module + "/indexer/snapshot"},
		"store/answer/table.go":                       {module + "/indexer/analysis"}, // bad: answer is built of the model only
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		src := "module " + module + "\n"
		if name != "go.mod" {
			src = "package " + path.Base(path.Dir(name)) + "\n\nimport (\n"
			for _, imp := range imports {
				src += "\t_ " + strconv.Quote(imp) + "\n"
			}
			src += ")\n"
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := layeringViolations(t, root, module)
	for _, want := range []string{
		"indexer/sync.go (layer indexer) imports " + module + "/mcpserver",
		"indexer/hubtest/hub.go (layer hubtest) imports " + module + "/store",
		"mcpserver/tools.go imports " + cobraPath,
		"store/store.go (layer store) imports " + module + "/indexer",
		"tools/tool.go: package folder",
		"store/atomicfile/file.go (layer atomicfile) imports " + module + "/store",
		"store/atomicfile/sys.go imports golang.org/x/sys/unix: the atomicfile layer may import the standard library only",
		"indexer/snapshot/model.go (layer snapshot) imports " + module + "/store",
		"indexer/snapshot/decoder.go imports modernc.org/sqlite: the snapshot layer must not",
		"indexer/analysis/analyze.go imports database/sql: the analysis layer must not",
		"indexer/analysis/analyze.go (layer analysis) imports " + module + "/indexer",
		"mcpserver/tools_indexer.go (layer mcpserver) imports " + module + "/indexer",
		"mcpserver/server.go (layer mcpserver) imports " + module + "/mcpserver/transport",
		"mcpserver/transport/sql.go imports database/sql: the transport layer must not",
		"mcpserver/transport/sql.go (layer transport) imports " + module + "/indexer",
		"mcpserver/access/scope.go (layer access) imports " + module + "/mcpserver",
		"store/tokens.go (layer store) imports " + module + "/mcpserver/access",
		"store/lint.go (layer store) imports " + module + "/indexer/lint",
		"store/pages.go imports unsafe: the store layer keeps it in store/cksumvfs",
		"store/cksumvfs/open.go (layer cksumvfs) imports " + module + "/store",
		"store/cksumvfs/open.go (layer cksumvfs) imports " + module + "/indexer/analysis",
		"indexer/lint/sql.go imports database/sql: the lint layer must not",
		"indexer/lint/sql.go (layer lint) imports " + module + "/store",
		"store/answer/table.go (layer answer) imports " + module + "/indexer/analysis",
		"indexer/analysis/parse.go imports github.com/tetratelabs/wazero: only " + wasmHome,
	} {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, want) }) {
			t.Errorf("no violation starting %q in:\n%s", want, strings.Join(got, "\n"))
		}
	}
	if len(got) != 25 {
		t.Errorf("got %d violations, want 25:\n%s", len(got), strings.Join(got, "\n"))
	}
}

// TestNoCommandGlobals keeps the cobra wiring in constructors: no
// package-level cobra values and no init functions in cmd/hubsnap.
func TestNoCommandGlobals(t *testing.T) {
	t.Parallel()
	for _, v := range commandGlobals(t, ".") {
		t.Error(v)
	}
}

// commandGlobals describes every func init() and package-level var holding
// a cobra command in the non-test Go files of dir.
func commandGlobals(tb testing.TB, dir string) []string {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		tb.Fatal(err)
	}
	var bad []string
	fset := token.NewFileSet()
	n := 0
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		n++
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			bad = append(bad, fmt.Sprintf("parse %s: %v", p, err))
			continue
		}
		cobraName := ""
		for _, imp := range f.Imports {
			if v, _ := strconv.Unquote(imp.Path.Value); v == cobraPath {
				cobraName = "cobra"
				if imp.Name != nil {
					cobraName = imp.Name.Name
				}
			}
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.Name == "init" {
					bad = append(bad, fmt.Sprintf("%s: func init(); build commands in constructors", fset.Position(d.Pos())))
				}
			case *ast.GenDecl:
				if d.Tok != token.VAR {
					continue
				}
				for _, spec := range d.Specs {
					vs := spec.(*ast.ValueSpec)
					if mentionsCobraCommand(vs, cobraName) {
						bad = append(bad, fmt.Sprintf("%s: package-level var %s holds a cobra command; build commands in constructors",
							fset.Position(vs.Pos()), vs.Names[0].Name))
					}
				}
			}
		}
	}
	if n == 0 {
		tb.Fatalf("found no Go files in %s", dir)
	}
	return bad
}

func TestNoCommandGlobalsCatchesGlobals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := `package main

import cli "github.com/spf13/cobra"

var rootCmd = &cli.Command{Use: "x"}

var (
	syncCmd *cli.Command
	other   = newSyncCommand()
	fine    = 3
)

func newSyncCommand() *cli.Command { return nil }

func init() { syncCmd = rootCmd }

func (a *app) init() {}
`
	if err := os.WriteFile(filepath.Join(dir, "root.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	// Test files may do as they like.
	if err := os.WriteFile(filepath.Join(dir, "root_test.go"), []byte("package main\n\nfunc init() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := commandGlobals(t, dir)
	for _, want := range []string{"var rootCmd", "var syncCmd", "var other", "func init()"} {
		if !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, want) }) {
			t.Errorf("no complaint about %q in:\n%s", want, strings.Join(got, "\n"))
		}
	}
	if len(got) != 4 {
		t.Errorf("got %d complaints, want 4:\n%s", len(got), strings.Join(got, "\n"))
	}
}

// mentionsCobraCommand reports whether a var declaration has type
// (*)cobra.Command or is initialised from one or from a new...Command
// constructor.
func mentionsCobraCommand(vs *ast.ValueSpec, cobraName string) bool {
	found := false
	check := func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && cobraName != "" && id.Name == cobraName && x.Sel.Name == "Command" {
				found = true
			}
		case *ast.CallExpr:
			var name string
			switch fn := x.Fun.(type) {
			case *ast.Ident:
				name = fn.Name
			case *ast.SelectorExpr:
				name = fn.Sel.Name
			}
			if strings.HasPrefix(name, "new") && strings.HasSuffix(name, "Command") {
				found = true
			}
		}
		return !found
	}
	if vs.Type != nil {
		ast.Inspect(vs.Type, check)
	}
	for _, v := range vs.Values {
		ast.Inspect(v, check)
	}
	return found
}

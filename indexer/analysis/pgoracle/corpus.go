package pgoracle

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Schema is one schema of the corpus: a folder of testdata/logics.
//
//	schema.json     the snapshot document without its logics (hand-written)
//	logics.sql      the logics, each under "-- name:" with its params and
//	                sample arguments (hand-written)
//	seed.sql        the rows the logics run on (hand-written)
//	mutations.json  the mutated releases, one change each (hand-written)
//	snapshot.json   schema.json with the logics: the document an analyser
//	                reads (built; TestCorpusBuilt -update rewrites it)
//	truth.json      PostgreSQL's answers (TestTruth -update rewrites it)
type Schema struct {
	Name string
	Dir  string
	// Snapshot is the base release, built from schema.json and logics.sql.
	Snapshot *Snapshot
	// Doc is Snapshot as a document: what snapshot.json must hold.
	Doc []byte
	// Args holds, per logic, the argument sets it runs with (at least
	// one); each maps a placeholder to a JSON value.
	Args map[string][]map[string]any
	// Seed is the SQL that loads the rows.
	Seed      string
	Mutations []Mutation
}

// CorpusDir finds testdata/logics above the working folder, beside the
// module's go.mod.
func CorpusDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "testdata", "logics"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working folder")
		}
		dir = parent
	}
}

// LoadCorpus reads every schema folder of dir, in name order.
func LoadCorpus(dir string) ([]*Schema, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	var out []*Schema
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		s, err := LoadSchema(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("corpus: no schema folders in %s", dir)
	}
	return out, nil
}

// LoadSchema reads one schema folder and builds its snapshot.
func LoadSchema(dir string) (*Schema, error) {
	s := &Schema{Name: filepath.Base(dir), Dir: dir}
	read := func(name string) ([]byte, error) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", s.Name, err)
		}
		return b, nil
	}
	doc, err := read("schema.json")
	if err != nil {
		return nil, err
	}
	if s.Snapshot, err = ParseSnapshot(doc); err != nil {
		return nil, fmt.Errorf("schema %s: schema.json: %w", s.Name, err)
	}
	if len(s.Snapshot.Logics) > 0 {
		return nil, fmt.Errorf("schema %s: schema.json holds logics; they belong in logics.sql", s.Name)
	}
	src, err := read("logics.sql")
	if err != nil {
		return nil, err
	}
	if s.Snapshot.Logics, s.Args, err = parseLogics(src); err != nil {
		return nil, fmt.Errorf("schema %s: logics.sql:%w", s.Name, err)
	}
	s.Doc = s.Snapshot.Encode()
	seed, err := read("seed.sql")
	if err != nil {
		return nil, err
	}
	s.Seed = string(seed)
	muts, err := read("mutations.json")
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(muts))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s.Mutations); err != nil {
		return nil, fmt.Errorf("schema %s: mutations.json: %w", s.Name, err)
	}
	seen := map[string]bool{}
	for _, m := range s.Mutations {
		if seen[m.Name] || m.Name == "" {
			return nil, fmt.Errorf("schema %s: mutations.json: empty or duplicate name %q", s.Name, m.Name)
		}
		seen[m.Name] = true
		if _, err := m.Apply(s.Snapshot); err != nil {
			return nil, fmt.Errorf("schema %s: mutation %s: %w", s.Name, m.Name, err)
		}
	}
	return s, nil
}

// parseLogics reads logics.sql: each logic starts with "-- name: NAME",
// then header lines "-- description: TEXT" (repeatable, joined),
// "-- param: NAME TYPE [optional]" and "-- args: {JSON}" (one argument
// set each), then the SQL up to the next "-- name:". A trailing semicolon
// is dropped. Errors start with the line number.
func parseLogics(src []byte) ([]Logic, map[string][]map[string]any, error) {
	var logics []Logic
	args := map[string][]map[string]any{}
	var cur *Logic
	var body []string
	inHeader := false
	finish := func() error {
		if cur == nil {
			return nil
		}
		sql := strings.TrimSpace(strings.Join(body, "\n"))
		sql = strings.TrimSpace(strings.TrimSuffix(sql, ";"))
		if sql == "" {
			return fmt.Errorf("logic %s has no SQL", cur.Name)
		}
		cur.SQL = sql
		if cur.Params == nil {
			cur.Params = []Param{}
		}
		if len(args[cur.Name]) == 0 {
			return fmt.Errorf("logic %s has no -- args line", cur.Name)
		}
		logics = append(logics, *cur)
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if name, ok := strings.CutPrefix(text, "-- name:"); ok {
			if err := finish(); err != nil {
				return nil, nil, fmt.Errorf("%d: %w", line, err)
			}
			name = strings.TrimSpace(name)
			if slices.ContainsFunc(logics, func(l Logic) bool { return l.Name == name }) {
				return nil, nil, fmt.Errorf("%d: logic %s twice", line, name)
			}
			cur, body, inHeader = &Logic{Name: name}, nil, true
			continue
		}
		if cur == nil {
			continue // the file's own header
		}
		if inHeader {
			key, value, ok := headerLine(text)
			if ok {
				switch key {
				case "description":
					cur.Description = strings.TrimSpace(cur.Description + " " + value)
				case "param":
					f := strings.Fields(value)
					if len(f) < 2 || len(f) > 3 || len(f) == 3 && f[2] != "optional" {
						return nil, nil, fmt.Errorf("%d: want -- param: NAME TYPE [optional]", line)
					}
					cur.Params = append(cur.Params, Param{Name: f[0], Type: f[1], Required: len(f) == 2})
				case "args":
					dec := json.NewDecoder(strings.NewReader(value))
					dec.UseNumber()
					var a map[string]any
					if err := dec.Decode(&a); err != nil {
						return nil, nil, fmt.Errorf("%d: args: %w", line, err)
					}
					args[cur.Name] = append(args[cur.Name], a)
				}
				continue
			}
			inHeader = false
		}
		body = append(body, text)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	if err := finish(); err != nil {
		return nil, nil, fmt.Errorf("%d: %w", line, err)
	}
	return logics, args, nil
}

// headerLine splits "-- key: value" for the keys a logic's header has.
func headerLine(text string) (key, value string, ok bool) {
	rest, ok := strings.CutPrefix(text, "-- ")
	if !ok {
		return "", "", false
	}
	key, value, ok = strings.Cut(rest, ":")
	if !ok || !slices.Contains([]string{"description", "param", "args"}, key) {
		return "", "", false
	}
	return key, strings.TrimSpace(value), true
}

package pgoracle

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// Derive asks PostgreSQL for the truth of one schema of the corpus: it
// creates the base release from its snapshot in a database of its own,
// loads the seed rows, describes and runs every logic with its sample
// arguments, then creates every mutated release (rows copied from the
// base) and records PostgreSQL's verdict on every logic. unsound lists
// what makes the corpus unfit: a base logic that does not prepare or
// run, returns no rows, or would have a problem.
func Derive(ctx context.Context, srv *Server, sc *Schema) (truth *Truth, unsound []string, err error) {
	admin, err := srv.Connect(ctx, "postgres", nil)
	if err != nil {
		return nil, nil, err
	}
	db := "corpus_" + sc.Name
	_, err = admin.Exec(ctx, "DROP DATABASE IF EXISTS "+quoteIdent(db))
	if err == nil {
		_, err = admin.Exec(ctx, "CREATE DATABASE "+quoteIdent(db)+" TEMPLATE template0 ENCODING 'UTF8'")
	}
	admin.Close(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("create database %s: %w", db, err)
	}
	s, err := newSession(ctx, srv, db)
	if err != nil {
		return nil, nil, err
	}
	defer s.conn.Close(context.WithoutCancel(ctx))

	truth = &Truth{Schema: sc.Name, PostgresMajor: srv.Major(), Types: map[string]string{}, Enums: enumTypes(sc.Snapshot)}
	if err := s.createRelease(ctx, "base", sc.Snapshot, func() error {
		if err := s.exec(ctx, sc.Seed); err != nil {
			return fmt.Errorf("seed.sql: %w", err)
		}
		return nil
	}); err != nil {
		return nil, nil, fmt.Errorf("base release of %s: %w", sc.Name, err)
	}
	if err := s.readTypes(ctx, "base", sc.Snapshot, truth.Types); err != nil {
		return nil, nil, err
	}
	for i := range sc.Snapshot.Logics {
		l := &sc.Snapshot.Logics[i]
		lt, problems, err := s.deriveLogic(ctx, l, sc.Args[l.Name], truth.Enums)
		if err != nil {
			return nil, nil, fmt.Errorf("logic %s: %w", l.Name, err)
		}
		for _, p := range problems {
			unsound = append(unsound, l.Name+": "+p)
		}
		truth.Logics = append(truth.Logics, *lt)
	}

	for i := range sc.Mutations {
		m := &sc.Mutations[i]
		mt, err := s.deriveMutation(ctx, sc, m, fmt.Sprintf("m%02d", i+1), truth.Types)
		if err != nil {
			return nil, nil, fmt.Errorf("mutation %s: %w", m.Name, err)
		}
		truth.Mutations = append(truth.Mutations, *mt)
	}
	return truth, unsound, nil
}

// deriveLogic describes and runs a base logic.
func (s *session) deriveLogic(ctx context.Context, l *Logic, argSets []map[string]any, enumList []string) (*LogicTruth, []string, error) {
	d, err := s.describe(ctx, l.SQL, true)
	if err != nil {
		return nil, nil, err
	}
	lt := &LogicTruth{Name: l.Name, Params: []ParamTruth{}}
	if d.err != nil {
		return lt, []string{fmt.Sprintf("does not prepare: %s (SQLSTATE %s) at %d", d.err.Message, d.err.Code, d.rw.OriginalPos(int(d.err.Position)))}, nil
	}
	defer s.release(ctx)
	var problems []string
	declared := map[string]string{}
	for _, p := range l.Params {
		declared[p.Name] = p.Type
	}
	for i, n := range d.rw.Names {
		lt.Params = append(lt.Params, ParamTruth{Name: n, Type: d.params[i], Declared: declared[n]})
	}
	if len(d.fields) > 0 {
		lt.Result = []ColumnTruth{}
	}
	for _, f := range d.fields {
		t, err := s.typeName(ctx, f.DataTypeOID, f.TypeModifier)
		if err != nil {
			return nil, nil, err
		}
		src, err := s.source(ctx, f)
		if err != nil {
			return nil, nil, err
		}
		lt.Result = append(lt.Result, ColumnTruth{Name: f.Name, Type: t, Source: src})
	}
	if lt.Tables, err = s.sortedTables(ctx, d.relids); err != nil {
		return nil, nil, err
	}
	if len(argSets) == 0 {
		problems = append(problems, "has no argument sets")
	}
	for i, args := range argSets {
		for name := range args {
			if !containsString(d.rw.Names, name) {
				problems = append(problems, fmt.Sprintf("args %d: %s is no placeholder", i+1, name))
			}
		}
		rows, tag, err := s.run(ctx, d, args)
		if err != nil {
			var pgErr *pgconn.PgError
			if !errors.As(err, &pgErr) {
				return nil, nil, err
			}
			problems = append(problems, fmt.Sprintf("args %d: does not run: %s (SQLSTATE %s)", i+1, pgErr.Message, pgErr.Code))
			continue
		}
		// Row counts are not kept: with timestamps relative to now(), a
		// count by month or week depends on the day the test runs.
		lt.Statement = statementOf(tag)
		if tag.RowsAffected() == 0 {
			problems = append(problems, fmt.Sprintf("args %d: no rows", i+1))
		}
		for _, row := range rows {
			for j, v := range row {
				if v == nil && j < len(lt.Result) {
					lt.Result[j].NullSeen = true
				}
			}
		}
	}
	var v Verdict
	expectProblems(&v, l, d.rw, d.params, toSet(enumList))
	if len(v.Expect) > 0 || len(v.May) > 0 {
		problems = append(problems, fmt.Sprintf("would have problems %v, may %v", v.Expect, v.May))
	}
	return lt, problems, nil
}

// deriveMutation creates a mutated release in schema ns and records
// PostgreSQL's verdict on each of its logics.
func (s *session) deriveMutation(ctx context.Context, sc *Schema, m *Mutation, ns string, types map[string]string) (*MutationTruth, error) {
	mu, err := m.Apply(sc.Snapshot)
	if err != nil {
		return nil, err
	}
	if err := s.createRelease(ctx, ns, mu.Snapshot, func() error { return s.copyRows(ctx, mu) }); err != nil {
		return nil, err
	}
	if err := s.readTypes(ctx, ns, mu.Snapshot, types); err != nil {
		return nil, err
	}
	enums := toSet(enumTypes(mu.Snapshot))
	mt := &MutationTruth{Name: m.Name, Change: m.describe(), Note: m.Note, OK: []string{}, Verdicts: []Verdict{}}
	for i := range mu.Snapshot.Logics {
		l := &mu.Snapshot.Logics[i]
		d, err := s.describe(ctx, l.SQL, false)
		if err != nil {
			return nil, fmt.Errorf("logic %s: %w", l.Name, err)
		}
		v := Verdict{Logic: l.Name}
		if d.err != nil {
			v.Phase, v.SQLState, v.Message = "prepare", d.err.Code, d.err.Message
			v.Position = d.rw.OriginalPos(int(d.err.Position))
		} else {
			for _, args := range sc.Args[l.Name] {
				_, _, err := s.run(ctx, d, args)
				var pgErr *pgconn.PgError
				if errors.As(err, &pgErr) {
					v.Phase, v.SQLState, v.Message = "execute", pgErr.Code, pgErr.Message
					v.Position = d.rw.OriginalPos(int(pgErr.Position))
					break
				} else if err != nil {
					return nil, fmt.Errorf("logic %s: %w", l.Name, err)
				}
			}
			if err := s.release(ctx); err != nil {
				return nil, err
			}
		}
		expectProblems(&v, l, d.rw, d.params, enums)
		if v.Phase == "" && len(v.Expect) == 0 && len(v.May) == 0 {
			mt.OK = append(mt.OK, l.Name)
			continue
		}
		mt.Verdicts = append(mt.Verdicts, v)
	}
	return mt, nil
}

// copyRows fills a mutated release's tables from the base release's rows,
// each value through text into its (maybe new) type, or from the
// mutation's fill.
func (s *session) copyRows(ctx context.Context, mu *Mutated) error {
	for _, t := range mu.Snapshot.Tables {
		var cols, exprs []string
		for _, c := range t.Columns {
			if fill := mu.fill[t.Name][c.Name]; fill != "" {
				cols = append(cols, quoteIdent(c.Name))
				exprs = append(exprs, fill)
			} else if from, ok := mu.columnFrom[t.Name][c.Name]; ok {
				cols = append(cols, quoteIdent(c.Name))
				exprs = append(exprs, fmt.Sprintf("%s::text::%s", quoteIdent(from), c.Type))
			}
		}
		q := fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM base.%s", quoteIdent(t.Name), strings.Join(cols, ", "),
			strings.Join(exprs, ", "), quoteIdent(mu.tableFrom[t.Name]))
		if err := s.exec(ctx, q); err != nil {
			return fmt.Errorf("copy rows: %s: %w", q, err)
		}
	}
	return nil
}

// readTypes records PostgreSQL's spelling of every column type of the
// release in schema ns.
func (s *session) readTypes(ctx context.Context, ns string, snap *Snapshot, types map[string]string) error {
	rows, err := s.conn.Query(ctx, `SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod)
		FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
		WHERE c.relnamespace = $1::regnamespace AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped`, ns)
	if err != nil {
		return fmt.Errorf("column types: %w", err)
	}
	spelled := map[[2]string]string{}
	for rows.Next() {
		var t, c, typ string
		if err := rows.Scan(&t, &c, &typ); err != nil {
			rows.Close()
			return fmt.Errorf("column types: %w", err)
		}
		spelled[[2]string{t, c}] = typ
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("column types: %w", err)
	}
	for _, t := range snap.Tables {
		for _, c := range t.Columns {
			typ, ok := spelled[[2]string{t.Name, c.Name}]
			if !ok {
				return fmt.Errorf("column %s.%s not created", t.Name, c.Name)
			}
			if prev, ok := types[c.Type]; ok && prev != typ {
				return fmt.Errorf("type %s spelled both %s and %s", c.Type, prev, typ)
			}
			types[c.Type] = typ
		}
	}
	return nil
}

// describe says what a mutation changes, in a few words.
func (m *Mutation) describe() string {
	switch m.Op {
	case "drop_column":
		return fmt.Sprintf("drop column %s.%s", m.Table, m.Column)
	case "drop_table":
		return "drop table " + m.Table
	case "rename_column":
		return fmt.Sprintf("rename column %s.%s to %s", m.Table, m.Column, m.To)
	case "rename_table":
		return fmt.Sprintf("rename table %s to %s", m.Table, m.To)
	case "change_type":
		return fmt.Sprintf("change type of %s.%s to %s", m.Table, m.Column, m.Type)
	case "add_column":
		null := "NULL"
		if !m.Add.IsNullable() {
			null = "NOT NULL"
		}
		def := ""
		if m.Add.DefaultSQL() != "" {
			def = " DEFAULT " + m.Add.DefaultSQL()
		}
		return fmt.Sprintf("add column %s.%s %s %s%s", m.Table, m.Add.Name, m.Add.Type, null, def)
	case "misspell":
		return fmt.Sprintf("misspell %s as %s in logic %s", m.Word, m.To, m.Logic)
	case "add_param":
		return fmt.Sprintf("declare an unused param %s %s on logic %s", m.Param.Name, m.Param.Type, m.Logic)
	case "remove_param":
		return fmt.Sprintf("remove the used param %s from logic %s", m.Param.Name, m.Logic)
	}
	return m.Op
}

// enumTypes lists the enum types of a snapshot.
func enumTypes(s *Snapshot) []string {
	var out []string
	for _, t := range s.Tables {
		for _, c := range t.Columns {
			if len(c.Enum) > 0 && !containsString(out, c.Type) {
				out = append(out, c.Type)
			}
		}
	}
	if out == nil {
		out = []string{}
	}
	return out
}

func toSet(list []string) map[string]bool {
	m := map[string]bool{}
	for _, s := range list {
		m[s] = true
	}
	return m
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

package analysis

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hubsnap/hubsnap/indexer/analysis/internal/pgparse"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// Analyze analyses one logic against the release's tables. It never
// fails: what it cannot judge is said in Unjudged. Safe for concurrent
// use.
func (a *Analyzer) Analyze(ctx context.Context, c *Tables, l snapshot.Logic) (res snapshot.Analysis) {
	res = snapshot.Analysis{Statement: snapshot.StatementOther, Tables: []snapshot.TableAccess{}, Bindings: []snapshot.Binding{}, Problems: []snapshot.Problem{}}
	defer func() {
		if r := recover(); r != nil {
			res = snapshot.Analysis{Statement: res.Statement, Tables: []snapshot.TableAccess{}, Bindings: []snapshot.Binding{}, Problems: []snapshot.Problem{},
				Unjudged: fmt.Sprintf("analysis failed: %v", r)}
		}
	}()
	if c == nil {
		c = NewTables(nil)
	}
	if len(l.SQL) > MaxSQL {
		res.Unjudged = fmt.Sprintf("SQL longer than %d bytes", MaxSQL)
		return res
	}
	// Compile the engine this SQL needs before its time starts.
	if err := a.p.Ready(ctx, len(l.SQL)); err != nil {
		res.Unjudged = "parser unavailable: " + err.Error()
		return res
	}
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()

	declared := make(map[string]snapshot.Param, len(l.Params))
	for _, p := range l.Params {
		declared[p.Name] = p
	}
	rw := &Rewrite{SQL: l.SQL, original: l.SQL, Complete: true}
	if strings.ContainsAny(l.SQL, ":$") {
		// Without either byte, neither a placeholder nor a $n is written
		// and the scanner would find nothing to replace; SQL it would
		// reject, the parser rejects below. Else the scanner finds them.
		var err error
		rw, err = a.rewrite(ctx, l.SQL, func(name string) bool { _, ok := declared[name]; return ok })
		if err != nil {
			res.Unjudged = a.parserFailure(ctx, err)
			return res
		}
	}
	pr, err := a.p.Parse(ctx, rw.SQL)
	var pe *pgparse.Error
	if errors.As(err, &pe) {
		switch {
		case isResourceError(pe.Message):
			res.Unjudged = "PostgreSQL's parser gave up: " + pe.Message
		case !c.allPostgres:
			res.Unjudged = "PostgreSQL rejects the SQL, but the release also has connections of other engines the SQL may be written for: " + pe.Message
		default:
			p := snapshot.Problem{Code: snapshot.CodeSyntax, Message: pe.Message}
			if pe.Cursorpos > 0 {
				p.Position = rw.Position(byteOffset(rw.SQL, pe.Cursorpos))
			}
			res.Problems = append(res.Problems, p)
		}
		return res
	}
	if errors.Is(err, pgparse.ErrTree) {
		res.Unjudged = "parse tree not understood: " + err.Error()
		return res
	}
	if err != nil {
		res.Unjudged = a.parserFailure(ctx, err)
		return res
	}
	switch {
	case len(pr.Stmts) == 0 || pr.Stmts[0].Stmt == nil:
		res.Unjudged = "no statement"
		return res
	case len(pr.Stmts) > 1:
		res.Unjudged = fmt.Sprintf("%d statements: only a single statement is analysed", len(pr.Stmts))
		return res
	}
	stmt := pr.Stmts[0].Stmt
	res.Statement = statementKind(stmt)

	s := newState(ctx, c, rw, declared, nil)
	cols, returns, known := s.run(stmt)
	if s.deferTo && s.abort == "" {
		s = newState(ctx, c, rw, declared, s.choose())
		cols, returns, known = s.run(stmt)
	}
	s.finish(&res)
	if rw.Positional > 0 {
		s.unjudged("the SQL writes its own $%d parameters", rw.Positional)
	}
	if rw.Complete {
		s.paramProblems(l)
	}
	// Problems stay in the order the analysis met them, which follows
	// PostgreSQL's: the first is the one PostgreSQL reports.
	res.Problems = append(res.Problems, s.problems...)
	switch {
	case s.abort != "":
		res.Unjudged = s.abort
	case returns && !known:
		res.Unjudged = firstNonEmpty(s.partial, "the columns of a row are not all known")
	case returns:
		res.Result = make([]snapshot.ResultColumn, 0, len(cols))
		for _, c := range cols {
			rc := snapshot.ResultColumn{Name: c.name, Type: c.t.String(), Nullable: !c.notNull}
			if c.snapType != "" {
				rc.Type = c.snapType
			}
			if c.src != nil {
				rc.Source = &snapshot.ColumnSource{Table: c.src.table.name, Column: c.src.info().name}
			}
			res.Result = append(res.Result, rc)
		}
		res.Unjudged = s.partial
	default:
		res.Unjudged = s.partial
	}
	return res
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func newState(ctx context.Context, c *Tables, rw *Rewrite, declared map[string]snapshot.Param, chosen map[string]*tableInfo) *state {
	return &state{
		ctx: ctx, rel: c, rw: rw, declared: declared,
		tableIdx:     map[*tableInfo]*access{},
		multi:        map[string][]*tableInfo{},
		single:       map[string]bool{},
		chosen:       chosen,
		sublinkNames: map[*pgparse.SubLink]string{},
	}
}

// run analyses the statement; returns tells whether it returns rows.
func (s *state) run(stmt *pgparse.Node) (cols []rcol, returns, known bool) {
	defer func() {
		if r := recover(); r != nil {
			if r != errAbort { //nolint:errorlint // the sentinel itself is panicked
				panic(r)
			}
			cols, returns, known = nil, true, false
		}
	}()
	top := &level{}
	switch {
	case stmt.SelectStmt != nil:
		cols, known = s.selectStmt(top, stmt.SelectStmt, true)
		return cols, true, known
	case stmt.InsertStmt != nil:
		cols, known = s.insertStmt(top, stmt.InsertStmt)
	case stmt.UpdateStmt != nil:
		cols, known = s.updateStmt(top, stmt.UpdateStmt)
	case stmt.DeleteStmt != nil:
		cols, known = s.deleteStmt(top, stmt.DeleteStmt)
	case stmt.MergeStmt != nil:
		cols, known = s.mergeStmt(top, stmt.MergeStmt)
	default:
		s.unjudged("%s statements are not analysed", stmt.Kind())
		return nil, false, true
	}
	return cols, cols != nil, known
}

// choose picks, for each bare name found in several connections, the
// connection that holds the statement's other tables; names left out of
// the map are ambiguous.
func (s *state) choose() map[string]*tableInfo {
	chosen := map[string]*tableInfo{}
	var common map[string]bool
	if len(s.single) > 0 {
		common = s.single
	} else {
		for _, ts := range s.multi {
			conns := map[string]bool{}
			for _, t := range ts {
				if common == nil || common[t.conn] {
					conns[t.conn] = true
				}
			}
			common = conns
		}
	}
	for name, ts := range s.multi {
		var pick *tableInfo
		n := 0
		for _, t := range ts {
			if common[t.conn] {
				pick = t
				n++
			}
		}
		if n == 1 {
			chosen[name] = pick
		}
	}
	return chosen
}

// statementKind names the statement as §11 does.
func statementKind(n *pgparse.Node) string {
	switch {
	case n.SelectStmt != nil:
		return snapshot.StatementSelect
	case n.InsertStmt != nil:
		return snapshot.StatementInsert
	case n.UpdateStmt != nil:
		return snapshot.StatementUpdate
	case n.DeleteStmt != nil:
		return snapshot.StatementDelete
	case n.MergeStmt != nil:
		return snapshot.StatementMerge
	}
	return snapshot.StatementOther
}

// isResourceError reports parser errors that are limits of the parser,
// not defects of the SQL.
func isResourceError(msg string) bool {
	return strings.HasPrefix(msg, "out of memory") || strings.HasPrefix(msg, "stack depth limit exceeded")
}

// parserFailure says why the parser could not answer.
func (a *Analyzer) parserFailure(ctx context.Context, err error) string {
	if ctx.Err() != nil {
		return fmt.Sprintf("timed out after %s", a.timeout)
	}
	return "parser failed: " + err.Error()
}

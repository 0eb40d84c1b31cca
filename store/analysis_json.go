package store

import (
	"context"
	"database/sql"
	"fmt"
)

// The logic analysis (SPEC §11) in the answers of the tools: composed by
// SQL from the rows of migration 0009 (docs/index.md, "Logic analysis"),
// like the rest of each answer.
//
// A release with no release_analysis row has no postgres connection: its
// answers say nothing of analysis. While its row's state is 'pending'
// (serve indexed it and a child process is analysing it), logic_get says
// "analysisPending": true where "analysis" would be, release_info says the
// same, and usedBy, logics.broken and logicProblems are left out.

// analysisCaps are the byte shares of the lists of a logic's "analysis":
// each list holds the items that fit in its share, in order, and says how
// many it has in all ("<list>Total") when it holds fewer.
type analysisCaps struct {
	tables, result, bindings, problems int
}

var (
	// wholeAnalysis are the shares in a whole logic_get answer: 56 KiB
	// together at most, so an analysis alone never passes the budget.
	wholeAnalysis = analysisCaps{tables: 8 << 10, result: 32 << 10, bindings: 8 << 10, problems: 8 << 10}
	// cutAnalysis are the shares in a cut answer (qLogicCut), where the
	// SQL is cut to cutAnalysisSQL bytes to make room: 28 KiB together.
	cutAnalysis = analysisCaps{tables: 4 << 10, result: 16 << 10, bindings: 4 << 10, problems: 4 << 10}
)

// cutAnalysisSQL is the most bytes of JSON text of the SQL of a cut
// logic_get answer that has an analysis (46,080 without one).
const cutAnalysisSQL = 16 << 10

// qLogicAnalysis composes the "analysis" member of the logic_get answer
// of logic ?2 of release ?1 (analysisMember), its lists' shares ?3 to ?6
// (analysisCaps): one statement for the whole and the cut answer.
var qLogicAnalysis = readQuery(`SELECT ` + analysisMember() + ` AS member FROM logics l WHERE l.release = ?1 AND l.name = ?2`)

// logicAnalysisMember runs qLogicAnalysis: the member's text, with its
// leading comma, or nil when there is none.
func logicAnalysisMember(ctx context.Context, tx readTx, rel int64, name string, c analysisCaps) ([]byte, error) {
	var member []byte
	err := tx.row(ctx, qLogicAnalysis, rel, name, c.tables, c.result, c.bindings, c.problems).Scan(&member)
	if err == sql.ErrNoRows {
		err = nil
	}
	return member, err
}

// spliceMember adds member (",\"key\":value", or nothing) at the end of
// the JSON object answer.
func spliceMember(answer, member []byte) []byte {
	if len(member) == 0 {
		return answer
	}
	return append(append(answer[:len(answer)-1:len(answer)-1], member...), '}')
}

// cappedList is the SQL of a JSON array of the items (JSON texts, column
// item) of the rows that from (a FROM clause with column position) gives,
// in position order, those that fit in cap bytes, followed by
// `,"<total>":N` when some were left out.
func cappedList(items, from string, cap string, total string) string {
	return fmt.Sprintf(`(SELECT concat('[', group_concat(iif(bytes <= %[3]s, item, NULL), ',' ORDER BY position), ']',
			iif(max(bytes) > %[3]s, concat(',"%[4]s":', count(*)), ''))
		FROM (SELECT position, item, sum(octet_length(item) + 1) OVER (ORDER BY position) AS bytes
			FROM (SELECT position, %[1]s AS item %[2]s)))`, items, from, cap, total)
}

// analysisMember is the SQL expression of the "analysis" member of the
// logic_get answer of logic l (a row of logics in scope): ',"analysis":
// {...}' when the logic is analysed, ',"analysisPending":true' while its
// release's analysis is pending, NULL otherwise.
func analysisMember() string {
	return `(SELECT iif(ra.state = 'pending', ',"analysisPending":true', (
		SELECT concat(',"analysis":{"statement":', json_quote(a.statement),
			',"tables":', ` + cappedList(
		`concat('{"table":', json_quote(table_name), ',"connection":', json_quote(connection), ',"access":', json_quote(access), '}')`,
		`FROM logic_tables WHERE logic_id = a.logic_id`, "?3", "tablesTotal") + `,
			',"result":', iif(a.returns_rows, ` + cappedList(
		`concat('{"name":', json_quote(name), ',"type":', json_quote(type), ',"nullable":', iif(nullable, 'true', 'false'),
			iif(source_table IS NULL, '', concat(',"source":{"table":', json_quote(source_table), ',"column":', json_quote(source_column), '}')), '}')`,
		`FROM logic_results WHERE logic_id = a.logic_id`, "?4", "resultTotal") + `, 'null'),
			',"bindings":', ` + cappedList(
		`concat('{"param":', json_quote(param), ',"table":', json_quote(table_name), ',"column":', json_quote(column_name), '}')`,
		`FROM logic_bindings WHERE logic_id = a.logic_id`, "?5", "bindingsTotal") + `,
			',"problems":', ` + cappedList(problemItem,
		`FROM logic_problems WHERE logic_id = a.logic_id`, "?6", "problemsTotal") + `,
			iif(a.unjudged = '', '', concat(',"unjudged":', json_quote_cut(a.unjudged, 1024))), '}')
		FROM logic_analysis a WHERE a.logic_id = l.id))
	FROM release_analysis ra WHERE ra.release = l.release)`
}

// problemItem is the SQL of the JSON of a row of logic_problems:
// {"code","message","position"?}.
const problemItem = `concat('{"code":', json_quote(code), ',"message":', json_quote(message),
	iif(sql_position IS NULL, '', concat(',"position":', sql_position)), '}')`

// maxUsedBy is how many logics schema_get_table's usedBy lists at most.
const maxUsedBy = 100

// usedByMember is the SQL expression of the "usedBy" member of the
// schema_get_table answer of table t (a row of tables in scope): the
// logics that touch it, by name, at most maxUsedBy of them and no more
// than fit in bytes (0: no bound), with usedByTotal when some are left
// out; NULL when none does. The table's rows of logic_tables are one
// range of its primary key.
func usedByMember(bytes int) string {
	bound := "1"
	if bytes > 0 {
		bound = fmt.Sprintf("bytes <= %d", bytes)
	}
	return fmt.Sprintf(`(SELECT concat(',"usedBy":[', group_concat(iif(n <= %[1]d AND %[2]s, item, NULL), ',' ORDER BY n), ']',
			iif(max(n) > %[1]d OR NOT min(%[2]s), concat(',"usedByTotal":', count(*)), ''))
		FROM (SELECT item, row_number() OVER w AS n, sum(octet_length(item) + 1) OVER w AS bytes
			FROM (SELECT l.name, concat('{"logic":', json_quote(l.name), ',"access":', json_quote(u.access), '}') AS item
				FROM logic_tables u CROSS JOIN logics l ON l.id = u.logic_id
				WHERE u.release = t.release AND u.connection = t.connection AND u.table_name = t.name)
			WINDOW w AS (ORDER BY name))
		HAVING count(*) > 0)`, maxUsedBy, bound)
}

package analysis

import "strconv"

// The parse tree as libpg_query writes it in JSON: each node an object
// with one member named after its PostgreSQL node type, fields named as
// in PostgreSQL's C structs, zero values left out. Only the nodes and
// fields the analysis reads are declared; any other node type lands in
// Node.Other, so the analysis knows it met something it does not read.

// node is one parse-tree node: exactly one field is set.
type node struct {
	SelectStmt       *selectStmt
	InsertStmt       *insertStmt
	UpdateStmt       *updateStmt
	DeleteStmt       *deleteStmt
	RangeVar         *rangeVar
	JoinExpr         *joinExpr
	RangeSubselect   *rangeSubselect
	RangeFunction    *rangeFunction
	RangeTableSample *rangeTableSample
	ResTarget        *resTarget
	ColumnRef        *columnRef
	ParamRef         *paramRef
	AConst           *aConst
	TypeCast         *typeCast
	AExpr            *aExpr
	BoolExpr         *boolExpr
	NullTest         *nullTest
	BooleanTest      *booleanTest
	FuncCall         *funcCall
	CaseExpr         *caseExpr
	CaseWhen         *caseWhen
	CoalesceExpr     *argsExpr
	MinMaxExpr       *minMaxExpr
	SubLink          *subLink
	AArrayExpr       *aArrayExpr
	RowExpr          *argsExpr
	AIndirection     *aIndirection
	AIndices         *aIndices
	AStar            *struct{}
	String           *stringNode
	Integer          *integerNode
	CollateClause    *collateClause
	SQLValueFunction *sqlValueFunction
	SortBy           *sortBy
	GroupingSet      *groupingSet
	GroupingFunc     *argsExpr
	NamedArgExpr     *namedArgExpr
	SetToDefault     *locOnly
	MultiAssignRef   *multiAssignRef
	CommonTableExpr  *commonTableExpr
	List             *listNode
	IndexElem        *indexElem
	ColumnDef        *columnDef
	WindowDef        *windowDef
	MergeWhenClause  *mergeWhenClause
	MergeStmt        *mergeStmt
	// Other names any node type not declared above.
	Other string
}

// kind names the node's type (for notes on what was left unjudged).
func (n *node) kind() string {
	switch {
	case n == nil:
		return "nothing"
	case n.Other != "":
		return n.Other
	}
	return "node"
}

// isEmpty reports a node with no member, as libpg_query writes a NULL
// list element (e.g. the one element of a plain DISTINCT).
func (n *node) isEmpty() bool {
	return n == nil || *n == node{}
}

type alias struct {
	Aliasname string
	Colnames  []*node
}

type rangeVar struct {
	Catalogname string
	Schemaname  string
	Relname     string
	Alias       *alias
	Location    int
}

type joinExpr struct {
	Jointype       string
	IsNatural      bool
	Larg           *node
	Rarg           *node
	UsingClause    []*node
	JoinUsingAlias *alias
	Quals          *node
	Alias          *alias
}

type rangeSubselect struct {
	Lateral  bool
	Subquery *node
	Alias    *alias
}

type rangeFunction struct {
	Lateral    bool
	Ordinality bool
	IsRowsfrom bool
	Functions  []*node
	Alias      *alias
	Coldeflist []*node
}

type rangeTableSample struct {
	Relation   *node
	Args       []*node
	Repeatable *node
}

type resTarget struct {
	Name        string
	Indirection []*node
	Val         *node
	Location    int
}

type columnRef struct {
	Fields   []*node
	Location int
}

type paramRef struct {
	Number   int
	Location int
}

type aConst struct {
	Ival     *int64
	Fval     *string
	Boolval  *bool
	Sval     *string
	Bsval    *string
	Isnull   bool
	Location int
}

type typeName struct {
	Names       []*node
	Setof       bool
	PctType     bool
	Typmods     []*node
	ArrayBounds []*node
	Location    int
}

type typeCast struct {
	Arg      *node
	TypeName *typeName
	Location int
}

type aExpr struct {
	Kind     string
	Name     []*node
	Lexpr    *node
	Rexpr    *node
	Location int
}

type boolExpr struct {
	Boolop string
	Args   []*node
}

type nullTest struct {
	Arg          *node
	Nulltesttype string
}

type booleanTest struct {
	Arg *node
}

type funcCall struct {
	Funcname       []*node
	Args           []*node
	AggOrder       []*node
	AggFilter      *node
	Over           *windowDef
	AggWithinGroup bool
	AggStar        bool
	AggDistinct    bool
	FuncVariadic   bool
	Location       int
}

type windowDef struct {
	Name            string
	Refname         string
	PartitionClause []*node
	OrderClause     []*node
	StartOffset     *node
	EndOffset       *node
}

type caseExpr struct {
	Arg       *node
	Args      []*node
	Defresult *node
	Location  int
}

type caseWhen struct {
	Expr   *node
	Result *node
}

type argsExpr struct {
	Args     []*node
	Location int
}

type minMaxExpr struct {
	Op       string
	Args     []*node
	Location int
}

type subLink struct {
	SubLinkType string
	Testexpr    *node
	OperName    []*node
	Subselect   *node
	Location    int
}

type aArrayExpr struct {
	Elements []*node
	Location int
}

type aIndirection struct {
	Arg         *node
	Indirection []*node
}

type aIndices struct {
	IsSlice bool
	Lidx    *node
	Uidx    *node
}

type stringNode struct {
	Sval string
}

type integerNode struct {
	Ival int64
}

type collateClause struct {
	Arg *node
}

type sqlValueFunction struct {
	Op     string
	Typmod int
}

type sortBy struct {
	Node *node
}

type groupingSet struct {
	Kind    string
	Content []*node
}

type namedArgExpr struct {
	Arg  *node
	Name string
}

type locOnly struct {
	Location int
}

type multiAssignRef struct {
	Source   *node
	Colno    int
	Ncolumns int
}

type listNode struct {
	Items []*node
}

type columnDef struct {
	Colname  string
	TypeName *typeName
}

// str returns the string of a String node ("" otherwise).
func str(n *node) string {
	if n == nil || n.String == nil {
		return ""
	}
	return n.String.Sval
}

// strs returns the strings of a list of String nodes.
func strs(ns []*node) []string {
	out := make([]string, 0, len(ns))
	for _, n := range ns {
		out = append(out, str(n))
	}
	return out
}

// itoa is strconv.Itoa, short.
func itoa(i int) string { return strconv.Itoa(i) }

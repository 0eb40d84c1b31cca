package pgparse

// The parse tree as libpg_query writes it in JSON: each node an object
// with one member named after its PostgreSQL node type, fields named as
// in PostgreSQL's C structs, zero values left out. Only the nodes and
// fields the analysis reads are declared; any other node type lands in
// Node.Other, so the analysis knows it met something it does not read.

// Node is one parse-tree node: exactly one field is set.
type Node struct {
	SelectStmt       *SelectStmt
	InsertStmt       *InsertStmt
	UpdateStmt       *UpdateStmt
	DeleteStmt       *DeleteStmt
	RangeVar         *RangeVar
	JoinExpr         *JoinExpr
	RangeSubselect   *RangeSubselect
	RangeFunction    *RangeFunction
	RangeTableSample *RangeTableSample
	ResTarget        *ResTarget
	ColumnRef        *ColumnRef
	ParamRef         *ParamRef
	AConst           *AConst
	TypeCast         *TypeCast
	AExpr            *AExpr
	BoolExpr         *BoolExpr
	NullTest         *NullTest
	BooleanTest      *BooleanTest
	FuncCall         *FuncCall
	CaseExpr         *CaseExpr
	CaseWhen         *CaseWhen
	CoalesceExpr     *ArgsExpr
	MinMaxExpr       *MinMaxExpr
	SubLink          *SubLink
	AArrayExpr       *AArrayExpr
	RowExpr          *ArgsExpr
	AIndirection     *AIndirection
	AIndices         *AIndices
	AStar            *struct{}
	String           *StringNode
	Integer          *IntegerNode
	CollateClause    *CollateClause
	SQLValueFunction *SQLValueFunction
	SortBy           *SortBy
	GroupingSet      *GroupingSet
	GroupingFunc     *ArgsExpr
	NamedArgExpr     *NamedArgExpr
	SetToDefault     *LocOnly
	MultiAssignRef   *MultiAssignRef
	CommonTableExpr  *CommonTableExpr
	List             *ListNode
	IndexElem        *IndexElem
	ColumnDef        *ColumnDef
	WindowDef        *WindowDef
	MergeWhenClause  *MergeWhenClause
	MergeStmt        *MergeStmt
	// Other names any node type not declared above.
	Other string
}

// Kind names the node's type for notes on what was left unjudged: Other
// for a type the package does not read, "nothing" for no node, else
// "node".
func (n *Node) Kind() string {
	switch {
	case n == nil:
		return "nothing"
	case n.Other != "":
		return n.Other
	}
	return "node"
}

// IsEmpty reports a node with no member, as libpg_query writes a NULL
// list element (e.g. the one element of a plain DISTINCT).
func (n *Node) IsEmpty() bool {
	return n == nil || *n == Node{}
}

// ColumnRef is a column reference: its dotted names, or * (an AStar field).
type ColumnRef struct {
	Fields   []*Node
	Location int
}

// ParamRef is a parameter: $n.
type ParamRef struct {
	Number   int
	Location int
}

// AConst is a literal: an integer, a number, a boolean, a string, a bit
// string or NULL.
type AConst struct {
	Ival     *int64
	Fval     *string
	Boolval  *bool
	Sval     *string
	Bsval    *string
	Isnull   bool
	Location int
}

// TypeCast is a cast: x::type or CAST(x AS type).
type TypeCast struct {
	Arg      *Node
	TypeName *TypeName
	Location int
}

// AExpr is an operator expression: an operator, IN, LIKE, BETWEEN, NULLIF,
// IS DISTINCT FROM, ... (Kind says which).
type AExpr struct {
	Kind     string
	Name     []*Node
	Lexpr    *Node
	Rexpr    *Node
	Location int
}

// BoolExpr is AND, OR or NOT over its arguments.
type BoolExpr struct {
	Boolop string
	Args   []*Node
}

// NullTest is IS [NOT] NULL.
type NullTest struct {
	Arg          *Node
	Nulltesttype string
}

// BooleanTest is IS [NOT] TRUE, FALSE or UNKNOWN.
type BooleanTest struct {
	Arg *Node
}

// FuncCall is a function call, with its aggregate and window parts.
type FuncCall struct {
	Funcname       []*Node
	Args           []*Node
	AggOrder       []*Node
	AggFilter      *Node
	Over           *WindowDef
	AggWithinGroup bool
	AggStar        bool
	AggDistinct    bool
	FuncVariadic   bool
	Location       int
}

// WindowDef is a window definition: an OVER clause or an entry of WINDOW.
type WindowDef struct {
	Name            string
	Refname         string
	PartitionClause []*Node
	OrderClause     []*Node
	StartOffset     *Node
	EndOffset       *Node
}

// CaseExpr is a CASE expression.
type CaseExpr struct {
	Arg       *Node
	Args      []*Node
	Defresult *Node
	Location  int
}

// CaseWhen is a WHEN ... THEN ... of a CASE expression.
type CaseWhen struct {
	Expr   *Node
	Result *Node
}

// ArgsExpr is an expression made of a list of arguments: COALESCE, ROW(...),
// GROUPING(...).
type ArgsExpr struct {
	Args     []*Node
	Location int
}

// MinMaxExpr is GREATEST or LEAST.
type MinMaxExpr struct {
	Op       string
	Args     []*Node
	Location int
}

// SubLink is a subquery in an expression: EXISTS, IN, ANY, ALL, ARRAY or a
// scalar subquery.
type SubLink struct {
	SubLinkType string
	Testexpr    *Node
	OperName    []*Node
	Subselect   *Node
	Location    int
}

// AArrayExpr is an ARRAY[...] constructor.
type AArrayExpr struct {
	Elements []*Node
	Location int
}

// AIndirection is subscripts or field selections applied to an expression:
// x[1], (x).f.
type AIndirection struct {
	Arg         *Node
	Indirection []*Node
}

// AIndices is a subscript or a slice: [i] or [lo:hi].
type AIndices struct {
	IsSlice bool
	Lidx    *Node
	Uidx    *Node
}

// StringNode is a String node: a name, or an operator's spelling.
type StringNode struct {
	Sval string
}

// IntegerNode is an Integer node.
type IntegerNode struct {
	Ival int64
}

// CollateClause is x COLLATE collation.
type CollateClause struct {
	Arg *Node
}

// SQLValueFunction is CURRENT_DATE, CURRENT_USER and the other SQL value
// functions.
type SQLValueFunction struct {
	Op     string
	Typmod int
}

// SortBy is an ORDER BY item.
type SortBy struct {
	Node *Node
}

// GroupingSet is ROLLUP, CUBE, GROUPING SETS or () in GROUP BY.
type GroupingSet struct {
	Kind    string
	Content []*Node
}

// NamedArgExpr is a named argument of a function call: name => value.
type NamedArgExpr struct {
	Arg  *Node
	Name string
}

// LocOnly is a node whose position is all the analysis reads (SetToDefault:
// DEFAULT in INSERT or UPDATE).
type LocOnly struct {
	Location int
}

// MultiAssignRef is one column of UPDATE ... SET (a, b) = (subquery or row).
type MultiAssignRef struct {
	Source   *Node
	Colno    int
	Ncolumns int
}

package pgparse

// The nodes of FROM items, result and target lists, and type names
// (decode_from.go reads them).

// Alias is an alias and its column aliases: AS a (x, y).
type Alias struct {
	Aliasname string
	Colnames  []*Node
}

// RangeVar is a table named in FROM or as a statement's target, with its
// schema, catalog and alias.
type RangeVar struct {
	Catalogname string
	Schemaname  string
	Relname     string
	Alias       *Alias
	Location    int
}

// JoinExpr is a JOIN of two FROM items: its kind, NATURAL, USING, ON and
// alias.
type JoinExpr struct {
	Jointype       string
	IsNatural      bool
	Larg           *Node
	Rarg           *Node
	UsingClause    []*Node
	JoinUsingAlias *Alias
	Quals          *Node
	Alias          *Alias
}

// RangeSubselect is a subquery in FROM.
type RangeSubselect struct {
	Lateral  bool
	Subquery *Node
	Alias    *Alias
}

// RangeFunction is a function call in FROM (ROWS FROM, WITH ORDINALITY, a
// column definition list).
type RangeFunction struct {
	Lateral    bool
	Ordinality bool
	IsRowsfrom bool
	Functions  []*Node
	Alias      *Alias
	Coldeflist []*Node
}

// RangeTableSample is a table in FROM with TABLESAMPLE.
type RangeTableSample struct {
	Relation   *Node
	Args       []*Node
	Repeatable *Node
}

// ResTarget is an item of a result list (a value and its alias) or of an
// INSERT or UPDATE target list (a column and its indirection).
type ResTarget struct {
	Name        string
	Indirection []*Node
	Val         *Node
	Location    int
}

// TypeName is a type as the SQL names it: its names, modifiers and array
// bounds.
type TypeName struct {
	Names       []*Node
	Setof       bool
	PctType     bool
	Typmods     []*Node
	ArrayBounds []*Node
	Location    int
}

// ListNode is a List node: a list of nodes.
type ListNode struct {
	Items []*Node
}

// ColumnDef is a column definition (in a FROM function's column definition
// list).
type ColumnDef struct {
	Colname  string
	TypeName *TypeName
}

package pgparse

// ParseResult is the parse tree of a text of SQL: its statements.
type ParseResult struct {
	Version int
	Stmts   []*RawStmt
}

// RawStmt is one statement of a ParseResult, with its place in the text.
type RawStmt struct {
	Stmt         *Node
	StmtLocation int
	StmtLen      int
}

// WithClause is a WITH clause: its common table expressions.
type WithClause struct {
	Ctes      []*Node
	Recursive bool
}

// SelectStmt is a SELECT, a VALUES list or a set operation (UNION,
// INTERSECT, EXCEPT) of two SelectStmts.
type SelectStmt struct {
	DistinctClause []*Node
	IntoClause     bool
	TargetList     []*Node
	FromClause     []*Node
	WhereClause    *Node
	GroupClause    []*Node
	GroupDistinct  bool
	HavingClause   *Node
	WindowClause   []*Node
	ValuesLists    []*Node
	SortClause     []*Node
	LimitOffset    *Node
	LimitCount     *Node
	LockingClause  []*Node
	WithClause     *WithClause
	Op             string
	All            bool
	Larg           *SelectStmt
	Rarg           *SelectStmt
}

// InsertStmt is an INSERT.
type InsertStmt struct {
	Relation         *RangeVar
	Cols             []*Node
	SelectStmt       *Node
	OnConflictClause *OnConflictClause
	ReturningList    []*Node
	WithClause       *WithClause
}

// OnConflictClause is the ON CONFLICT clause of an INSERT.
type OnConflictClause struct {
	Action      string
	Infer       *InferClause
	TargetList  []*Node
	WhereClause *Node
	Location    int
}

// InferClause is the conflict target of ON CONFLICT: index elements or a
// constraint's name.
type InferClause struct {
	IndexElems  []*Node
	WhereClause *Node
	Conname     string
}

// IndexElem is a column or expression of an ON CONFLICT target.
type IndexElem struct {
	Name string
	Expr *Node
}

// UpdateStmt is an UPDATE.
type UpdateStmt struct {
	Relation      *RangeVar
	TargetList    []*Node
	WhereClause   *Node
	FromClause    []*Node
	ReturningList []*Node
	WithClause    *WithClause
}

// DeleteStmt is a DELETE.
type DeleteStmt struct {
	Relation      *RangeVar
	UsingClause   []*Node
	WhereClause   *Node
	ReturningList []*Node
	WithClause    *WithClause
}

// CommonTableExpr is one query of a WITH clause.
type CommonTableExpr struct {
	Ctename       string
	Aliascolnames []*Node
	Ctequery      *Node
	SearchClause  bool
	CycleClause   bool
	Location      int
}

// MergeStmt is a MERGE.
type MergeStmt struct {
	Relation         *RangeVar
	SourceRelation   *Node
	JoinCondition    *Node
	MergeWhenClauses []*Node
	ReturningList    []*Node
	WithClause       *WithClause
}

// MergeWhenClause is a WHEN [NOT] MATCHED clause of a MERGE.
type MergeWhenClause struct {
	MatchKind   string
	CommandType string
	Condition   *Node
	TargetList  []*Node
	Values      []*Node
}

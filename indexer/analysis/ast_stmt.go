package analysis

type parseResult struct {
	Version int
	Stmts   []*rawStmt
}

type rawStmt struct {
	Stmt         *node
	StmtLocation int
	StmtLen      int
}

type withClause struct {
	Ctes      []*node
	Recursive bool
}

type selectStmt struct {
	DistinctClause []*node
	IntoClause     bool
	TargetList     []*node
	FromClause     []*node
	WhereClause    *node
	GroupClause    []*node
	GroupDistinct  bool
	HavingClause   *node
	WindowClause   []*node
	ValuesLists    []*node
	SortClause     []*node
	LimitOffset    *node
	LimitCount     *node
	LockingClause  []*node
	WithClause     *withClause
	Op             string
	All            bool
	Larg           *selectStmt
	Rarg           *selectStmt
}

type insertStmt struct {
	Relation         *rangeVar
	Cols             []*node
	SelectStmt       *node
	OnConflictClause *onConflictClause
	ReturningList    []*node
	WithClause       *withClause
}

type onConflictClause struct {
	Action      string
	Infer       *inferClause
	TargetList  []*node
	WhereClause *node
	Location    int
}

type inferClause struct {
	IndexElems  []*node
	WhereClause *node
	Conname     string
}

type indexElem struct {
	Name string
	Expr *node
}

type updateStmt struct {
	Relation      *rangeVar
	TargetList    []*node
	WhereClause   *node
	FromClause    []*node
	ReturningList []*node
	WithClause    *withClause
}

type deleteStmt struct {
	Relation      *rangeVar
	UsingClause   []*node
	WhereClause   *node
	ReturningList []*node
	WithClause    *withClause
}

type commonTableExpr struct {
	Ctename       string
	Aliascolnames []*node
	Ctequery      *node
	SearchClause  bool
	CycleClause   bool
	Location      int
}

type mergeStmt struct {
	Relation         *rangeVar
	SourceRelation   *node
	JoinCondition    *node
	MergeWhenClauses []*node
	ReturningList    []*node
	WithClause       *withClause
}

type mergeWhenClause struct {
	MatchKind   string
	CommandType string
	Condition   *node
	TargetList  []*node
	Values      []*node
}

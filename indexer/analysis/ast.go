package analysis

import (
	"reflect"
	"sort"
	"strconv"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The parse tree as libpg_query writes it in JSON: each node an object
// with one member named after its PostgreSQL node type, fields named as
// in PostgreSQL's C structs, zero values left out. Only the nodes and
// fields the analysis reads are declared; any other node type lands in
// Node.Other, so the analysis knows it met something it does not read.

// node is one parse-tree node: exactly one field is set.
type node struct {
	SelectStmt       *selectStmt       `json:"SelectStmt"`
	InsertStmt       *insertStmt       `json:"InsertStmt"`
	UpdateStmt       *updateStmt       `json:"UpdateStmt"`
	DeleteStmt       *deleteStmt       `json:"DeleteStmt"`
	RangeVar         *rangeVar         `json:"RangeVar"`
	JoinExpr         *joinExpr         `json:"JoinExpr"`
	RangeSubselect   *rangeSubselect   `json:"RangeSubselect"`
	RangeFunction    *rangeFunction    `json:"RangeFunction"`
	RangeTableSample *rangeTableSample `json:"RangeTableSample"`
	ResTarget        *resTarget        `json:"ResTarget"`
	ColumnRef        *columnRef        `json:"ColumnRef"`
	ParamRef         *paramRef         `json:"ParamRef"`
	AConst           *aConst           `json:"A_Const"`
	TypeCast         *typeCast         `json:"TypeCast"`
	AExpr            *aExpr            `json:"A_Expr"`
	BoolExpr         *boolExpr         `json:"BoolExpr"`
	NullTest         *nullTest         `json:"NullTest"`
	BooleanTest      *booleanTest      `json:"BooleanTest"`
	FuncCall         *funcCall         `json:"FuncCall"`
	CaseExpr         *caseExpr         `json:"CaseExpr"`
	CaseWhen         *caseWhen         `json:"CaseWhen"`
	CoalesceExpr     *argsExpr         `json:"CoalesceExpr"`
	MinMaxExpr       *minMaxExpr       `json:"MinMaxExpr"`
	SubLink          *subLink          `json:"SubLink"`
	AArrayExpr       *aArrayExpr       `json:"A_ArrayExpr"`
	RowExpr          *argsExpr         `json:"RowExpr"`
	AIndirection     *aIndirection     `json:"A_Indirection"`
	AIndices         *aIndices         `json:"A_Indices"`
	AStar            *struct{}         `json:"A_Star"`
	String           *stringNode       `json:"String"`
	Integer          *integerNode      `json:"Integer"`
	CollateClause    *collateClause    `json:"CollateClause"`
	SQLValueFunction *sqlValueFunction `json:"SQLValueFunction"`
	SortBy           *sortBy           `json:"SortBy"`
	GroupingSet      *groupingSet      `json:"GroupingSet"`
	GroupingFunc     *argsExpr         `json:"GroupingFunc"`
	NamedArgExpr     *namedArgExpr     `json:"NamedArgExpr"`
	SetToDefault     *locOnly          `json:"SetToDefault"`
	MultiAssignRef   *multiAssignRef   `json:"MultiAssignRef"`
	CommonTableExpr  *commonTableExpr  `json:"CommonTableExpr"`
	List             *listNode         `json:"List"`
	IndexElem        *indexElem        `json:"IndexElem"`
	ColumnDef        *columnDef        `json:"ColumnDef"`
	WindowDef        *windowDef        `json:"WindowDef"`
	MergeStmt        *struct{}         `json:"MergeStmt"`
	// Other holds any node type not declared above.
	Other jsontext.Value `json:",unknown"`
}

// kind names the node's type (for notes on what was left unjudged).
func (n *node) kind() string {
	if n == nil {
		return ""
	}
	if len(n.Other) > 0 {
		var m map[string]jsontext.Value
		if json.Unmarshal(n.Other, &m) == nil {
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			if len(keys) > 0 {
				return keys[0]
			}
		}
		return "unknown node"
	}
	return "node"
}

// isEmpty reports a node with no member, as libpg_query writes a NULL
// list element (e.g. the one element of a plain DISTINCT).
func (n *node) isEmpty() bool {
	if n == nil {
		return true
	}
	if len(n.Other) > 0 {
		return false
	}
	v := reflect.ValueOf(n).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() {
			return false
		}
	}
	return true
}

type parseResult struct {
	Version int        `json:"version"`
	Stmts   []*rawStmt `json:"stmts"`
}

type rawStmt struct {
	Stmt         *node `json:"stmt"`
	StmtLocation int   `json:"stmt_location"`
	StmtLen      int   `json:"stmt_len"`
}

type withClause struct {
	Ctes      []*node `json:"ctes"`
	Recursive bool    `json:"recursive"`
}

type selectStmt struct {
	DistinctClause []*node        `json:"distinctClause"`
	IntoClause     jsontext.Value `json:"intoClause"`
	TargetList     []*node        `json:"targetList"`
	FromClause     []*node        `json:"fromClause"`
	WhereClause    *node          `json:"whereClause"`
	GroupClause    []*node        `json:"groupClause"`
	GroupDistinct  bool           `json:"groupDistinct"`
	HavingClause   *node          `json:"havingClause"`
	WindowClause   []*node        `json:"windowClause"`
	ValuesLists    []*node        `json:"valuesLists"`
	SortClause     []*node        `json:"sortClause"`
	LimitOffset    *node          `json:"limitOffset"`
	LimitCount     *node          `json:"limitCount"`
	LockingClause  []*node        `json:"lockingClause"`
	WithClause     *withClause    `json:"withClause"`
	Op             string         `json:"op"`
	All            bool           `json:"all"`
	Larg           *selectStmt    `json:"larg"`
	Rarg           *selectStmt    `json:"rarg"`
}

type insertStmt struct {
	Relation         *rangeVar         `json:"relation"`
	Cols             []*node           `json:"cols"`
	SelectStmt       *node             `json:"selectStmt"`
	OnConflictClause *onConflictClause `json:"onConflictClause"`
	ReturningList    []*node           `json:"returningList"`
	WithClause       *withClause       `json:"withClause"`
}

type onConflictClause struct {
	Action      string       `json:"action"`
	Infer       *inferClause `json:"infer"`
	TargetList  []*node      `json:"targetList"`
	WhereClause *node        `json:"whereClause"`
	Location    int          `json:"location"`
}

type inferClause struct {
	IndexElems  []*node `json:"indexElems"`
	WhereClause *node   `json:"whereClause"`
	Conname     string  `json:"conname"`
}

type indexElem struct {
	Name string `json:"name"`
	Expr *node  `json:"expr"`
}

type updateStmt struct {
	Relation      *rangeVar   `json:"relation"`
	TargetList    []*node     `json:"targetList"`
	WhereClause   *node       `json:"whereClause"`
	FromClause    []*node     `json:"fromClause"`
	ReturningList []*node     `json:"returningList"`
	WithClause    *withClause `json:"withClause"`
}

type deleteStmt struct {
	Relation      *rangeVar   `json:"relation"`
	UsingClause   []*node     `json:"usingClause"`
	WhereClause   *node       `json:"whereClause"`
	ReturningList []*node     `json:"returningList"`
	WithClause    *withClause `json:"withClause"`
}

type alias struct {
	Aliasname string  `json:"aliasname"`
	Colnames  []*node `json:"colnames"`
}

type rangeVar struct {
	Catalogname string `json:"catalogname"`
	Schemaname  string `json:"schemaname"`
	Relname     string `json:"relname"`
	Alias       *alias `json:"alias"`
	Location    int    `json:"location"`
}

type joinExpr struct {
	Jointype       string  `json:"jointype"`
	IsNatural      bool    `json:"isNatural"`
	Larg           *node   `json:"larg"`
	Rarg           *node   `json:"rarg"`
	UsingClause    []*node `json:"usingClause"`
	JoinUsingAlias *alias  `json:"join_using_alias"`
	Quals          *node   `json:"quals"`
	Alias          *alias  `json:"alias"`
}

type rangeSubselect struct {
	Lateral  bool   `json:"lateral"`
	Subquery *node  `json:"subquery"`
	Alias    *alias `json:"alias"`
}

type rangeFunction struct {
	Lateral    bool    `json:"lateral"`
	Ordinality bool    `json:"ordinality"`
	IsRowsfrom bool    `json:"is_rowsfrom"`
	Functions  []*node `json:"functions"`
	Alias      *alias  `json:"alias"`
	Coldeflist []*node `json:"coldeflist"`
}

type rangeTableSample struct {
	Relation   *node   `json:"relation"`
	Args       []*node `json:"args"`
	Repeatable *node   `json:"repeatable"`
}

type resTarget struct {
	Name        string  `json:"name"`
	Indirection []*node `json:"indirection"`
	Val         *node   `json:"val"`
	Location    int     `json:"location"`
}

type columnRef struct {
	Fields   []*node `json:"fields"`
	Location int     `json:"location"`
}

type paramRef struct {
	Number   int `json:"number"`
	Location int `json:"location"`
}

type aConst struct {
	Ival *struct {
		Ival int64 `json:"ival"`
	} `json:"ival"`
	Fval *struct {
		Fval string `json:"fval"`
	} `json:"fval"`
	Boolval *struct {
		Boolval bool `json:"boolval"`
	} `json:"boolval"`
	Sval *struct {
		Sval string `json:"sval"`
	} `json:"sval"`
	Bsval *struct {
		Bsval string `json:"bsval"`
	} `json:"bsval"`
	Isnull   bool `json:"isnull"`
	Location int  `json:"location"`
}

type typeName struct {
	Names       []*node `json:"names"`
	Setof       bool    `json:"setof"`
	PctType     bool    `json:"pct_type"`
	Typmods     []*node `json:"typmods"`
	ArrayBounds []*node `json:"arrayBounds"`
	Location    int     `json:"location"`
}

type typeCast struct {
	Arg      *node     `json:"arg"`
	TypeName *typeName `json:"typeName"`
	Location int       `json:"location"`
}

type aExpr struct {
	Kind     string  `json:"kind"`
	Name     []*node `json:"name"`
	Lexpr    *node   `json:"lexpr"`
	Rexpr    *node   `json:"rexpr"`
	Location int     `json:"location"`
}

type boolExpr struct {
	Boolop string  `json:"boolop"`
	Args   []*node `json:"args"`
}

type nullTest struct {
	Arg          *node  `json:"arg"`
	Nulltesttype string `json:"nulltesttype"`
}

type booleanTest struct {
	Arg *node `json:"arg"`
}

type funcCall struct {
	Funcname       []*node    `json:"funcname"`
	Args           []*node    `json:"args"`
	AggOrder       []*node    `json:"agg_order"`
	AggFilter      *node      `json:"agg_filter"`
	Over           *windowDef `json:"over"`
	AggWithinGroup bool       `json:"agg_within_group"`
	AggStar        bool       `json:"agg_star"`
	AggDistinct    bool       `json:"agg_distinct"`
	FuncVariadic   bool       `json:"func_variadic"`
	Location       int        `json:"location"`
}

type windowDef struct {
	Name            string  `json:"name"`
	Refname         string  `json:"refname"`
	PartitionClause []*node `json:"partitionClause"`
	OrderClause     []*node `json:"orderClause"`
	StartOffset     *node   `json:"startOffset"`
	EndOffset       *node   `json:"endOffset"`
}

type caseExpr struct {
	Arg       *node   `json:"arg"`
	Args      []*node `json:"args"`
	Defresult *node   `json:"defresult"`
	Location  int     `json:"location"`
}

type caseWhen struct {
	Expr   *node `json:"expr"`
	Result *node `json:"result"`
}

type argsExpr struct {
	Args     []*node `json:"args"`
	Location int     `json:"location"`
}

type minMaxExpr struct {
	Op       string  `json:"op"`
	Args     []*node `json:"args"`
	Location int     `json:"location"`
}

type subLink struct {
	SubLinkType string  `json:"subLinkType"`
	Testexpr    *node   `json:"testexpr"`
	OperName    []*node `json:"operName"`
	Subselect   *node   `json:"subselect"`
	Location    int     `json:"location"`
}

type aArrayExpr struct {
	Elements []*node `json:"elements"`
	Location int     `json:"location"`
}

type aIndirection struct {
	Arg         *node   `json:"arg"`
	Indirection []*node `json:"indirection"`
}

type aIndices struct {
	IsSlice bool  `json:"is_slice"`
	Lidx    *node `json:"lidx"`
	Uidx    *node `json:"uidx"`
}

type stringNode struct {
	Sval string `json:"sval"`
}

type integerNode struct {
	Ival int64 `json:"ival"`
}

type collateClause struct {
	Arg *node `json:"arg"`
}

type sqlValueFunction struct {
	Op     string `json:"op"`
	Typmod int    `json:"typmod"`
}

type sortBy struct {
	Node *node `json:"node"`
}

type groupingSet struct {
	Kind    string  `json:"kind"`
	Content []*node `json:"content"`
}

type namedArgExpr struct {
	Arg  *node  `json:"arg"`
	Name string `json:"name"`
}

type locOnly struct {
	Location int `json:"location"`
}

type multiAssignRef struct {
	Source   *node `json:"source"`
	Colno    int   `json:"colno"`
	Ncolumns int   `json:"ncolumns"`
}

type commonTableExpr struct {
	Ctename       string         `json:"ctename"`
	Aliascolnames []*node        `json:"aliascolnames"`
	Ctequery      *node          `json:"ctequery"`
	SearchClause  jsontext.Value `json:"search_clause"`
	CycleClause   jsontext.Value `json:"cycle_clause"`
	Location      int            `json:"location"`
}

type listNode struct {
	Items []*node `json:"items"`
}

type columnDef struct {
	Colname  string    `json:"colname"`
	TypeName *typeName `json:"typeName"`
}

// decodeTree decodes libpg_query's JSON parse tree.
func decodeTree(b []byte) (*parseResult, error) {
	var r parseResult
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	return &r, nil
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

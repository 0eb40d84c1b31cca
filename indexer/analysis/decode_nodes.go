// Code written from a table of the fields the analysis reads; each
// decoder reads one libpg_query JSON object into its node type.

package analysis

// node reads one node: an object with one member named after its type.
func (r *jr) node() *node {
	n := r.newNode()
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "SelectStmt":
			n.SelectStmt = r.selectStmt()
		case "InsertStmt":
			n.InsertStmt = r.insertStmt()
		case "UpdateStmt":
			n.UpdateStmt = r.updateStmt()
		case "DeleteStmt":
			n.DeleteStmt = r.deleteStmt()
		case "RangeVar":
			n.RangeVar = r.rangeVar()
		case "JoinExpr":
			n.JoinExpr = r.joinExpr()
		case "RangeSubselect":
			n.RangeSubselect = r.rangeSubselect()
		case "RangeFunction":
			n.RangeFunction = r.rangeFunction()
		case "RangeTableSample":
			n.RangeTableSample = r.rangeTableSample()
		case "ResTarget":
			n.ResTarget = r.resTarget()
		case "ColumnRef":
			n.ColumnRef = r.columnRef()
		case "ParamRef":
			n.ParamRef = r.paramRef()
		case "A_Const":
			n.AConst = r.aConst()
		case "TypeCast":
			n.TypeCast = r.typeCast()
		case "A_Expr":
			n.AExpr = r.aExpr()
		case "BoolExpr":
			n.BoolExpr = r.boolExpr()
		case "NullTest":
			n.NullTest = r.nullTest()
		case "BooleanTest":
			n.BooleanTest = r.booleanTest()
		case "FuncCall":
			n.FuncCall = r.funcCall()
		case "CaseExpr":
			n.CaseExpr = r.caseExpr()
		case "CaseWhen":
			n.CaseWhen = r.caseWhen()
		case "CoalesceExpr":
			n.CoalesceExpr = r.argsExpr()
		case "MinMaxExpr":
			n.MinMaxExpr = r.minMaxExpr()
		case "SubLink":
			n.SubLink = r.subLink()
		case "A_ArrayExpr":
			n.AArrayExpr = r.aArrayExpr()
		case "RowExpr":
			n.RowExpr = r.argsExpr()
		case "A_Indirection":
			n.AIndirection = r.aIndirection()
		case "A_Indices":
			n.AIndices = r.aIndices()
		case "A_Star":
			r.skip()
			n.AStar = &struct{}{}
		case "String":
			n.String = r.stringNode()
		case "Integer":
			n.Integer = r.integerNode()
		case "CollateClause":
			n.CollateClause = r.collateClause()
		case "SQLValueFunction":
			n.SQLValueFunction = r.sqlValueFunction()
		case "SortBy":
			n.SortBy = r.sortBy()
		case "GroupingSet":
			n.GroupingSet = r.groupingSet()
		case "GroupingFunc":
			n.GroupingFunc = r.argsExpr()
		case "NamedArgExpr":
			n.NamedArgExpr = r.namedArgExpr()
		case "SetToDefault":
			n.SetToDefault = r.locOnly()
		case "MultiAssignRef":
			n.MultiAssignRef = r.multiAssignRef()
		case "CommonTableExpr":
			n.CommonTableExpr = r.commonTableExpr()
		case "List":
			n.List = r.listNode()
		case "IndexElem":
			n.IndexElem = r.indexElem()
		case "ColumnDef":
			n.ColumnDef = r.columnDef()
		case "WindowDef":
			n.WindowDef = r.windowDef()
		case "MergeStmt":
			n.MergeStmt = r.mergeStmt()
		case "MergeWhenClause":
			n.MergeWhenClause = r.mergeWhenClause()
		default:
			if n.Other == "" {
				n.Other = string(r.k)
			}
			r.skip()
		}
	}
	return n
}

// aConst reads an A_Const: {"ival": {"ival": 1}}, {"sval": {"sval": "x"}},
// ... ({"ival": {}} is 0).
func (r *jr) aConst() *aConst {
	c := &aConst{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "ival":
			v := int64(0)
			for r.obj(); r.next(); {
				v = r.int()
			}
			c.Ival = &v
		case "fval":
			v := ""
			for r.obj(); r.next(); {
				v = r.str()
			}
			c.Fval = &v
		case "boolval":
			v := false
			for r.obj(); r.next(); {
				v = r.bool()
			}
			c.Boolval = &v
		case "sval":
			v := ""
			for r.obj(); r.next(); {
				v = r.str()
			}
			c.Sval = &v
		case "bsval":
			v := ""
			for r.obj(); r.next(); {
				v = r.str()
			}
			c.Bsval = &v
		case "isnull":
			c.Isnull = r.bool()
		case "location":
			c.Location = int(r.int())
		default:
			r.skip()
		}
	}
	return c
}

func (r *jr) withClause() *withClause {
	v := &withClause{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "ctes":
			v.Ctes = r.nodes()
		case "recursive":
			v.Recursive = r.bool()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) selectStmt() *selectStmt {
	v := &selectStmt{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "distinctClause":
			v.DistinctClause = r.nodes()
		case "intoClause":
			v.IntoClause = r.present()
		case "targetList":
			v.TargetList = r.nodes()
		case "fromClause":
			v.FromClause = r.nodes()
		case "whereClause":
			v.WhereClause = r.node()
		case "groupClause":
			v.GroupClause = r.nodes()
		case "groupDistinct":
			v.GroupDistinct = r.bool()
		case "havingClause":
			v.HavingClause = r.node()
		case "windowClause":
			v.WindowClause = r.nodes()
		case "valuesLists":
			v.ValuesLists = r.nodes()
		case "sortClause":
			v.SortClause = r.nodes()
		case "limitOffset":
			v.LimitOffset = r.node()
		case "limitCount":
			v.LimitCount = r.node()
		case "lockingClause":
			v.LockingClause = r.nodes()
		case "withClause":
			v.WithClause = r.withClause()
		case "op":
			v.Op = r.str()
		case "all":
			v.All = r.bool()
		case "larg":
			v.Larg = r.selectStmt()
		case "rarg":
			v.Rarg = r.selectStmt()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) insertStmt() *insertStmt {
	v := &insertStmt{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "relation":
			v.Relation = r.rangeVar()
		case "cols":
			v.Cols = r.nodes()
		case "selectStmt":
			v.SelectStmt = r.node()
		case "onConflictClause":
			v.OnConflictClause = r.onConflictClause()
		case "returningList":
			v.ReturningList = r.nodes()
		case "withClause":
			v.WithClause = r.withClause()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) onConflictClause() *onConflictClause {
	v := &onConflictClause{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "action":
			v.Action = r.str()
		case "infer":
			v.Infer = r.inferClause()
		case "targetList":
			v.TargetList = r.nodes()
		case "whereClause":
			v.WhereClause = r.node()
		case "location":
			v.Location = int(r.int())
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) inferClause() *inferClause {
	v := &inferClause{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "indexElems":
			v.IndexElems = r.nodes()
		case "whereClause":
			v.WhereClause = r.node()
		case "conname":
			v.Conname = r.str()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) indexElem() *indexElem {
	v := &indexElem{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "name":
			v.Name = r.str()
		case "expr":
			v.Expr = r.node()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) updateStmt() *updateStmt {
	v := &updateStmt{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "relation":
			v.Relation = r.rangeVar()
		case "targetList":
			v.TargetList = r.nodes()
		case "whereClause":
			v.WhereClause = r.node()
		case "fromClause":
			v.FromClause = r.nodes()
		case "returningList":
			v.ReturningList = r.nodes()
		case "withClause":
			v.WithClause = r.withClause()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) deleteStmt() *deleteStmt {
	v := &deleteStmt{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "relation":
			v.Relation = r.rangeVar()
		case "usingClause":
			v.UsingClause = r.nodes()
		case "whereClause":
			v.WhereClause = r.node()
		case "returningList":
			v.ReturningList = r.nodes()
		case "withClause":
			v.WithClause = r.withClause()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) alias() *alias {
	v := &alias{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "aliasname":
			v.Aliasname = r.str()
		case "colnames":
			v.Colnames = r.nodes()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) rangeVar() *rangeVar {
	v := &rangeVar{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "catalogname":
			v.Catalogname = r.str()
		case "schemaname":
			v.Schemaname = r.str()
		case "relname":
			v.Relname = r.str()
		case "alias":
			v.Alias = r.alias()
		case "location":
			v.Location = int(r.int())
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) joinExpr() *joinExpr {
	v := &joinExpr{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "jointype":
			v.Jointype = r.str()
		case "isNatural":
			v.IsNatural = r.bool()
		case "larg":
			v.Larg = r.node()
		case "rarg":
			v.Rarg = r.node()
		case "usingClause":
			v.UsingClause = r.nodes()
		case "join_using_alias":
			v.JoinUsingAlias = r.alias()
		case "quals":
			v.Quals = r.node()
		case "alias":
			v.Alias = r.alias()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) rangeSubselect() *rangeSubselect {
	v := &rangeSubselect{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "lateral":
			v.Lateral = r.bool()
		case "subquery":
			v.Subquery = r.node()
		case "alias":
			v.Alias = r.alias()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) rangeFunction() *rangeFunction {
	v := &rangeFunction{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "lateral":
			v.Lateral = r.bool()
		case "ordinality":
			v.Ordinality = r.bool()
		case "is_rowsfrom":
			v.IsRowsfrom = r.bool()
		case "functions":
			v.Functions = r.nodes()
		case "alias":
			v.Alias = r.alias()
		case "coldeflist":
			v.Coldeflist = r.nodes()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) rangeTableSample() *rangeTableSample {
	v := &rangeTableSample{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "relation":
			v.Relation = r.node()
		case "args":
			v.Args = r.nodes()
		case "repeatable":
			v.Repeatable = r.node()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) resTarget() *resTarget {
	v := &resTarget{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "name":
			v.Name = r.str()
		case "indirection":
			v.Indirection = r.nodes()
		case "val":
			v.Val = r.node()
		case "location":
			v.Location = int(r.int())
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) columnRef() *columnRef {
	v := &columnRef{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "fields":
			v.Fields = r.nodes()
		case "location":
			v.Location = int(r.int())
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) paramRef() *paramRef {
	v := &paramRef{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "number":
			v.Number = int(r.int())
		case "location":
			v.Location = int(r.int())
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) typeName() *typeName {
	v := &typeName{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "names":
			v.Names = r.nodes()
		case "setof":
			v.Setof = r.bool()
		case "pct_type":
			v.PctType = r.bool()
		case "typmods":
			v.Typmods = r.nodes()
		case "arrayBounds":
			v.ArrayBounds = r.nodes()
		case "location":
			v.Location = int(r.int())
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) typeCast() *typeCast {
	v := &typeCast{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "arg":
			v.Arg = r.node()
		case "typeName":
			v.TypeName = r.typeName()
		case "location":
			v.Location = int(r.int())
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) aExpr() *aExpr {
	v := &aExpr{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "kind":
			v.Kind = r.str()
		case "name":
			v.Name = r.nodes()
		case "lexpr":
			v.Lexpr = r.node()
		case "rexpr":
			v.Rexpr = r.node()
		case "location":
			v.Location = int(r.int())
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) boolExpr() *boolExpr {
	v := &boolExpr{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "boolop":
			v.Boolop = r.str()
		case "args":
			v.Args = r.nodes()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) nullTest() *nullTest {
	v := &nullTest{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "arg":
			v.Arg = r.node()
		case "nulltesttype":
			v.Nulltesttype = r.str()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) booleanTest() *booleanTest {
	v := &booleanTest{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "arg":
			v.Arg = r.node()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) funcCall() *funcCall {
	v := &funcCall{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "funcname":
			v.Funcname = r.nodes()
		case "args":
			v.Args = r.nodes()
		case "agg_order":
			v.AggOrder = r.nodes()
		case "agg_filter":
			v.AggFilter = r.node()
		case "over":
			v.Over = r.windowDef()
		case "agg_within_group":
			v.AggWithinGroup = r.bool()
		case "agg_star":
			v.AggStar = r.bool()
		case "agg_distinct":
			v.AggDistinct = r.bool()
		case "func_variadic":
			v.FuncVariadic = r.bool()
		case "location":
			v.Location = int(r.int())
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) windowDef() *windowDef {
	v := &windowDef{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "name":
			v.Name = r.str()
		case "refname":
			v.Refname = r.str()
		case "partitionClause":
			v.PartitionClause = r.nodes()
		case "orderClause":
			v.OrderClause = r.nodes()
		case "startOffset":
			v.StartOffset = r.node()
		case "endOffset":
			v.EndOffset = r.node()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) caseExpr() *caseExpr {
	v := &caseExpr{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "arg":
			v.Arg = r.node()
		case "args":
			v.Args = r.nodes()
		case "defresult":
			v.Defresult = r.node()
		case "location":
			v.Location = int(r.int())
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) caseWhen() *caseWhen {
	v := &caseWhen{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "expr":
			v.Expr = r.node()
		case "result":
			v.Result = r.node()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) argsExpr() *argsExpr {
	v := &argsExpr{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "args":
			v.Args = r.nodes()
		case "location":
			v.Location = int(r.int())
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) minMaxExpr() *minMaxExpr {
	v := &minMaxExpr{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "op":
			v.Op = r.str()
		case "args":
			v.Args = r.nodes()
		case "location":
			v.Location = int(r.int())
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) subLink() *subLink {
	v := &subLink{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "subLinkType":
			v.SubLinkType = r.str()
		case "testexpr":
			v.Testexpr = r.node()
		case "operName":
			v.OperName = r.nodes()
		case "subselect":
			v.Subselect = r.node()
		case "location":
			v.Location = int(r.int())
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) aArrayExpr() *aArrayExpr {
	v := &aArrayExpr{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "elements":
			v.Elements = r.nodes()
		case "location":
			v.Location = int(r.int())
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) aIndirection() *aIndirection {
	v := &aIndirection{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "arg":
			v.Arg = r.node()
		case "indirection":
			v.Indirection = r.nodes()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) aIndices() *aIndices {
	v := &aIndices{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "is_slice":
			v.IsSlice = r.bool()
		case "lidx":
			v.Lidx = r.node()
		case "uidx":
			v.Uidx = r.node()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) stringNode() *stringNode {
	v := &stringNode{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "sval":
			v.Sval = r.str()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) integerNode() *integerNode {
	v := &integerNode{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "ival":
			v.Ival = r.int()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) collateClause() *collateClause {
	v := &collateClause{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "arg":
			v.Arg = r.node()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) sqlValueFunction() *sqlValueFunction {
	v := &sqlValueFunction{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "op":
			v.Op = r.str()
		case "typmod":
			v.Typmod = int(r.int())
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) sortBy() *sortBy {
	v := &sortBy{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "node":
			v.Node = r.node()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) groupingSet() *groupingSet {
	v := &groupingSet{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "kind":
			v.Kind = r.str()
		case "content":
			v.Content = r.nodes()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) namedArgExpr() *namedArgExpr {
	v := &namedArgExpr{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "arg":
			v.Arg = r.node()
		case "name":
			v.Name = r.str()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) locOnly() *locOnly {
	v := &locOnly{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "location":
			v.Location = int(r.int())
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) multiAssignRef() *multiAssignRef {
	v := &multiAssignRef{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "source":
			v.Source = r.node()
		case "colno":
			v.Colno = int(r.int())
		case "ncolumns":
			v.Ncolumns = int(r.int())
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) commonTableExpr() *commonTableExpr {
	v := &commonTableExpr{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "ctename":
			v.Ctename = r.str()
		case "aliascolnames":
			v.Aliascolnames = r.nodes()
		case "ctequery":
			v.Ctequery = r.node()
		case "search_clause":
			v.SearchClause = r.present()
		case "cycle_clause":
			v.CycleClause = r.present()
		case "location":
			v.Location = int(r.int())
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) listNode() *listNode {
	v := &listNode{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "items":
			v.Items = r.nodes()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) columnDef() *columnDef {
	v := &columnDef{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "colname":
			v.Colname = r.str()
		case "typeName":
			v.TypeName = r.typeName()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) mergeStmt() *mergeStmt {
	v := &mergeStmt{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "relation":
			v.Relation = r.rangeVar()
		case "sourceRelation":
			v.SourceRelation = r.node()
		case "joinCondition":
			v.JoinCondition = r.node()
		case "mergeWhenClauses":
			v.MergeWhenClauses = r.nodes()
		case "returningList":
			v.ReturningList = r.nodes()
		case "withClause":
			v.WithClause = r.withClause()
		default:
			r.skip()
		}
	}
	return v
}

func (r *jr) mergeWhenClause() *mergeWhenClause {
	v := &mergeWhenClause{}
	for r.obj(); r.next(); {
		switch string(r.k) {
		case "matchKind":
			v.MatchKind = r.str()
		case "commandType":
			v.CommandType = r.str()
		case "condition":
			v.Condition = r.node()
		case "targetList":
			v.TargetList = r.nodes()
		case "values":
			v.Values = r.nodes()
		default:
			r.skip()
		}
	}
	return v
}

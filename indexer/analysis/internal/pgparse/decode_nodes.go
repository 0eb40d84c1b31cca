// Code written from a table of the fields the analysis reads; each
// decoder reads one libpg_query JSON object into its node type.

package pgparse

// node reads one node: an object with one member named after its type.
func (r *jr) node() *Node {
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
func (r *jr) aConst() *AConst {
	c := &AConst{}
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

func (r *jr) subLink() *SubLink {
	v := &SubLink{}
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

func (r *jr) aArrayExpr() *AArrayExpr {
	v := &AArrayExpr{}
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

func (r *jr) aIndirection() *AIndirection {
	v := &AIndirection{}
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

func (r *jr) aIndices() *AIndices {
	v := &AIndices{}
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

func (r *jr) stringNode() *StringNode {
	v := &StringNode{}
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

func (r *jr) integerNode() *IntegerNode {
	v := &IntegerNode{}
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

func (r *jr) collateClause() *CollateClause {
	v := &CollateClause{}
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

func (r *jr) sqlValueFunction() *SQLValueFunction {
	v := &SQLValueFunction{}
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

func (r *jr) sortBy() *SortBy {
	v := &SortBy{}
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

func (r *jr) groupingSet() *GroupingSet {
	v := &GroupingSet{}
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

func (r *jr) namedArgExpr() *NamedArgExpr {
	v := &NamedArgExpr{}
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

func (r *jr) locOnly() *LocOnly {
	v := &LocOnly{}
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

func (r *jr) multiAssignRef() *MultiAssignRef {
	v := &MultiAssignRef{}
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

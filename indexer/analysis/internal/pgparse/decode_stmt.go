package pgparse

// Readers of one kind of libpg_query JSON node each, written from the
// table of fields the analysis reads (see decode_nodes.go).

func (r *jr) withClause() *WithClause {
	v := &WithClause{}
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

func (r *jr) selectStmt() *SelectStmt {
	v := &SelectStmt{}
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

func (r *jr) insertStmt() *InsertStmt {
	v := &InsertStmt{}
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

func (r *jr) onConflictClause() *OnConflictClause {
	v := &OnConflictClause{}
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

func (r *jr) inferClause() *InferClause {
	v := &InferClause{}
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

func (r *jr) indexElem() *IndexElem {
	v := &IndexElem{}
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

func (r *jr) updateStmt() *UpdateStmt {
	v := &UpdateStmt{}
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

func (r *jr) deleteStmt() *DeleteStmt {
	v := &DeleteStmt{}
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

func (r *jr) commonTableExpr() *CommonTableExpr {
	v := &CommonTableExpr{}
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

func (r *jr) mergeStmt() *MergeStmt {
	v := &MergeStmt{}
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

func (r *jr) mergeWhenClause() *MergeWhenClause {
	v := &MergeWhenClause{}
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

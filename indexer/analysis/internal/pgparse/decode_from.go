package pgparse

// Readers of one kind of libpg_query JSON node each, written from the
// table of fields the analysis reads (see decode_nodes.go).

func (r *jr) alias() *Alias {
	v := &Alias{}
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

func (r *jr) rangeVar() *RangeVar {
	v := &RangeVar{}
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

func (r *jr) joinExpr() *JoinExpr {
	v := &JoinExpr{}
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

func (r *jr) rangeSubselect() *RangeSubselect {
	v := &RangeSubselect{}
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

func (r *jr) rangeFunction() *RangeFunction {
	v := &RangeFunction{}
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

func (r *jr) rangeTableSample() *RangeTableSample {
	v := &RangeTableSample{}
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

func (r *jr) resTarget() *ResTarget {
	v := &ResTarget{}
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

func (r *jr) typeName() *TypeName {
	v := &TypeName{}
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

func (r *jr) listNode() *ListNode {
	v := &ListNode{}
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

func (r *jr) columnDef() *ColumnDef {
	v := &ColumnDef{}
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

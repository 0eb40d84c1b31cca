package pgparse

// Readers of one kind of libpg_query JSON node each, written from the
// table of fields the analysis reads (see decode_nodes.go).

func (r *jr) columnRef() *ColumnRef {
	v := &ColumnRef{}
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

func (r *jr) paramRef() *ParamRef {
	v := &ParamRef{}
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

func (r *jr) typeCast() *TypeCast {
	v := &TypeCast{}
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

func (r *jr) aExpr() *AExpr {
	v := &AExpr{}
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

func (r *jr) boolExpr() *BoolExpr {
	v := &BoolExpr{}
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

func (r *jr) nullTest() *NullTest {
	v := &NullTest{}
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

func (r *jr) booleanTest() *BooleanTest {
	v := &BooleanTest{}
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

func (r *jr) funcCall() *FuncCall {
	v := &FuncCall{}
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

func (r *jr) windowDef() *WindowDef {
	v := &WindowDef{}
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

func (r *jr) caseExpr() *CaseExpr {
	v := &CaseExpr{}
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

func (r *jr) caseWhen() *CaseWhen {
	v := &CaseWhen{}
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

func (r *jr) argsExpr() *ArgsExpr {
	v := &ArgsExpr{}
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

func (r *jr) minMaxExpr() *MinMaxExpr {
	v := &MinMaxExpr{}
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

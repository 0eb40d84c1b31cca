package analysis

// Readers of one kind of libpg_query JSON node each, written from the
// table of fields the analysis reads (see decode_nodes.go).

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

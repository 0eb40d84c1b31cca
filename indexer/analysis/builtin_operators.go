package analysis

// PostgreSQL's built-in operators as the analysis types them
// (builtin_functions.go says how to add one).

// isComparison reports the operators that compare a value with a column.
func isComparison(op string) bool {
	switch op {
	case "=", "<>", "!=", "<", ">", "<=", ">=":
		return true
	}
	return false
}

// prefixOp types a prefix operator.
func prefixOp(op string, t typ) typ {
	switch op {
	case "-", "+":
		if t.isNumeric() || t.base == "interval" {
			return t.plain()
		}
	case "~":
		if t.isInteger() {
			return t.plain()
		}
	case "|/", "||/":
		if t.isNumeric() {
			return tDouble
		}
	case "@":
		if t.isNumeric() {
			return t.plain()
		}
	}
	return tUnknown
}

// binop types an infix operator; strict reports that it is NULL only when
// an operand is.
func binop(op string, l, r expr) (t typ, strict bool) {
	lt, rt := l.t, r.t
	if l.param > 0 {
		lt = tUnknown
	}
	if r.param > 0 {
		rt = tUnknown
	}
	switch op {
	case "=", "<>", "!=", "<", ">", "<=", ">=",
		"~~", "!~~", "~~*", "!~~*", "~", "~*", "!~", "!~*",
		"@>", "<@", "&&", "?", "?|", "?&", "@?", "@@", "^@", "-|-", "&<", "&>":
		return tBool, true
	case "||":
		t := concatType(lt, rt)
		return t, t.known()
	case "->":
		if lt.isJSON() {
			return lt.plain(), false
		}
	case "->>":
		if lt.isJSON() {
			return tText, false
		}
	case "#>":
		if lt.isJSON() {
			return lt.plain(), false
		}
	case "#>>":
		if lt.isJSON() {
			return tText, false
		}
	case "#-":
		if lt.base == "jsonb" {
			return tJSONB, true
		}
	case "+", "-", "*", "/", "%":
		if op == "-" && lt.base == "jsonb" {
			return tJSONB, true
		}
		t := arith(op, lt, rt)
		return t, t.known()
	case "^":
		if lt.isNumeric() || rt.isNumeric() {
			if lt.base == "numeric" || rt.base == "numeric" {
				if (lt.isNumeric() || lt.lit) && (rt.isNumeric() || rt.lit) && lt.base != "real" && lt.base != "double precision" && rt.base != "real" && rt.base != "double precision" {
					return tNumeric, true
				}
				return tUnknown, true
			}
			if (lt.isNumeric() || lt.lit) && (rt.isNumeric() || rt.lit) {
				return tDouble, true
			}
		}
	case "&", "|", "#":
		if lt.isInteger() && rt.isInteger() {
			return higherNumeric(lt, rt), true
		}
	case "<<", ">>":
		if lt.isInteger() && rt.isInteger() {
			return lt.plain(), true
		}
	}
	// An operator the analysis does not type may be anyone's (a user's can
	// return NULL for any input): nullable.
	return tUnknown, false
}

// concatType types ||: text when either side is a string (and neither an
// array), the array when either is an array, jsonb, bytea.
func concatType(l, r typ) typ {
	switch {
	case l.isArray() && (r.isArray() || r.lit || r.same(l.elem().plain()) || r.same(l.elem())):
		return l.plain()
	case r.isArray() && (l.lit || l.same(r.elem().plain()) || l.same(r.elem())):
		return r.plain()
	case l.isArray() || r.isArray():
		return tUnknown
	case l.base == "jsonb" && (r.base == "jsonb" || r.lit):
		return tJSONB
	case r.base == "jsonb" && l.lit:
		return tJSONB
	case l.base == "bytea" && r.base == "bytea":
		return tBytea
	case l.lit && r.lit:
		return tText
	case (l.isString() || l.lit) && (r.isString() || r.lit):
		return tText
	case (l.isString() && r.known() && !r.isJSON() && r.base != "bytea" && r.base != "record"),
		(r.isString() && l.known() && !l.isJSON() && l.base != "bytea" && l.base != "record"):
		return tText // text || anynonarray
	}
	return tUnknown
}

// higherNumeric is the wider of two numeric types.
func higherNumeric(l, r typ) typ {
	li, _ := l.info()
	ri, _ := r.info()
	if ri.rank > li.rank {
		return r.plain()
	}
	return l.plain()
}

// arith types + - * / % over numbers, dates, times and intervals.
func arith(op string, l, r typ) typ {
	// An untyped literal takes the other side's type.
	switch {
	case l.lit && r.lit:
		return tUnknown
	case l.lit && r.isNumeric():
		l = r
	case r.lit && l.isNumeric():
		r = l
	}
	if l.isNumeric() && r.isNumeric() {
		lb, rb := l.base, r.base
		if lb == "real" || lb == "double precision" || rb == "real" || rb == "double precision" {
			if op == "%" {
				return tUnknown
			}
			if lb == "real" && rb == "real" {
				return tReal
			}
			return tDouble
		}
		return higherNumeric(l, r)
	}
	lb, rb := l.base, r.base
	key := lb + " " + op + " " + rb
	switch key {
	case "date + integer", "integer + date", "date - integer",
		"date + smallint", "smallint + date", "date - smallint":
		return tDate
	case "date - date":
		return tInt
	case "date + interval", "interval + date", "date - interval",
		"date + time without time zone", "time without time zone + date",
		"timestamp without time zone + interval", "interval + timestamp without time zone",
		"timestamp without time zone - interval":
		return tTimestamp
	case "timestamp with time zone + interval", "interval + timestamp with time zone",
		"timestamp with time zone - interval":
		return tTimestamptz
	case "timestamp without time zone - timestamp without time zone",
		"timestamp with time zone - timestamp with time zone",
		"interval + interval", "interval - interval",
		"time without time zone - time without time zone":
		return tInterval
	case "time without time zone + interval", "interval + time without time zone",
		"time without time zone - interval":
		return tTime
	}
	if (lb == "interval" && (op == "*" || op == "/") && (r.isNumeric())) ||
		(rb == "interval" && op == "*" && l.isNumeric()) {
		return tInterval
	}
	// timestamp(tz) + 'literal' resolves to + interval; - 'literal' to the
	// difference of two timestamps (both checked with PostgreSQL).
	if r.lit && (lb == "timestamp with time zone" || lb == "timestamp without time zone") {
		switch op {
		case "+":
			return l.plain()
		case "-":
			return tInterval
		}
	}
	return tUnknown
}

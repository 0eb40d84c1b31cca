package analysis

// Aggregates and window functions (builtin_functions.go says how to add
// one).

// aggregates lists the aggregate functions the analysis types. An
// aggregate is NULL over no rows, except count.
var aggregates = map[string]fn{
	"count":            fixed(tBigint, never),
	"sum":              sumFn,
	"avg":              avgFn,
	"min":              minMaxFn,
	"max":              minMaxFn,
	"bool_and":         fixed(tBool, nullable),
	"bool_or":          fixed(tBool, nullable),
	"every":            fixed(tBool, nullable),
	"string_agg":       stringAgg,
	"array_agg":        arrayAgg,
	"json_agg":         fixed(tJSON, nullable),
	"jsonb_agg":        fixed(tJSONB, nullable),
	"json_object_agg":  fixed(tJSON, nullable),
	"jsonb_object_agg": fixed(tJSONB, nullable),
	"stddev":           statFn, "stddev_samp": statFn, "stddev_pop": statFn,
	"variance": statFn, "var_samp": statFn, "var_pop": statFn,
	"bit_and": sameAsFirst(nullable, typ.isInteger),
	"bit_or":  sameAsFirst(nullable, typ.isInteger),
}

// windowFunctions lists the window functions the analysis types.
var windowFunctions = map[string]fn{
	"row_number":   fixed(tBigint, never),
	"rank":         fixed(tBigint, never),
	"dense_rank":   fixed(tBigint, never),
	"percent_rank": fixed(tDouble, never),
	"cume_dist":    fixed(tDouble, never),
	"ntile":        fixed(tInt, nullable),
	"lag":          sameAsFirst(nullable, nil),
	"lead":         sameAsFirst(nullable, nil),
	"first_value":  sameAsFirst(nullable, nil),
	"last_value":   sameAsFirst(nullable, nil),
	"nth_value":    sameAsFirst(nullable, nil),
}

func sumFn(a []typ) (typ, nulls, bool) {
	if len(a) != 1 {
		return tUnknown, nullable, false
	}
	switch a[0].base {
	case "smallint", "integer":
		return tBigint, nullable, true
	case "bigint", "numeric":
		return tNumeric, nullable, true
	case "real", "double precision", "interval", "money":
		return a[0].plain(), nullable, true
	}
	return tUnknown, nullable, false
}

func avgFn(a []typ) (typ, nulls, bool) {
	if len(a) != 1 {
		return tUnknown, nullable, false
	}
	switch a[0].base {
	case "smallint", "integer", "bigint", "numeric":
		return tNumeric, nullable, true
	case "real", "double precision":
		return tDouble, nullable, true
	case "interval":
		return tInterval, nullable, true
	}
	return tUnknown, nullable, false
}

func statFn(a []typ) (typ, nulls, bool) {
	if len(a) != 1 {
		return tUnknown, nullable, false
	}
	switch a[0].base {
	case "smallint", "integer", "bigint", "numeric":
		return tNumeric, nullable, true
	case "real", "double precision":
		return tDouble, nullable, true
	}
	return tUnknown, nullable, false
}

// minMaxFn: min and max return their input type, except that character
// varying goes through text's and character's through bpchar's.
func minMaxFn(a []typ) (typ, nulls, bool) {
	if len(a) != 1 || !a[0].known() {
		return tUnknown, nullable, false
	}
	t := a[0]
	switch {
	case t.base == "character varying":
		return tText, nullable, true
	case t.base == "bpchar":
		return tBpchar, nullable, true
	case t.isArray():
		return t.plain(), nullable, true
	}
	if ti, ok := t.info(); !ok || ti.cat == 'U' || ti.cat == 'B' || ti.cat == 'P' {
		return tUnknown, nullable, false // no max(uuid), max(json), max(boolean), ...
	}
	return t.plain(), nullable, true
}

func stringAgg(a []typ) (typ, nulls, bool) {
	if len(a) == 2 && a[0].base == "bytea" {
		return tBytea, nullable, true
	}
	return tText, nullable, true
}

func arrayAgg(a []typ) (typ, nulls, bool) {
	if len(a) != 1 || !a[0].known() {
		return tUnknown, nullable, false
	}
	return a[0].plain().array(), nullable, true
}

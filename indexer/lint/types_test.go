package lint

import "testing"

func TestCanonicalType(t *testing.T) {
	alike := func(a, b string) bool { return a == b || CanonicalType(a) == CanonicalType(b) }
	same := [][2]string{
		{"int4", "integer"}, {"int", "INTEGER"}, {"serial", "integer"}, {"serial4", "int4"},
		{"int8", "bigint"}, {"bigserial", "bigint"}, {"serial8", "int8"},
		{"int2", "smallint"}, {"smallserial", "int2"},
		{"varchar(255)", "character varying(255)"}, {"varchar (255)", "character  varying( 255 )"},
		{"varchar", "character varying"}, {"char(3)", "character(3)"}, {"char", "character(1)"}, {"bpchar(2)", "char(2)"},
		{"timestamptz", "timestamp with time zone"}, {"timestamp", "timestamp without time zone"},
		{"timestamptz(3)", "timestamp(3) with time zone"}, {"timetz", "time with time zone"},
		{"time", "time without time zone"},
		{"bool", "boolean"}, {"float8", "double precision"}, {"float", "double precision"}, {"float(53)", "float8"},
		{"float4", "real"}, {"float(10)", "real"}, {"decimal(10,2)", "numeric(10, 2)"}, {"decimal", "numeric"},
		{"varbit(4)", "bit varying(4)"},
		{"int4[]", "integer[]"}, {"_int4", "integer[]"}, {"integer[3]", "int4[]"}, {"integer array", "int[]"},
		{"int[][]", "_int4"}, {"_text", "text[]"}, {"pg_catalog.int4", "integer"},
		{"int(11)", "int"}, {"string", "String"}, {"uuid", "uuid"},
	}
	for _, p := range same {
		if !alike(p[0], p[1]) {
			t.Errorf("%q and %q: different (%q, %q), want the same", p[0], p[1], CanonicalType(p[0]), CanonicalType(p[1]))
		}
	}
	different := [][2]string{
		{"int4", "int8"}, {"integer", "bigint"}, {"smallint", "integer"}, {"varchar(20)", "varchar(40)"},
		{"varchar", "text"}, {"char(2)", "varchar(2)"}, {"timestamp", "timestamptz"}, {"time", "timetz"},
		{"numeric(10,2)", "numeric(12,2)"}, {"numeric", "numeric(10,2)"}, {"real", "double precision"},
		{"int4[]", "int4"}, {"int4[]", "int8[]"}, {"uuid", "text"}, {"string", "text"}, {`"MyType"`, "mytype"},
		{"_myenum", "myenum[]"}, {"int unsigned", "int"},
	}
	for _, p := range different {
		if alike(p[0], p[1]) {
			t.Errorf("%q and %q: the same (%q), want different", p[0], p[1], CanonicalType(p[0]))
		}
	}
}

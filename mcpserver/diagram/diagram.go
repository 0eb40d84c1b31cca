package diagram

// Diagram is the answer of schema_diagram: a table and its neighbours
// within hops foreign-key steps, nearest first, then by name.
type Diagram struct {
	Center string  `json:"center" jsonschema:"the table the diagram is centred on"`
	Hops   int     `json:"hops" jsonschema:"how many foreign-key steps the diagram follows"`
	Tables []Table `json:"tables" jsonschema:"the centre (distance 0), then its neighbours nearest first, then by name; at most 40"`
	Edges  []Edge  `json:"edges" jsonschema:"every foreign key between two tables of the diagram"`
	// Truncated is set when tables within hops (or, with very long names,
	// foreign keys between the tables shown) were left out.
	Truncated bool `json:"truncated" jsonschema:"some tables within hops are left out: ask for fewer hops, or centre on another table"`
	// TablesTotal counts every table within hops, the centre included.
	TablesTotal int `json:"tablesTotal" jsonschema:"how many tables are within hops, the centre included"`
}

// Table is a table of a diagram with the columns it shows: its key
// columns, then its first 8 other columns, in table order.
type Table struct {
	Table      string   `json:"table"`
	Connection string   `json:"connection"`
	Distance   int      `json:"distance" jsonschema:"foreign-key steps from the centre"`
	Columns    []Column `json:"columns" jsonschema:"primary- and foreign-key columns, then the first 8 others, in table order"`
	// ColumnsTotal is set when columns are left out.
	ColumnsTotal int `json:"columnsTotal,omitempty" jsonschema:"how many columns the table has, when some are not shown"`
}

// Column is a column shown in a diagram.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
	// Key is "PK", "FK" or "PK,FK"; left out for other columns.
	Key string `json:"key,omitempty" jsonschema:"PK, FK or PK,FK; left out for other columns"`
}

// Edge is a foreign key between two tables of a diagram.
type Edge struct {
	From        string   `json:"from" jsonschema:"the table that holds the foreign key"`
	FromColumns []string `json:"fromColumns"`
	To          string   `json:"to" jsonschema:"the table it references"`
	ToColumns   []string `json:"toColumns"`
	Name        string   `json:"name,omitempty" jsonschema:"the foreign key's name, when it has one"`
	Nullable    bool     `json:"nullable" jsonschema:"one of its columns may be NULL: a row need not reference one"`
	Unique      bool     `json:"unique" jsonschema:"its columns are unique (the primary key or a unique index): at most one row references each"`
}

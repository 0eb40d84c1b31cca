package mcpserver

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/hubsnap/hubsnap/store/answer"
)

// The logic analysis's answer types are in store/answer (analysis.go);
// these names keep them beside the tools' other types.
type (
	// LogicAnalysis is logic_get's "analysis".
	LogicAnalysis = answer.LogicAnalysis
	// TableAccess is a table a logic touches.
	TableAccess = answer.TableAccess
	// ResultColumn is a column of a row of a logic's answer.
	ResultColumn = answer.ResultColumn
	// ColumnSource names a table column.
	ColumnSource = answer.ColumnSource
	// Binding is a placeholder compared with or assigned to a column.
	Binding = answer.Binding
	// Problem is a certain defect of a logic against its release.
	Problem = answer.Problem
	// TableUse is a logic that touches a table.
	TableUse = answer.TableUse
	// BrokenLogic is a logic the newer release breaks.
	BrokenLogic = answer.BrokenLogic
)

// logicOutputSchema is the output schema of logic_get: analysis.result
// may be null, which schemaFor cannot say of a list.
func logicOutputSchema() *jsonschema.Schema {
	s := schemaFor[Logic]()
	a := s.Properties["analysis"]
	a.Properties["result"] = &jsonschema.Schema{Description: a.Properties["result"].Description,
		AnyOf: []*jsonschema.Schema{{Type: "array", Items: a.Properties["result"].Items}, {Type: "null"}}}
	return s
}

package mcpserver

import (
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/hubsnap/hubsnap/store/answer"
)

// logicOutputSchema is the output schema of logic_get: analysis.result
// may be null, which schemaFor cannot say of a list.
func logicOutputSchema() *jsonschema.Schema {
	s := schemaFor[answer.Logic]()
	a := s.Properties["analysis"]
	a.Properties["result"] = &jsonschema.Schema{Description: a.Properties["result"].Description,
		AnyOf: []*jsonschema.Schema{{Type: "array", Items: a.Properties["result"].Items}, {Type: "null"}}}
	return s
}

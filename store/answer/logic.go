package answer

// The answer of logic_get (store/logic.go composes it).

// Logic is the output of logic_get (the shape of MCP-005).
type Logic struct {
	Name        string  `json:"name"`
	Description string  `json:"description,omitempty"`
	SQL         string  `json:"sql" jsonschema:"the SQL the logic runs, with :name placeholders for its params"`
	Params      []Param `json:"params" jsonschema:"the parameters, in order; empty when none"`
	// ParamsTotal counts them all when they did not all fit.
	ParamsTotal int  `json:"paramsTotal,omitempty" jsonschema:"how many parameters the logic has, when this answer lists only some"`
	Auth        Auth `json:"auth"`
	// Analysis is set for a logic of a release with a postgres connection.
	Analysis *LogicAnalysis `json:"analysis,omitempty" jsonschema:"what the SQL means against this release (postgres releases only): result row shape, tables, param bindings, problems"`
	// AnalysisPending is set while the release's logics are being analysed.
	AnalysisPending bool `json:"analysisPending,omitempty" jsonschema:"the analysis is still running: ask again shortly"`
	// Truncated is set on an answer too long to give whole.
	Truncated bool `json:"truncated,omitempty" jsonschema:"the answer was too long: the description is cut to 2,000 characters, a very long SQL to 40,000, and params and roles to those that fit"`
}

// Param is a parameter of a logic.
type Param struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Required bool   `json:"required"`
}

// Auth is who may call a logic.
type Auth struct {
	Required bool     `json:"required" jsonschema:"whether the caller must be signed in"`
	Roles    []string `json:"roles" jsonschema:"the roles allowed to call it"`
	// RolesTotal counts them all when they did not all fit.
	RolesTotal int `json:"rolesTotal,omitempty" jsonschema:"how many roles there are, when this answer lists only some"`
}

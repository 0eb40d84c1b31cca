package mcpserver

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver/access"
	"github.com/hubsnap/hubsnap/store"
)

// ListLogicsInput is the input of logic_list.
type ListLogicsInput struct {
	Cursor Cursor `json:"cursor,omitempty" jsonschema:"the nextCursor of the page before; left out for the first page"`
	Limit  int    `json:"limit,omitempty" jsonschema:"the most names in a page; 500 when left out"`
}

// ListLogicsOutput is the output of logic_list.
type ListLogicsOutput struct {
	Logics     []string `json:"logics" jsonschema:"a page of the release's logic names, sorted; empty when there are none"`
	Total      int      `json:"total" jsonschema:"how many logics there are in all"`
	NextCursor string   `json:"nextCursor,omitempty" jsonschema:"more names follow: pass this as cursor for the next page"`
}

// GetLogicInput is the input of logic_get.
type GetLogicInput struct {
	Name Name `json:"name" jsonschema:"the logic name as logic_list gives it, e.g. admin/users; a logics/ prefix is accepted"`
}

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

func (s *Server) addLogicTools() {
	list := &mcp.Tool{
		Name:  "logic_list",
		Title: "List logics",
		Description: `List the names of the server-side SQL logics of the current release (e.g.
"purchase_item", "admin/users"), a page of 500 at a time, sorted; "total" counts them all
and "nextCursor" fetches the next page. Then logic_get gives a logic's SQL, params and auth.`,
		Annotations: readOnly("List logics"),
		InputSchema: limitSchema(schemaFor[ListLogicsInput](), 1, store.MaxPageLimit),
	}
	addTool[ListLogicsInput, ListLogicsOutput](s, list, []access.Scope{access.LogicRead}, s.listLogics)

	addTool[GetLogicInput, Logic](s, &mcp.Tool{
		Name:  "logic_get",
		Title: "Get a logic",
		Description: `Get one server-side SQL logic of the current release: its SQL, params (name, type,
required), auth, and (postgres) its analysis: the typed columns of a result row, the
tables it reads and writes, the column each param binds to, and its problems against
this release. Use it before writing typed code that calls the logic, or to review it.`,
		Annotations:  readOnly("Get a logic"),
		OutputSchema: logicOutputSchema(),
	}, []access.Scope{access.LogicRead}, s.getLogic)
}

func (s *Server) listLogics(ctx context.Context, _ *mcp.CallToolRequest, in ListLogicsInput) ([]byte, error) {
	return s.store.LogicsPage(ctx, s.target, store.PageRequest{Cursor: string(in.Cursor), Limit: in.Limit})
}

func (s *Server) getLogic(ctx context.Context, _ *mcp.CallToolRequest, in GetLogicInput) ([]byte, error) {
	if err := checkName("name", in.Name, true); err != nil {
		return nil, err
	}
	name := strings.TrimPrefix(string(in.Name), "logics/")
	if why := store.LogicNameProblem(name); why != "" {
		return nil, invalid("not a logic name: %s", why)
	}
	return s.store.LogicJSON(ctx, s.target, name)
}

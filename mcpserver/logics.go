package mcpserver

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/store"
)

// ListLogicsInput is the (empty) input of logic_list.
type ListLogicsInput struct{}

// ListLogicsOutput is the output of logic_list.
type ListLogicsOutput struct {
	Logics []string `json:"logics" jsonschema:"every logic name of the release, sorted; empty when there are none"`
}

// GetLogicInput is the input of logic_get.
type GetLogicInput struct {
	Name string `json:"name" jsonschema:"the logic name as logic_list gives it, e.g. admin/users; a logics/ prefix is accepted"`
}

// Logic is the output of logic_get (the shape of MCP-005).
type Logic struct {
	Name        string  `json:"name"`
	Description string  `json:"description,omitempty"`
	SQL         string  `json:"sql" jsonschema:"the SQL the logic runs, with :name placeholders for its params"`
	Params      []Param `json:"params" jsonschema:"the parameters, in order; empty when none"`
	Auth        Auth    `json:"auth"`
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
}

func (s *Server) addLogicTools() {
	addTool(s, &mcp.Tool{
		Name:  "logic_list",
		Title: "List logics",
		Description: `List the names of every server-side SQL logic of the current release, sorted
(e.g. "purchase_item", "admin/users"). Use it to find the logic to call from generated API
code, then logic_get for its SQL, parameters and auth.`,
		Annotations: readOnly("List logics"),
	}, s.listLogics)

	addTool(s, &mcp.Tool{
		Name:  "logic_get",
		Title: "Get a logic",
		Description: `Get one server-side SQL logic of the current release: its SQL text, its
parameters (name, type, required) and its auth (whether sign-in is required, and the
roles allowed). Use it to write the code that calls the logic or to review it.`,
		Annotations: readOnly("Get a logic"),
	}, s.getLogic)
}

func (s *Server) listLogics(ctx context.Context, _ *mcp.CallToolRequest, _ ListLogicsInput) (*mcp.CallToolResult, ListLogicsOutput, error) {
	names, err := s.store.Logics(ctx, s.target)
	if err != nil {
		return nil, ListLogicsOutput{}, s.fail(ctx, "logic_list", err)
	}
	return answer(ListLogicsOutput{Logics: names})
}

func (s *Server) getLogic(ctx context.Context, _ *mcp.CallToolRequest, in GetLogicInput) (*mcp.CallToolResult, Logic, error) {
	if err := checkName("name", in.Name, true); err != nil {
		return nil, Logic{}, s.fail(ctx, "logic_get", err)
	}
	name := strings.TrimPrefix(in.Name, "logics/")
	if why := store.LogicNameProblem(name); why != "" {
		return nil, Logic{}, s.fail(ctx, "logic_get", invalid("not a logic name: %s", why))
	}
	l, err := s.store.Logic(ctx, s.target, name)
	if err != nil {
		return nil, Logic{}, s.fail(ctx, "logic_get", err)
	}
	return answer(logicOut(l))
}

// logicOut shapes a logic as MCP-005 does.
func logicOut(l *store.Logic) Logic {
	out := Logic{Name: l.Name, Description: l.Description, SQL: l.SQL, Params: make([]Param, len(l.Params)),
		Auth: Auth{Required: l.Auth.Required, Roles: l.Auth.Roles}}
	for i, p := range l.Params {
		out.Params[i] = Param{Name: p.Name, Type: p.Type, Required: p.Required}
	}
	if out.Auth.Roles == nil {
		out.Auth.Roles = []string{}
	}
	return out
}

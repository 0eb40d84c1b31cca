package mcpserver

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver/access"
	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/answer"
)

// ListLogicsInput is the input of logic_list.
type ListLogicsInput struct {
	Cursor Cursor `json:"cursor,omitempty" jsonschema:"the nextCursor of the page before"`
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

func (s *Server) addLogicTools() {
	list := &mcp.Tool{
		Name: "logic_list",
		Description: `List the names of the server-side SQL logics of the current release (e.g.
purchase_item, admin/users), a page of 500 at a time, sorted; "total" counts them all
and "nextCursor" fetches the next page. Then logic_get gives a logic's SQL, params and auth.`,
		Annotations: readOnly("List logics"),
		InputSchema: limitSchema(schemaFor[ListLogicsInput](), 1, store.MaxPageLimit),
	}
	addTool[ListLogicsInput, ListLogicsOutput](s, list, []access.Scope{access.LogicRead}, s.listLogics)

	addTool[GetLogicInput, answer.Logic](s, &mcp.Tool{
		Name: "logic_get",
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

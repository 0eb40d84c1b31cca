package mcpserver

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver/access"
	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/answer"
)

// DiffInput is the input of schema_diff.
type DiffInput struct {
	From  Name `json:"from,omitempty" jsonschema:"the release to compare from; by default the cached release before 'to' (release_info lists them)"`
	To    Name `json:"to,omitempty" jsonschema:"the release to compare to; by default the current release"`
	Limit int  `json:"limit,omitempty" jsonschema:"the most tables and logics listed, 1 to 1000; 100 when left out"`
}

// diffOutputSchema is the output schema of schema_diff. Its pointers are
// there to leave parts out, never to send null: their inferred
// ["null", T] types become T.
func diffOutputSchema() *jsonschema.Schema {
	s := schemaFor[answer.DiffOutput]()
	var plain func(*jsonschema.Schema)
	plain = func(s *jsonschema.Schema) {
		if s == nil {
			return
		}
		if len(s.Types) == 2 && s.Types[0] == "null" {
			s.Type, s.Types = s.Types[1], nil
		}
		plain(s.Items)
		for _, p := range s.Properties {
			plain(p)
		}
	}
	plain(s)
	return s
}

func (s *Server) addDiffTool() {
	addTool[DiffInput, answer.DiffOutput](s, &mcp.Tool{
		Name: "schema_diff",
		Description: `Compare two cached releases: the tables and logics added, removed and changed
(columns, keys, indexes, comments; SQL, params, auth), and logics.broken: the logics the
newer release breaks. Use it to find what changed since the release some code was written
against: by default the release before the current one against the current one.`,
		Annotations:  readOnly("What changed between two releases"),
		InputSchema:  limitSchema(schemaFor[DiffInput](), 1, store.MaxDiffLimit),
		OutputSchema: diffOutputSchema(),
	}, []access.Scope{access.ReleaseRead}, s.diff)
}

// diff answers schema_diff with the parts the token may read: tables with
// table:read, logics with logic:read.
func (s *Server) diff(ctx context.Context, req *mcp.CallToolRequest, in DiffInput) ([]byte, error) {
	if err := checkName("from", in.From, false); err != nil {
		return nil, err
	}
	if err := checkName("to", in.To, false); err != nil {
		return nil, err
	}
	tables, logics := true, true
	if granted, limited := grantedScopes(req); limited {
		tables, logics = access.Allows(granted, access.TableRead), access.Allows(granted, access.LogicRead)
	}
	return s.store.DiffJSON(ctx, s.target, store.DiffRequest{From: string(in.From), To: string(in.To), Limit: in.Limit,
		Tables: tables, Logics: logics})
}

package mcpserver

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver/access"
	"github.com/hubsnap/hubsnap/store"
)

// DiffInput is the input of schema_diff.
type DiffInput struct {
	From  Name `json:"from,omitempty" jsonschema:"the release to compare from; by default the cached release before 'to' (release_info lists them)"`
	To    Name `json:"to,omitempty" jsonschema:"the release to compare to; by default the current release"`
	Limit int  `json:"limit,omitempty" jsonschema:"the most tables and logics listed, 1 to 1000; 100 when left out"`
}

// DiffOutput is the output of schema_diff. Absent values in a change are
// "" (a comment, a default, a description) and [] (an enum).
type DiffOutput struct {
	From   ReleaseRef  `json:"from"`
	To     ReleaseRef  `json:"to"`
	Tables *TablesDiff `json:"tables,omitempty" jsonschema:"the tables added, removed and changed; left out when the token may not read tables"`
	Logics *LogicsDiff `json:"logics,omitempty" jsonschema:"the logics added, removed and changed; left out when the token may not read logics"`
	// More is set when the answer was cut: it is complete for tables, then
	// logics, up to the first one left out.
	More bool `json:"more,omitempty" jsonschema:"some changes were left out (limit, or the answer's size): raise limit to see more"`
}

// TablesDiff is what changed among the tables: each list is left out when
// empty.
type TablesDiff struct {
	Added   []TableRef    `json:"added,omitempty"`
	Removed []TableRef    `json:"removed,omitempty"`
	Changed []TableChange `json:"changed,omitempty"`
}

// TableChange is a table present in both releases that changed. Parts
// that did not change are left out.
type TableChange struct {
	Name        string           `json:"name"`
	Connection  string           `json:"connection"`
	Comment     *TextChange      `json:"comment,omitempty"`
	Columns     *ColumnsDiff     `json:"columns,omitempty" jsonschema:"columns compared by name"`
	PrimaryKey  *KeyChange       `json:"primaryKey,omitempty"`
	ForeignKeys *ForeignKeysDiff `json:"foreignKeys,omitempty" jsonschema:"foreign keys compared whole: a changed key is removed and added"`
	Indexes     *IndexesDiff     `json:"indexes,omitempty" jsonschema:"indexes compared whole"`
	More        bool             `json:"more,omitempty" jsonschema:"this table's change is larger than the answer could hold: its lists were cut"`
}

// TextChange is a changed text.
type TextChange struct {
	From string `json:"from" jsonschema:"the text before; empty for none"`
	To   string `json:"to" jsonschema:"the text after; empty for none"`
	Cut  bool   `json:"cut,omitempty" jsonschema:"the texts are long: only the part around the change is shown, cuts marked …"`
}

// ColumnsDiff is what changed among a table's columns.
type ColumnsDiff struct {
	Added   []string       `json:"added,omitempty"`
	Removed []string       `json:"removed,omitempty"`
	Changed []ColumnChange `json:"changed,omitempty"`
}

// ColumnChange is a changed column: From and To hold only the attributes
// that changed.
type ColumnChange struct {
	Name string      `json:"name"`
	From ColumnAttrs `json:"from"`
	To   ColumnAttrs `json:"to"`
}

// ColumnAttrs are attributes of a column; only those that changed are set.
type ColumnAttrs struct {
	Type     *string   `json:"type,omitempty"`
	Nullable *bool     `json:"nullable,omitempty"`
	Default  *string   `json:"default,omitempty" jsonschema:"the default expression; empty for none"`
	Enum     *[]string `json:"enum,omitempty" jsonschema:"the allowed values; empty for none"`
	Comment  *string   `json:"comment,omitempty" jsonschema:"empty for none"`
}

// KeyChange is a changed primary key.
type KeyChange struct {
	From []string `json:"from" jsonschema:"the key's columns before; empty for no key"`
	To   []string `json:"to" jsonschema:"the key's columns after; empty for no key"`
}

// ForeignKeysDiff lists foreign keys added and removed, as
// schema_get_table shows them.
type ForeignKeysDiff struct {
	Added   []ForeignKey `json:"added,omitempty"`
	Removed []ForeignKey `json:"removed,omitempty"`
}

// IndexesDiff lists indexes added and removed.
type IndexesDiff struct {
	Added   []Index `json:"added,omitempty"`
	Removed []Index `json:"removed,omitempty"`
}

// LogicsDiff is what changed among the logics.
type LogicsDiff struct {
	Added   []string      `json:"added,omitempty"`
	Removed []string      `json:"removed,omitempty"`
	Changed []LogicChange `json:"changed,omitempty"`
	// Broken is what the newer release breaks (analysis.go).
	Broken      []BrokenLogic `json:"broken,omitempty" jsonschema:"logics of 'to' with problems they did not have in 'from', or new with problems (postgres releases)"`
	BrokenTotal int           `json:"brokenTotal,omitempty" jsonschema:"how many logics are broken, when broken lists only some"`
	// AnalysisPending is set while either release's logics are being
	// analysed: broken is not known yet.
	AnalysisPending bool `json:"analysisPending,omitempty" jsonschema:"the logics are still being analysed: broken is not known yet"`
}

// LogicChange is a logic present in both releases that changed.
type LogicChange struct {
	Name        string      `json:"name"`
	Fields      []string    `json:"fields" jsonschema:"what changed, of sql, params, auth and description, in that order"`
	SQL         *TextChange `json:"sql,omitempty"`
	Params      *ParamsDiff `json:"params,omitempty" jsonschema:"parameters compared by name"`
	Auth        *AuthChange `json:"auth,omitempty"`
	Description *TextChange `json:"description,omitempty"`
	More        bool        `json:"more,omitempty" jsonschema:"this logic's change is larger than the answer could hold: its params were cut"`
}

// ParamsDiff is what changed among a logic's parameters.
type ParamsDiff struct {
	Added   []string      `json:"added,omitempty"`
	Removed []string      `json:"removed,omitempty"`
	Changed []ParamChange `json:"changed,omitempty"`
}

// ParamChange is a changed parameter: From and To hold only the
// attributes that changed.
type ParamChange struct {
	Name string     `json:"name"`
	From ParamAttrs `json:"from"`
	To   ParamAttrs `json:"to"`
}

// ParamAttrs are attributes of a parameter; only those that changed are
// set.
type ParamAttrs struct {
	Type     *string `json:"type,omitempty"`
	Required *bool   `json:"required,omitempty"`
}

// AuthChange is a logic's auth before and after.
type AuthChange struct {
	From Auth `json:"from"`
	To   Auth `json:"to"`
}

// diffOutputSchema is the output schema of schema_diff. Its pointers are
// there to leave parts out, never to send null: their inferred
// ["null", T] types become T.
func diffOutputSchema() *jsonschema.Schema {
	s := schemaFor[DiffOutput]()
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
	addTool[DiffInput, DiffOutput](s, &mcp.Tool{
		Name:  "schema_diff",
		Title: "What changed between two releases",
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

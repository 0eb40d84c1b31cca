package mcpserver

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver/access"
	"github.com/hubsnap/hubsnap/store"
)

// SearchInput is the input of schema_search.
type SearchInput struct {
	Query Query    `json:"query" jsonschema:"plain words, e.g. \"invoice status\" or \"displayName\"; every word must match"`
	Kinds KindList `json:"kinds,omitempty" jsonschema:"only hits of these kinds; all when left out"`
	Limit int      `json:"limit,omitempty" jsonschema:"the most hits to return; 20 when left out"`
}

// SearchOutput is the output of schema_search.
type SearchOutput struct {
	Hits []Hit `json:"hits" jsonschema:"best first; empty when nothing matched"`
	More bool  `json:"more,omitempty" jsonschema:"there are more hits than returned: narrow the query or raise limit"`
}

// Hit is one thing schema_search found.
type Hit struct {
	Kind       string `json:"kind"`
	Table      string `json:"table,omitempty" jsonschema:"the table, for table and column hits"`
	Connection string `json:"connection,omitempty" jsonschema:"the table's connection"`
	Column     string `json:"column,omitempty" jsonschema:"the column, for column hits"`
	Logic      string `json:"logic,omitempty" jsonschema:"the logic name, for logic hits"`
	Match      string `json:"match" jsonschema:"where the words matched"`
	Text       string `json:"text,omitempty" jsonschema:"what matched besides the name: an excerpt of the comment, description or SQL, or the param names"`
}

func (s *Server) addSearchTool() {
	t := &mcp.Tool{
		Name: "schema_search",
		Description: `Find tables, columns and logics of the current release by words in their names,
comments, descriptions, parameter names or SQL; best first (names before comments before SQL).
In a large schema, search instead of listing every table; then call schema_get_table or
logic_get on a hit. "display name", "displayName" and "display_name" are the same words;
words of three or more letters also match as prefixes ("purch" finds purchases).`,
		Annotations: readOnly("Search the schema"),
	}
	schemas := searchSchemas()
	t.InputSchema, t.OutputSchema = schemas[0], schemas[1]
	addTool[SearchInput, SearchOutput](s, t, []access.Scope{access.TableRead, access.LogicRead}, s.search)
}

// searchSchemas returns the input and output schemas of schema_search:
// those of its Go types, with the allowed values and bounds that Go types
// cannot carry, taken from package store's constants.
func searchSchemas() [2]*jsonschema.Schema {
	in, out := schemaFor[SearchInput](), schemaFor[SearchOutput]()
	limitSchema(in, 1, store.MaxSearchLimit)
	hit := out.Properties["hits"].Items
	hit.Properties["kind"].Enum = enum(store.Kinds)
	hit.Properties["match"].Enum = enum([]string{store.MatchName, store.MatchParam, store.MatchComment,
		store.MatchDescription, store.MatchSQL})
	return [2]*jsonschema.Schema{in, out}
}

// enum lists values for a schema's enum.
func enum[T ~string](values []T) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

func (s *Server) search(ctx context.Context, req *mcp.CallToolRequest, in SearchInput) ([]byte, error) {
	q := store.SearchQuery{Text: string(in.Query), Limit: in.Limit}
	for _, k := range in.Kinds {
		q.Kinds = append(q.Kinds, store.Kind(k))
	}
	// A token finds only what it may read: hits of other kinds are not
	// left out afterwards but never searched, so limit and more stay true.
	kinds, err := visibleKinds(req, q.Kinds)
	if err != nil {
		return nil, err
	}
	q.Kinds = kinds
	res, err := s.store.Search(ctx, s.target, q)
	if err != nil {
		return nil, err
	}
	out := SearchOutput{Hits: make([]Hit, len(res.Hits)), More: res.More}
	for i, h := range res.Hits {
		out.Hits[i] = Hit{Kind: string(h.Kind), Table: h.Table, Connection: h.Connection, Column: h.Column,
			Logic: h.Logic, Match: h.Matched, Text: h.Text}
	}
	// Hits of very long names may pass the answer's budget (unless limit
	// was raised): the last ones go, and more says there are more.
	budget := store.AnswerBudget * max(1, in.Limit/store.DefaultSearchLimit)
	for {
		answer, err := marshal(out)
		if err != nil || len(answer) <= budget || len(out.Hits) == 0 {
			return answer, err
		}
		out.Hits, out.More = out.Hits[:len(out.Hits)*3/4], true
	}
}

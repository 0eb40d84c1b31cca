package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver/access"
	"github.com/hubsnap/hubsnap/mcpserver/diagram"
	"github.com/hubsnap/hubsnap/store"
)

// DiagramInput is the input of schema_diagram.
type DiagramInput struct {
	Table      TableName `json:"table" jsonschema:"the table to centre on; 'connection.table' also works"`
	Connection Name      `json:"connection,omitempty" jsonschema:"the table's database connection, needed when the name is in several"`
	Hops       int       `json:"hops,omitempty" jsonschema:"foreign-key steps to follow, 1 to 3; 1 when left out"`
}

// diagramInputSchema is the input schema of schema_diagram, with the
// bounds of hops.
func diagramInputSchema() *jsonschema.Schema {
	in := schemaFor[DiagramInput]()
	lo, hi := 1.0, float64(store.MaxDiagramHops)
	in.Properties["hops"].Minimum, in.Properties["hops"].Maximum = &lo, &hi
	return in
}

// The MCP App that draws schema_diagram's answers (SPEC §12).
const (
	// diagramURI is the app's resource.
	diagramURI = "ui://hubsnap/diagram"
	// appMIMEType is the MIME type of an MCP App's page.
	appMIMEType = "text/html;profile=mcp-app"
	// uiExtension names the MCP Apps extension in the server's capabilities.
	uiExtension = "io.modelcontextprotocol/ui"
)

func (s *Server) addDiagramTool() {
	t := &mcp.Tool{
		Name: "schema_diagram",
		Description: `Draw a table and the tables within 1-3 foreign-key steps of it (either direction,
at most 40): a Mermaid erDiagram with key columns and relationships. Use it to see how a part of the schema fits together, or to show it to a person;
schema_get_table has a table's full detail.`,
		Annotations:  readOnly("Draw a table's neighbourhood"),
		InputSchema:  diagramInputSchema(),
		OutputSchema: leanOutput(schemaFor[diagram.Diagram]()),
		Meta: mcp.Meta{
			"ui":             map[string]any{"resourceUri": diagramURI},
			"ui/resourceUri": diagramURI, // the flat form older hosts read
		},
	}
	s.scopes[t.Name] = []access.Scope{access.TableRead}
	s.inputs[t.Name], _ = t.InputSchema.(*jsonschema.Schema)
	mcp.AddTool(s.mcp, t, func(ctx context.Context, _ *mcp.CallToolRequest, in DiagramInput) (*mcp.CallToolResult, any, error) {
		answer, text, err := s.diagram(ctx, in)
		if err != nil {
			return nil, nil, s.fail(ctx, t.Name, err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}},
			StructuredContent: json.RawMessage(answer)}, nil, nil
	})
}

// addDiagramApp registers the app's page, ui://hubsnap/diagram. It holds
// no release data, so any caller may read it.
func (s *Server) addDiagramApp() {
	s.mcp.AddResource(&mcp.Resource{
		URI: diagramURI, Name: "diagram", Title: "Schema diagram", MIMEType: appMIMEType,
		Description: "The MCP App that draws schema_diagram's answers: pan, zoom, click a table to centre on it.",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: diagramURI, MIMEType: appMIMEType,
			Text: diagram.Page(), Meta: mcp.Meta{"ui": map[string]any{"prefersBorder": true}}}}}, nil
	})
}

// diagram answers schema_diagram: the structured answer, composed by SQL,
// and its Mermaid text, written from it.
func (s *Server) diagram(ctx context.Context, in DiagramInput) (answer []byte, text string, err error) {
	if err := checkTableName("table", in.Table); err != nil {
		return nil, "", err
	}
	if err := checkName("connection", in.Connection, false); err != nil {
		return nil, "", err
	}
	answer, err = s.store.DiagramJSON(ctx, s.target, store.DiagramRequest{Table: string(in.Table), Connection: string(in.Connection), Hops: in.Hops})
	if err != nil {
		return nil, "", err
	}
	var d diagram.Diagram
	if err := json.Unmarshal(answer, &d); err != nil {
		return nil, "", fmt.Errorf("read the diagram: %w", err)
	}
	return answer, diagram.Mermaid(&d), nil
}

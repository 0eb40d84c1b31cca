package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver/diagram"
	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/answer"
)

// maxToolsListWire bounds tools/list on the wire (issue 27): the JSON-RPC
// response to tools/list, as go-sdk writes it, every tool included.
const maxToolsListWire = 12_000

// toolsListWire returns the JSON-RPC response to a tools/list of a real
// client, as the server wrote it on the wire (go-sdk's encoding, which
// stdio and Streamable HTTP send as they are; without the newline).
func toolsListWire(t *testing.T) []byte {
	t.Helper()
	st := openStore(t)
	putCurrent(t, st, shopSnapshot(t))
	srv := newServer(t, st)
	wire := &recordingTransport{}
	ctx := context.Background()
	ct, stt := mcp.NewInMemoryTransports()
	wire.Transport = stt
	ss, err := srv.mcp.Connect(ctx, wire, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "hubsnap-test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != len(toolNames) {
		t.Fatalf("tools/list has %d tools, want %d", len(res.Tools), len(toolNames))
	}
	wire.mu.Lock()
	defer wire.mu.Unlock()
	for _, msg := range wire.written {
		if strings.Contains(string(msg), `"result":{`) && strings.Contains(string(msg), `"tools":[{`) {
			return msg
		}
	}
	t.Fatalf("no tools/list response among the server's %d messages", len(wire.written))
	return nil
}

// recordingTransport records each message its connection writes, encoded
// as go-sdk encodes it for the wire, before passing it on.
type recordingTransport struct {
	mcp.Transport
	mu      sync.Mutex
	written [][]byte
}

func (r *recordingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := r.Transport.Connect(ctx)
	return &recordingConn{Connection: c, r: r}, err
}

type recordingConn struct {
	mcp.Connection
	r *recordingTransport
}

func (c *recordingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	c.r.mu.Lock()
	c.r.written = append(c.r.written, data)
	c.r.mu.Unlock()
	return c.Connection.Write(ctx, msg)
}

// tools/list stays within 12 KB on the wire with every tool, and holds no
// $ref or $defs anywhere: several clients cannot resolve them.
func TestToolsListWireSize(t *testing.T) {
	msg := toolsListWire(t)
	var res struct {
		Result mcp.ListToolsResult `json:"result"`
	}
	if err := json.Unmarshal(msg, &res); err != nil {
		t.Fatal(err)
	}
	outputs := 0
	for _, tool := range res.Result.Tools {
		b, _ := json.Marshal(tool.OutputSchema)
		outputs += len(b)
	}
	t.Logf("tools/list on the wire: %d bytes, of which output schemas about %d", len(msg), outputs)
	if len(msg) > maxToolsListWire {
		t.Errorf("tools/list is %d bytes on the wire, over %d", len(msg), maxToolsListWire)
	}
	for _, bad := range []string{`"$ref"`, `"$defs"`, `"definitions"`} {
		if strings.Contains(string(msg), bad) {
			t.Errorf("tools/list holds %s", bad)
		}
	}
}

// inferredSchemas are each tool's input and output schemas as inferred
// from its handler's Go types (schemaFor, and the adjustments of the tools
// that have some), whole: the output schema before leanOutput.
func inferredSchemas() map[string][2]*jsonschema.Schema {
	return map[string][2]*jsonschema.Schema{
		"schema_list_tables": {limitSchema(schemaFor[ListTablesInput](), 1, store.MaxPageLimit), schemaFor[ListTablesOutput]()},
		"schema_get_table":   {schemaFor[GetTableInput](), schemaFor[answer.Table]()},
		"logic_list":         {limitSchema(schemaFor[ListLogicsInput](), 1, store.MaxPageLimit), schemaFor[ListLogicsOutput]()},
		"logic_get":          {schemaFor[GetLogicInput](), logicOutputSchema()},
		"release_info":       {schemaFor[ReleaseInfoInput](), schemaFor[ReleaseInfo]()},
		"schema_search":      searchSchemas(),
		"schema_join_path":   {joinPathInputSchema(), schemaFor[JoinPathOutput]()},
		"schema_diff":        {limitSchema(schemaFor[DiffInput](), 1, store.MaxDiffLimit), diffOutputSchema()},
		"schema_diagram":     {diagramInputSchema(), schemaFor[diagram.Diagram]()},
		"release_check":      {schemaFor[CheckInput](), schemaFor[CheckOutput]()},
	}
}

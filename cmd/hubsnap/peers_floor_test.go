package main

// The floor of BenchmarkPeers: go-sdk alone, in a child process over
// stdio as hubsnap is, returning hubsnap's own answers (same-answer) or
// echoing its argument (echo). The child is this test binary, started with
// peersFloorEnv naming a file of answers; init serves it before any test
// machinery runs.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// peersFloorEnv names the answers file of a floor server child.
const peersFloorEnv = "HUBSNAP_PEERS_FLOOR"

func init() {
	if file := os.Getenv(peersFloorEnv); file != "" {
		childProfile("floor")
		if err := serveFloor(file); err != nil {
			fmt.Fprintln(os.Stderr, "floor server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(testMainEnv) == "1" {
		childProfile("hubsnap")
	}
}

// floorFile is what a floor server answers: hubsnap's schema_get_table
// tool as its tools/list gives it, and its answer for each table.
type floorFile struct {
	Tool    *mcp.Tool         `json:"tool"`
	Answers map[string]string `json:"answers"`
}

// floorInput is schema_get_table's input (docs/tools.md).
type floorInput struct {
	Table      string `json:"table"`
	Connection string `json:"connection,omitempty"`
	Cursor     string `json:"cursor,omitempty"`
}

// serveFloor serves, over stdio, schema_get_table with hubsnap's own input
// and output schemas, returning each answer of file as hubsnap does (the
// same JSON as the text block and as structured content, no output for
// go-sdk to encode or validate again), and go-sdk's echo.
func serveFloor(file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var f floorFile
	if err := json.Unmarshal(data, &f); err != nil {
		return fmt.Errorf("answers file: %w", err)
	}
	tool := *f.Tool
	for _, s := range []*any{&tool.InputSchema, &tool.OutputSchema} {
		raw, err := json.Marshal(*s)
		if err != nil {
			return err
		}
		var js jsonschema.Schema
		if err := json.Unmarshal(raw, &js); err != nil {
			return fmt.Errorf("schema: %w", err)
		}
		*s = &js
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "floor", Version: "1"}, nil)
	mcp.AddTool(srv, &tool, func(_ context.Context, _ *mcp.CallToolRequest, in floorInput) (*mcp.CallToolResult, any, error) {
		body, ok := f.Answers[in.Table]
		if !ok {
			return nil, nil, fmt.Errorf("no answer for %q", in.Table)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: body}},
			StructuredContent: json.RawMessage(body)}, nil, nil
	})
	type echo struct {
		Text string `json:"text"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in echo) (*mcp.CallToolResult, echo, error) {
		return nil, in, nil
	})
	return srv.Run(context.Background(), &mcp.StdioTransport{})
}

// floorPeers start the floor server with hubsnap's schema_get_table tool
// (from hubsnap's own session) and the answers hubsnap gave, and return
// its two measures: same-answer and echo.
func floorPeers(b *testing.B, client *mcp.Client, hubsnap *mcp.ClientSession, answers map[string]string) []*peer {
	b.Helper()
	f := floorFile{Answers: answers}
	for t, err := range hubsnap.Tools(b.Context(), nil) {
		if err != nil {
			b.Fatalf("hubsnap tools/list: %v", err)
		}
		if t.Name == "schema_get_table" {
			f.Tool = t
		}
	}
	if f.Tool == nil {
		b.Fatal("hubsnap lists no schema_get_table")
	}
	data, err := json.Marshal(f)
	if err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(b.TempDir(), "answers.json")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(hubsnapBin(b))
	cmd.Env = []string{peersFloorEnv + "=" + file, peersProfileEnv + "=" + os.Getenv(peersProfileEnv)}
	cmd.Dir = b.TempDir()
	cs, stderr := connectPeer(b, client, "floor", cmd, signalLimit)
	same := &peer{name: "same-answer", role: roleFloor, cmd: cmd, cs: cs, stderr: stderr,
		describe: func(ctx context.Context, cs *mcp.ClientSession, table string) (string, error) {
			return callText(ctx, cs, "schema_get_table", map[string]any{"table": table})
		},
		check: func(text, table string, _ int) string {
			if text != answers[table] {
				return "not hubsnap's answer"
			}
			return ""
		}}
	echo := &peer{name: "echo", role: roleFloor, cs: cs, stderr: stderr, shared: true,
		describe: func(ctx context.Context, cs *mcp.ClientSession, table string) (string, error) {
			return callText(ctx, cs, "echo", map[string]any{"text": table})
		},
		check: func(text, table string, _ int) string {
			if !strings.Contains(text, table) {
				return "not an echo"
			}
			return ""
		}}
	return []*peer{same, echo}
}

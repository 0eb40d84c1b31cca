package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/indexer"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// BenchmarkGetTableTool is one schema_get_table call through the MCP
// client and server (in-memory transport), on the shop fixture.
func BenchmarkGetTableTool(b *testing.B) {
	cs := shopSession(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "schema_get_table", Arguments: map[string]any{"table": "posts"}})
		if err != nil || res.IsError {
			b.Fatalf("call: %v %v", err, res)
		}
	}
}

// BenchmarkWatchLatency measures what docs/design.md promises within 2 s: the time
// from a release file renamed into place (with its .current pointer) to
// the first release_info answer that reflects it, with the watcher at its
// defaults (250 ms quiet period), for a small and a 2,000-table release.
func BenchmarkWatchLatency(b *testing.B) {
	for _, tables := range []int{6, 2000} {
		b.Run(fmt.Sprintf("tables=%d", tables), func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			dir := b.TempDir()
			folder := filepath.Join(dir, "releases", "shop")
			c, err := indexer.Open(ctx, dir, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			watching := make(chan error, 1)
			started := make(chan struct{})
			var once bool
			go func() {
				watching <- c.Watch(ctx, indexer.WatchOptions{Rescanned: func(error) {
					if !once {
						once = true
						close(started)
					}
				}})
			}()
			<-started
			cs := connect(b, newServer(b, c.Store()))

			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				id := fmt.Sprintf("rel_%d", i+1)
				tmp := filepath.Join(b.TempDir(), id+".json")
				if err := os.WriteFile(tmp, releaseJSON(b, id, tables), 0o600); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if err := os.MkdirAll(folder, 0o700); err != nil {
					b.Fatal(err)
				}
				if err := os.Rename(tmp, filepath.Join(folder, id+".json")); err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(folder, "dev.current"), []byte(id+"\n"), 0o600); err != nil {
					b.Fatal(err)
				}
				deadline := time.Now().Add(30 * time.Second)
				for servedID(b, cs) != id {
					if time.Now().After(deadline) {
						b.Fatalf("%s not served after 30s", id)
					}
					time.Sleep(time.Millisecond)
				}
			}
			cancel()
			<-watching
		})
	}
}

func servedID(tb testing.TB, cs *mcp.ClientSession) string {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "release_info", Arguments: map[string]any{}})
	if err != nil {
		tb.Fatal(err)
	}
	if res.IsError {
		return ""
	}
	var out ReleaseInfo
	json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &out)
	return out.ID
}

// releaseJSON is a snapshot document of a release with n tables.
func releaseJSON(tb testing.TB, id string, n int) []byte {
	type column struct {
		Name string `json:"name"`
		Type string `json:"type"`
	}
	type table struct {
		Name       string   `json:"name"`
		Columns    []column `json:"columns"`
		PrimaryKey []string `json:"primaryKey"`
	}
	doc := struct {
		FormatVersion int              `json:"formatVersion"`
		Release       snapshot.Release `json:"release"`
		Tables        []table          `json:"tables"`
	}{FormatVersion: 1, Release: snapshot.Release{ID: id, Project: "shop", Environment: "dev", Version: 1}}
	for i := range n {
		t := table{Name: fmt.Sprintf("t_%04d", i), PrimaryKey: []string{"id"}}
		for j := range 10 {
			t.Columns = append(t.Columns, column{Name: fmt.Sprintf("c%d", j), Type: "text"})
		}
		t.Columns[0].Name = "id"
		doc.Tables = append(doc.Tables, t)
	}
	data, err := json.Marshal(doc)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

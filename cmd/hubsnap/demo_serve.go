package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The demo's serve step: this program's own `serve` started as a child
// over stdio, as an assistant starts it, and the tool calls it answers.

// demoCall is one tool call the demo makes.
type demoCall struct {
	why  string
	tool string
	args map[string]any
}

// demoCalls are the tool calls the demo makes, in order.
func demoCalls() []demoCall {
	return []demoCall{
		{"What tables are there?", "schema_list_tables", map[string]any{}},
		{"The columns and keys of posts (MCP-002)", "schema_get_table", map[string]any{"table": "posts"}},
		{"A bare name in two connections is ambiguous", "schema_get_table", map[string]any{"table": "users"}},
		{"...so ask for one of them", "schema_get_table", map[string]any{"table": "main.users"}},
		{"A composite primary key", "schema_get_table", map[string]any{"table": "order_lines"}},
		{"How to join two tables: the foreign keys between them, as SQL", "schema_join_path",
			map[string]any{"from": "main.users", "to": "items"}},
		{"A table's neighbourhood as Mermaid text (hosts with MCP Apps draw it)", "schema_diagram",
			map[string]any{"table": "main.users", "hops": 2}},
		{"An unknown table names only what was asked", "schema_get_table", map[string]any{"table": "invoices"}},
		{"Search by words: any case style, prefixes, comments, SQL", "schema_search", map[string]any{"query": "displayName"}},
		{"...best first: names, then params, comments and SQL", "schema_search", map[string]any{"query": "user", "limit": 8}},
		{"What logics are there?", "logic_list", map[string]any{}},
		{"A logic's SQL, params and auth (MCP-005), and its analysis: a result row's typed columns,\n   # the tables it touches, the column each param binds to, its problems", "logic_get", map[string]any{"name": "purchase_item"}},
		{"The logics/ prefix is accepted", "logic_get", map[string]any{"name": "logics/admin/users"}},
		{"Which release is this?", "release_info", map[string]any{}},
		{"Review its schema as a team's CI would", "release_check", map[string]any{}},
		{"What changed since the release before it?", "schema_diff", map[string]any{}},
	}
}

// demoServe starts this program's own serve on dir as a child, as an
// assistant would, and prints its tools and the answers of demoCalls.
func demoServe(ctx context.Context, opts *demoOptions, dir string) error {
	w := opts.Stdout
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("demo: find this program: %w", err)
	}
	serve := exec.CommandContext(ctx, exe, "serve", "--cache-dir", dir, "--project", "shop", "--environment", "dev")
	serve.Env = demoEnv(dir)
	serve.Stderr = opts.Stderr
	fmt.Fprintf(w, "4. hubsnap serve, started as an assistant would, spoken to over stdio by an MCP client:\n\n")
	session, err := mcp.NewClient(&mcp.Implementation{Name: "hubsnap-demo", Version: version()}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: serve, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		return fmt.Errorf("demo: start hubsnap serve: %w", err)
	}
	defer session.Close()

	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("demo: list tools: %w", err)
	}
	fmt.Fprintf(w, "   tools/list:\n")
	for _, t := range tools.Tools {
		first, _, _ := strings.Cut(t.Description, "\n")
		fmt.Fprintf(w, "   - %-18s %s\n", t.Name, first)
	}
	fmt.Fprintln(w)

	var answers bytes.Buffer
	for _, c := range demoCalls() {
		argJSON, _ := json.Marshal(c.args)
		fmt.Fprintf(w, "   # %s\n   -> %s %s\n", c.why, c.tool, argJSON)
		r, err := session.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			return fmt.Errorf("demo: call %s: %w", c.tool, err)
		}
		text := ""
		if len(r.Content) > 0 {
			if tc, ok := r.Content[0].(*mcp.TextContent); ok {
				text = tc.Text
			}
		}
		answers.WriteString(text)
		prefix := "   <- "
		if r.IsError {
			prefix = "   <- (isError) "
		}
		shown := indentJSON(text, "      ")
		if shown == text { // not JSON: schema_diagram's Mermaid
			shown = strings.ReplaceAll(strings.TrimSuffix(text, "\n"), "\n", "\n      ")
		}
		fmt.Fprintf(w, "%s%s\n\n", prefix, shown)
	}
	for _, s := range demoSecrets {
		if strings.Contains(answers.String(), s) {
			return fmt.Errorf("demo: an answer holds %q", s)
		}
	}

	return nil
}

// demoConnect is the demo's last step: how to connect an assistant.
const demoConnect = `5. Connect your assistant to your own project:

   hubsnap context set work --hub https://hub.example.com --project shop
   printf '%s\n' "$HUB_TOKEN" | hubsnap context set work --token-stdin
   hubsnap snapshot sync

   Claude Code:
   claude mcp add hubsnap -- hubsnap serve

   Other MCP clients (Cursor, Claude Desktop, ...):
   {
     "mcpServers": {
       "hubsnap": {"command": "hubsnap", "args": ["serve"]}
     }
   }

   A team, over Streamable HTTP with a token:
   hubsnap token create alice --scopes table:read,logic:read
   hubsnap serve --http 0.0.0.0:7420
   claude mcp add --transport http hubsnap http://HOST:7420/mcp --header "Authorization: Bearer TOKEN"
`

// demoEnv is the environment of the demo's serve: the caller's, without
// the hubsnap settings that could point it at anything but the demo.
func demoEnv(dir string) []string {
	settings := []string{envCacheDir, envHub, envProject, envEnvironment, envToken, envConfigDir}
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(settings, name) {
			env = append(env, kv)
		}
	}
	return append(env, envConfigDir+"="+filepath.Join(filepath.Dir(dir), "config"))
}

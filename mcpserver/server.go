// Package mcpserver serves hubsnap's MCP tools: schema_list_tables,
// schema_get_table, logic_list, logic_get and release_info.
//
// Every answer is read from the SQLite index (package store) at call time,
// for the current release of one project and environment; nothing of a
// release is held in memory, so a release that changes or goes away is seen
// by the next call.
//
// Tool input and output schemas are inferred from the Go types the handlers
// use (one source of truth); where a tag cannot say something, the inferred
// schema is adjusted in code (see schemas.go).
package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/store"
)

// Options configure a Server.
type Options struct {
	// Target is the project and environment whose current release is served.
	Target store.Target
	// Version is reported to clients as the server's version.
	Version string
	// Log receives internal errors and panics. It must not write to stdout.
	Log *slog.Logger
}

// Server is hubsnap's MCP server.
type Server struct {
	*mcp.Server
	store  *store.Store
	target store.Target
	log    *slog.Logger

	// stop, once cancelled, cancels every call in flight.
	stop   context.Context
	cancel context.CancelFunc

	mu         sync.Mutex
	subscribed map[string]int // resource URI -> subscriptions
	served     string         // the release CheckRelease saw last

	// requests are the HTTP requests in flight, for their log lines
	// (httplog.go).
	requests   sync.Map // ref -> *requestRecord
	requestSeq atomic.Uint64
}

const instructions = `hubsnap answers questions about the database schema and the server-side SQL
logics of one release of a project, from a local, offline snapshot.
Find things with schema_search (names, comments, SQL) or list them with
schema_list_tables and logic_list, then read the details with
schema_get_table or logic_get. release_info says which release you are
looking at.`

// New returns a server for the current release of opts.Target in st.
func New(st *store.Store, opts Options) *Server {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Version == "" {
		opts.Version = "(devel)"
	}
	stop, cancel := context.WithCancel(context.Background())
	s := &Server{store: st, target: opts.Target, log: opts.Log, stop: stop, cancel: cancel, subscribed: map[string]int{}}
	s.Server = mcp.NewServer(&mcp.Implementation{Name: "hubsnap", Title: "hubsnap", Version: opts.Version},
		&mcp.ServerOptions{
			Instructions:       instructions,
			SchemaCache:        mcp.NewSchemaCache(),
			CompletionHandler:  s.complete,
			SubscribeHandler:   s.subscribe,
			UnsubscribeHandler: s.unsubscribe,
		})
	s.AddReceivingMiddleware(s.noteResult, s.recoverPanics, s.cancelOnShutdown, checkScopes, argumentErrors)
	s.addTableTools()
	s.addLogicTools()
	s.addReleaseTools()
	s.addSearchTool()
	s.addResources()
	s.served, _ = s.servedRelease(context.Background()) // to compare with at each CheckRelease
	return s
}

// Shutdown cancels every call in flight; their clients get a cancellation
// error at once instead of waiting for a slow query.
func (s *Server) Shutdown() { s.cancel() }

// recoverPanics answers a panicking handler with -32603 and keeps serving.
func (s *Server) recoverPanics(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("panic in a handler", "method", method, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error"}
			}
		}()
		return next(ctx, method, req)
	}
}

// cancelOnShutdown ties each request's context to the server's lifetime:
// go-sdk waits for handlers on shutdown but never cancels them.
func (s *Server) cancelOnShutdown(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stop := context.AfterFunc(s.stop, cancel)
		defer stop()
		return next(ctx, method, req)
	}
}

// argumentErrors gives the tool errors go-sdk makes itself, when arguments
// fail the input schema or cannot be decoded, the shape of every other
// hubsnap tool error: {"error":{"code":"INVALID_ARGUMENT",...}}.
func argumentErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		r, ok := res.(*mcp.CallToolResult)
		if err != nil || !ok || !r.IsError || len(r.Content) != 1 {
			return res, err
		}
		text, ok := r.Content[0].(*mcp.TextContent)
		if !ok || strings.HasPrefix(text.Text, `{"error":`) {
			return res, err
		}
		r.Content = []mcp.Content{&mcp.TextContent{Text: (&toolError{Code: store.InvalidArgument,
			Message: "invalid arguments: " + argumentMessage(text.Text)}).Error()}}
		return r, nil
	}
}

// Patterns of go-sdk's argument errors (its JSON decoding and its schema
// validation, google/jsonschema-go), reworded for people.
var (
	notAnObject  = regexp.MustCompile(`cannot unmarshal .* into Go value of type map\[string\]interface \{\}`)
	unreadable   = regexp.MustCompile(`cannot unmarshal "(.*)" into Go struct field map\[string\]interface \{\}\.(\S+) of type`)
	validatingAt = regexp.MustCompile(`validating (?:root|/properties/\S+?): `)
	outOfRange   = regexp.MustCompile(`^(?:/properties/)?(\S*?)(?:/items)?: (minimum|maximum): (\S+) is (?:less|greater) than (\S+)$`)
	notInEnum    = regexp.MustCompile(`enum: (.*) does not equal any of: \[(.*)\]$`)
	lastProperty = regexp.MustCompile(`validating /properties/(\S+?): `)
)

// argumentMessage rewords one of go-sdk's argument errors: it names the
// argument and what is wrong with it, and never a Go type.
func argumentMessage(text string) string {
	text = strings.TrimPrefix(text, `validating "arguments": `)
	text = strings.ReplaceAll(text, "<invalid reflect.Value>", "null") // go-sdk's wording for a JSON null
	if notAnObject.MatchString(text) {
		return "the arguments must be a JSON object"
	}
	if m := unreadable.FindStringSubmatch(text); m != nil {
		return fmt.Sprintf("%s: %s is not a number hubsnap can read", m[2], m[1])
	}
	// "validating root: validating /properties/limit: minimum: 0/1 is
	// less than 1.000000": the innermost property and the complaint.
	field := ""
	if all := lastProperty.FindAllStringSubmatch(text, -1); len(all) > 0 {
		field = strings.TrimSuffix(all[len(all)-1][1], "/items")
	}
	text = validatingAt.ReplaceAllString(text, "")
	if m := outOfRange.FindStringSubmatch(field + ": " + text); m != nil && field != "" {
		bound := strings.TrimRight(strings.TrimRight(m[4], "0"), ".")
		if m[2] == "minimum" {
			return fmt.Sprintf("%s must be at least %s", field, bound)
		}
		return fmt.Sprintf("%s must be at most %s", field, bound)
	}
	if m := notInEnum.FindStringSubmatch(text); m != nil && field != "" {
		return fmt.Sprintf("%s: %q is not one of %s", field, m[1], strings.Join(strings.Fields(m[2]), ", "))
	}
	if field != "" {
		return field + ": " + text
	}
	return text
}

// answer is a tool's successful result: out, marshalled once, as both its
// structured content and its text, in the order of out's fields. (go-sdk
// would write the text through a map, keys sorted, so "columns" would come
// before "name".) See addTool.
func answer[Out any](out Out) (*mcp.CallToolResult, Out, error) {
	b, err := json.Marshal(out)
	if err != nil {
		return nil, out, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}},
		StructuredContent: json.RawMessage(b)}, out, nil
}

// readOnly are the annotations of every hubsnap tool: they read a local
// snapshot and nothing else.
func readOnly(title string) *mcp.ToolAnnotations {
	f := false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &f,
		DestructiveHint: &f}
}

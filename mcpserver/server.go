package mcpserver

import (
	"context"
	"log/slog"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver/access"
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
	// OnDamage, when set, is called with the error of a call that met a
	// damaged index (store.ErrCorrupt), once per such call, after the error
	// is logged; the call answers INTERNAL. It must not block: serve
	// starts a repair in the background (cmd/hubsnap).
	OnDamage func(error)
}

// Server is hubsnap's MCP server.
type Server struct {
	mcp    *mcp.Server
	store  *store.Store
	target store.Target
	log    *slog.Logger

	onDamage func(error) // Options.OnDamage

	// stop, once cancelled, cancels every call in flight.
	stop   context.Context
	cancel context.CancelFunc

	// scopes are what each tool needs (any one of them), as addTool
	// registered it; fixed once New returns.
	scopes map[string][]access.Scope
	// inputs are the tools' input schemas, for boundArguments; fixed once
	// New returns.
	inputs map[string]*jsonschema.Schema

	mu     sync.Mutex
	subs   map[*mcp.ServerSession]map[string]bool // each session's subscribed URIs
	served string                                 // the release CheckRelease saw last

	// core is go-sdk's own method handler, below every middleware: what
	// DropSubscriptions calls to clear go-sdk's subscription map.
	core mcp.MethodHandler
}

const instructions = `hubsnap answers questions about the database schema and the server-side SQL
logics of one release of a project, from a local, offline snapshot.
Find things with schema_search (names, comments, SQL) or list them with
schema_list_tables and logic_list, then read the details with
schema_get_table or logic_get. schema_join_path says how to join two
tables; schema_diff what changed since an earlier release. release_info
says which release you are looking at; release_check reviews its schema.`

// New returns a server for the current release of opts.Target in st.
func New(st *store.Store, opts Options) *Server {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Version == "" {
		opts.Version = "(devel)"
	}
	stop, cancel := context.WithCancel(context.Background())
	s := &Server{store: st, target: opts.Target, log: opts.Log, onDamage: opts.OnDamage, stop: stop, cancel: cancel,
		scopes: map[string][]access.Scope{}, inputs: map[string]*jsonschema.Schema{}, subs: map[*mcp.ServerSession]map[string]bool{}}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "hubsnap", Title: "hubsnap", Version: opts.Version},
		&mcp.ServerOptions{
			Instructions:       instructions,
			SchemaCache:        mcp.NewSchemaCache(),
			CompletionHandler:  s.complete,
			SubscribeHandler:   s.subscribe,
			UnsubscribeHandler: s.unsubscribe,
			SetCacheable:       cacheHints,
			// The tools are fixed for the life of the process: say so, so
			// that clients do not listen for changes that never come.
			// (Resources do change: see CheckRelease.)
			Capabilities: &mcp.ServerCapabilities{
				//lint:ignore SA1019 go-sdk's default capability, kept as it was (deprecated in 2026-07-28, still served)
				Logging: &mcp.LoggingCapabilities{},
				Tools:   &mcp.ToolCapabilities{ListChanged: false},
				// MCP Apps: schema_diagram's page (diagram.go).
				Extensions: map[string]any{uiExtension: map[string]any{"mimeTypes": []string{appMIMEType}}},
			},
		})
	s.mcp.AddReceivingMiddleware(s.middleware()...)
	s.addTableTools()
	s.addLogicTools()
	s.addReleaseTools()
	s.addSearchTool()
	s.addJoinTool()
	s.addDiffTool()
	s.addCheckTool()
	s.addDiagramTool()
	s.addDiagramApp()
	s.addResources()
	s.served, _ = s.servedRelease(context.Background()) // to compare with at each CheckRelease
	return s
}

// Shutdown cancels every call in flight; their clients get a cancellation
// error at once instead of waiting for a slow query.
func (s *Server) Shutdown() { s.cancel() }

// MCP is the go-sdk server, for a transport to serve (package transport):
// its tools, resources and middleware are set once New returns.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Log is where the server logs internal errors (Options.Log), for its
// transports' own.
func (s *Server) Log() *slog.Logger { return s.log }

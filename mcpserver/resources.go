package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/store"
)

// Resource URIs (SPEC §8). A resource answers the same JSON as the tool.
const (
	releaseURI     = "hubsnap://release"
	tablesPrefix   = "hubsnap://tables/"
	logicsPrefix   = "hubsnap://logics/"
	tableTemplate  = tablesPrefix + "{connection}/{table}"
	logicTemplate  = logicsPrefix + "{name}"
	logicPathAlias = logicsPrefix + "{+path}" // the same, with a name's / left as is
	maxCompletions = 100
)

func (s *Server) addResources() {
	s.addReleaseResource()
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: tableTemplate, Name: "table", Title: "A table", MIMEType: "application/json",
		Description: "One table of the current release, as schema_get_table answers it.",
	}, s.readTable)
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: logicTemplate, Name: "logic", Title: "A logic", MIMEType: "application/json",
		Description: "One logic of the current release, as logic_get answers it; a / in its name is %2F.",
	}, s.readLogic)
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: logicPathAlias, Name: "logic-path", Title: "A logic (plain path)", MIMEType: "application/json",
		Description: "The same as hubsnap://logics/{name}, with the name's / written as is: hubsnap://logics/admin/users.",
	}, s.readLogic)
}

// addReleaseResource (re)registers hubsnap://release; doing it again tells
// every client the resource list changed.
func (s *Server) addReleaseResource() {
	s.AddResource(&mcp.Resource{
		URI: releaseURI, Name: "release", Title: "The current release", MIMEType: "application/json",
		Description: "The release the tools answer from, as release_info describes it.",
	}, s.readRelease)
}

func (s *Server) readRelease(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	ri, err := s.store.Current(ctx, s.target)
	if err != nil {
		return nil, s.resourceError(ctx, req.Params.URI, err)
	}
	return resourceJSON(req.Params.URI, releaseOut(ri))
}

func (s *Server) readTable(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	conn, name, ok := strings.Cut(strings.TrimPrefix(uri, tablesPrefix), "/")
	conn, err1 := url.PathUnescape(conn)
	name, err2 := url.PathUnescape(name)
	if !ok || err1 != nil || err2 != nil || conn == "" || name == "" || len(name) > maxName || len(conn) > maxName {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	t, err := s.store.Table(ctx, s.target, conn, name)
	if err != nil {
		return nil, s.resourceError(ctx, uri, err)
	}
	return resourceJSON(uri, tableOut(t))
}

func (s *Server) readLogic(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	name, err := url.PathUnescape(strings.TrimPrefix(uri, logicsPrefix))
	if err != nil || len(name) > maxName || store.LogicNameProblem(name) != "" {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	l, err := s.store.Logic(ctx, s.target, name)
	if err != nil {
		return nil, s.resourceError(ctx, uri, err)
	}
	return resourceJSON(uri, logicOut(l))
}

// resourceError maps a store error to a JSON-RPC error: an unknown table or
// logic is -32602 (SPEC §9), anything else keeps its code in the message.
func (s *Server) resourceError(ctx context.Context, uri string, err error) error {
	switch store.ErrorCode(err) {
	case store.NotFound:
		return mcp.ResourceNotFoundError(uri)
	case store.Internal:
		if ctx.Err() == nil {
			s.log.Error("resource read failed", "uri", uri, "err", err)
		}
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error"}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
		Message: fmt.Sprintf("%s: %s", store.ErrorCode(err), store.ErrorMessage(err))}
}

func resourceJSON(uri string, v any) (*mcp.ReadResourceResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
}

// complete offers the names a resource template's arguments can take:
// connections and tables for hubsnap://tables/..., logic names for
// hubsnap://logics/..., those starting with what was typed, at most 100.
func (s *Server) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	p := req.Params
	var names []string
	if p.Ref != nil && p.Ref.Type == "ref/resource" {
		switch {
		case p.Ref.URI == tableTemplate && (p.Argument.Name == "connection" || p.Argument.Name == "table"):
			refs, err := s.store.Tables(ctx, s.target, "")
			if err != nil {
				break // no release: nothing to offer
			}
			conn := ""
			if p.Context != nil {
				conn = p.Context.Arguments["connection"]
			}
			for _, r := range refs {
				switch {
				case p.Argument.Name == "connection":
					names = append(names, r.Connection)
				case conn == "" || conn == r.Connection:
					names = append(names, r.Name)
				}
			}
		case (p.Ref.URI == logicTemplate || p.Ref.URI == logicPathAlias) && (p.Argument.Name == "name" || p.Argument.Name == "path"):
			names, _ = s.store.Logics(ctx, s.target)
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	names = slices.DeleteFunc(names, func(n string) bool { return !strings.HasPrefix(n, p.Argument.Value) })
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: names, Total: len(names)}}
	if len(names) > maxCompletions {
		res.Completion.Values, res.Completion.HasMore = names[:maxCompletions], true
	}
	if res.Completion.Values == nil {
		res.Completion.Values = []string{}
	}
	return res, nil
}

// servedRelease names the release served now ("none" for none); ok is
// false when the index cannot tell.
func (s *Server) servedRelease(ctx context.Context) (string, bool) {
	ri, err := s.store.Current(ctx, s.target)
	switch {
	case err == nil:
		return ri.ID + " " + ri.Digest + " " + ri.SyncedAt, true
	case store.ErrorCode(err) == store.NoRelease:
		return "none", true
	}
	return "", false
}

// subscribe and unsubscribe track the URIs clients watch, to tell them
// when the release changes.
func (s *Server) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subscribed[req.Params.URI]++
	return nil
}

func (s *Server) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.subscribed[req.Params.URI]--; s.subscribed[req.Params.URI] <= 0 {
		delete(s.subscribed, req.Params.URI)
	}
	return nil
}

// CheckRelease compares the served release with the one served when it
// was last called and, when it changed (a sync, import, use or removed
// file, in this process or another), tells the clients:
// notifications/resources/list_changed to every session, and
// notifications/resources/updated for each subscribed URI. Call it after
// every rescan of the cache.
func (s *Server) CheckRelease(ctx context.Context) {
	now, ok := s.servedRelease(ctx)
	if !ok {
		return // cannot tell; the next rescan will
	}
	s.mu.Lock()
	changed := now != s.served
	s.served = now
	uris := make([]string, 0, len(s.subscribed))
	for uri := range s.subscribed {
		uris = append(uris, uri)
	}
	s.mu.Unlock()
	if !changed {
		return
	}
	s.log.Info("the served release changed", "release", now)
	s.addReleaseResource() // list_changed to every session
	for _, uri := range uris {
		if err := s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
			s.log.Debug("notify a subscriber", "uri", uri, "err", err)
		}
	}
}

package mcpserver

import (
	"context"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/store"
)

// Resource URIs (docs/tools.md, "Resources and completions"). A resource
// answers the same JSON as the tool.
const (
	releaseURI     = "hubsnap://release"
	tablesPrefix   = "hubsnap://tables/"
	logicsPrefix   = "hubsnap://logics/"
	tableTemplate  = tablesPrefix + "{connection}/{table}"
	logicTemplate  = logicsPrefix + "{name}"
	logicPathAlias = logicsPrefix + "{+path}" // the same, with a name's / left as is
)

func (s *Server) addResources() {
	s.addReleaseResource()
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: tableTemplate, Name: "table", Title: "A table", MIMEType: "application/json",
		Description: "One table of the current release, as schema_get_table answers it.",
	}, s.readTable)
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: logicTemplate, Name: "logic", Title: "A logic", MIMEType: "application/json",
		Description: "One logic of the current release, as logic_get answers it; a / in its name is %2F.",
	}, s.readLogic)
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: logicPathAlias, Name: "logic-path", Title: "A logic (plain path)", MIMEType: "application/json",
		Description: "The same as hubsnap://logics/{name}, with the name's / written as is: hubsnap://logics/admin/users.",
	}, s.readLogic)
}

// addReleaseResource (re)registers hubsnap://release; doing it again tells
// every client the resource list changed.
func (s *Server) addReleaseResource() {
	s.mcp.AddResource(&mcp.Resource{
		URI: releaseURI, Name: "release", Title: "The current release", MIMEType: "application/json",
		Description: "The release the tools answer from, as release_info describes it.",
	}, s.readRelease)
}

func (s *Server) readRelease(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	answer, err := s.store.ReleaseJSON(ctx, s.target)
	if err != nil {
		return nil, s.resourceError(ctx, req.Params.URI, err)
	}
	return s.resourceJSON(ctx, req.Params.URI, answer)
}

func (s *Server) readTable(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	conn, name, ok := strings.Cut(strings.TrimPrefix(uri, tablesPrefix), "/")
	conn, err1 := url.PathUnescape(conn)
	name, err2 := url.PathUnescape(name)
	if !ok || err1 != nil || err2 != nil || conn == "" || name == "" || len(name) > maxName || len(conn) > maxName {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	answer, err := s.store.TableJSON(ctx, s.target, conn, name)
	if err != nil {
		return nil, s.resourceError(ctx, uri, err)
	}
	return s.resourceJSON(ctx, uri, withoutUsedBy(req, answer))
}

func (s *Server) readLogic(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	name, err := url.PathUnescape(strings.TrimPrefix(uri, logicsPrefix))
	if err != nil || len(name) > maxName || store.LogicNameProblem(name) != "" {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	answer, err := s.store.LogicJSON(ctx, s.target, name)
	if err != nil {
		return nil, s.resourceError(ctx, uri, err)
	}
	return s.resourceJSON(ctx, uri, answer)
}

// complete offers the names a resource template's arguments can take:
// connections and tables for hubsnap://tables/..., logic names for
// hubsnap://logics/..., those starting with what was typed, at most
// store.MaxCompletions. Without a current release it offers nothing.
func (s *Server) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	p := req.Params
	var names []string
	var more bool
	var err error
	if p.Ref != nil && p.Ref.Type == "ref/resource" && len(p.Argument.Value) <= maxName {
		prefix := p.Argument.Value
		switch {
		case p.Ref.URI == tableTemplate && p.Argument.Name == "connection":
			names, more, err = s.store.CompleteConnections(ctx, s.target, prefix)
		case p.Ref.URI == tableTemplate && p.Argument.Name == "table":
			conn := ""
			if p.Context != nil {
				conn = p.Context.Arguments["connection"]
			}
			names, more, err = s.store.CompleteTables(ctx, s.target, conn, prefix)
		case (p.Ref.URI == logicTemplate || p.Ref.URI == logicPathAlias) && (p.Argument.Name == "name" || p.Argument.Name == "path"):
			names, more, err = s.store.CompleteLogics(ctx, s.target, prefix)
		}
	}
	if err != nil && ctx.Err() == nil {
		s.log.Error("completion failed", "err", err)
	}
	if names == nil {
		names = []string{}
	}
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: names, HasMore: more}}
	if !more {
		res.Completion.Total = len(names)
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

// MaxSubscriptions is the most resources one session may subscribe to
// at once with resources/subscribe. Each costs a little memory until it
// is unsubscribed or its session closes; a client watches what its user
// has open, far fewer. (A subscriptions/listen stream holds its URIs only
// while it is open, within the request body limit.)
const MaxSubscriptions = 1000

// subscribe and unsubscribe track the URIs each session watches, to tell
// it when the release changes. A URI must name something of the current
// release, as a read would (the same -32602 otherwise): a client cannot
// make the server keep URIs that name nothing. A session holds at most
// MaxSubscriptions; its subscriptions go with it (DropSubscriptions).
func (s *Server) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	if err := s.resourceExists(ctx, uri); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	set := s.subs[req.Session]
	if set[uri] {
		return nil
	}
	if len(set) >= MaxSubscriptions {
		return tooManySubscriptions()
	}
	if set == nil {
		set = map[string]bool{}
		s.subs[req.Session] = set
	}
	set[uri] = true
	return nil
}

func (s *Server) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if set := s.subs[req.Session]; set != nil {
		delete(set, req.Params.URI)
		if len(set) == 0 {
			delete(s.subs, req.Session)
		}
	}
	return nil
}

// resourceExists returns nil when uri names the release resource, or a
// table or logic of the current release; else the error a read of it gets.
func (s *Server) resourceExists(ctx context.Context, uri string) error {
	read := &mcp.ReadResourceRequest{Params: &mcp.ReadResourceParams{URI: uri}}
	var err error
	switch {
	case uri == releaseURI:
		return nil
	case strings.HasPrefix(uri, tablesPrefix):
		_, err = s.readTable(ctx, read)
	case strings.HasPrefix(uri, logicsPrefix):
		_, err = s.readLogic(ctx, read)
	default:
		err = mcp.ResourceNotFoundError(uri)
	}
	return err
}

// DropSubscriptions forgets the subscriptions of a session that closed; a
// transport that keeps sessions calls it once each has closed.
// go-sdk drops the session from its own subscription map when it closes
// but keeps each URI there, with no session left: unsubscribing through
// its own handler (keepCore) removes those too.
func (s *Server) DropSubscriptions(ss *mcp.ServerSession) {
	s.mu.Lock()
	set := s.subs[ss]
	delete(s.subs, ss)
	s.mu.Unlock()
	for uri := range set {
		s.core(context.Background(), "resources/unsubscribe",
			&mcp.UnsubscribeRequest{Session: ss, Params: &mcp.UnsubscribeParams{URI: uri}})
	}
}

// keepCore is the innermost MCP middleware: it keeps go-sdk's own method
// handler (for DropSubscriptions) and adds nothing.
func (s *Server) keepCore(next mcp.MethodHandler) mcp.MethodHandler {
	s.core = next
	return next
}

// subscribedURIs are the URIs some session subscribed to.
func (s *Server) subscribedURIs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[string]bool{}
	var uris []string
	for _, set := range s.subs {
		for uri := range set {
			if !seen[uri] {
				seen[uri] = true
				uris = append(uris, uri)
			}
		}
	}
	return uris
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
	s.mu.Unlock()
	if !changed {
		return
	}
	uris := s.subscribedURIs()
	s.log.Info("the served release changed", "release", now)
	s.addReleaseResource() // list_changed to every session
	for _, uri := range uris {
		if err := s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
			s.log.Debug("notify a subscriber", "uri", uri, "err", err)
		}
	}
}

package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver/access"
	"github.com/hubsnap/hubsnap/store"
)

// Scopes (docs/team.md). Over stdio, and over HTTP while no token exists,
// a request carries no token and may read everything. With a token, each
// tool needs one of the scopes addTool registered it with, and each
// resource and completion the scope of its URI; tools/list and
// resources/list show everything (they reveal no release data).
// schema_search needs table:read or logic:read, and finds only the kinds
// its token may read.
//
// Two layers check. Here, in the MCP layer (checkScopes), a tool call
// outside the scopes answers the FORBIDDEN tool error and a resource a
// JSON-RPC error: what issued tokens get (docs/team.md). With OAuth, the HTTP
// layer decides first, from the request body (MissingScope), and answers
// 403 with the insufficient_scope challenge, so that the client can ask
// the user for more; the MCP layer stays as a second guard.

// grantedScopes returns the scopes of the request's token, and false when
// the request carries no token (stdio, or HTTP without tokens) and may
// read everything.
func grantedScopes(req mcp.Request) ([]string, bool) {
	extra := req.GetExtra()
	if extra == nil || extra.TokenInfo == nil {
		return nil, false
	}
	return extra.TokenInfo.Scopes, true
}

// resourceScope is the scope a resource URI (or URI template) needs; ""
// for a URI hubsnap does not serve, which its handler then refuses.
func resourceScope(uri string) access.Scope {
	switch {
	case uri == releaseURI:
		return access.ReleaseRead
	case strings.HasPrefix(uri, tablesPrefix):
		return access.TableRead
	case strings.HasPrefix(uri, logicsPrefix):
		return access.LogicRead
	}
	return ""
}

// checkScopes refuses what the request's token may not read: a tool call
// gets a FORBIDDEN tool error, a resource read, subscription or
// completion a JSON-RPC error.
func (s *Server) checkScopes(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		granted, limited := grantedScopes(req)
		if !limited {
			return next(ctx, method, req)
		}
		switch p := req.GetParams().(type) {
		case *mcp.CallToolParamsRaw:
			if need, ok := s.scopes[p.Name]; ok && !allowsAny(granted, need) {
				return forbiddenTool(p.Name, granted, need), nil
			}
		case *mcp.ReadResourceParams:
			if err := checkResource(granted, p.URI); err != nil {
				return nil, err
			}
		case *mcp.SubscribeParams:
			if err := checkResource(granted, p.URI); err != nil {
				return nil, err
			}
		case *mcp.CompleteParams:
			if p.Ref != nil {
				if err := checkResource(granted, p.Ref.URI); err != nil {
					return nil, err
				}
			}
		case *mcp.SubscriptionsListenParams:
			// go-sdk subscribes a listen stream's URIs without passing
			// them through this middleware again.
			if p.Notifications != nil {
				for _, uri := range p.Notifications.ResourceSubscriptions {
					if err := checkResource(granted, uri); err != nil {
						return nil, err
					}
				}
			}
		}
		return next(ctx, method, req)
	}
}

func checkResource(granted []string, uri string) error {
	need := resourceScope(uri)
	if need == "" || access.Allows(granted, need) {
		return nil
	}
	return forbiddenResource(granted, need)
}

// allowsAny reports whether the granted patterns include one of need.
func allowsAny(granted []string, need []access.Scope) bool {
	for _, n := range need {
		if access.Allows(granted, n) {
			return true
		}
	}
	return false
}

// searchKinds returns the kinds of hits the scopes may see: tables and
// columns with table:read, logics with logic:read.
func searchKinds(granted []string) []store.Kind {
	var kinds []store.Kind
	if access.Allows(granted, access.TableRead) {
		kinds = append(kinds, store.KindTable, store.KindColumn)
	}
	if access.Allows(granted, access.LogicRead) {
		kinds = append(kinds, store.KindLogic)
	}
	return kinds
}

// visibleKinds narrows the kinds a search asked for (all when none) to
// those the request's token may see. An explicit ask for kinds the token
// may not see at all is FORBIDDEN.
func visibleKinds(req mcp.Request, asked []store.Kind) ([]store.Kind, error) {
	granted, limited := grantedScopes(req)
	if !limited {
		return asked, nil
	}
	kinds, need := narrowKinds(granted, asked)
	if need != "" {
		return nil, store.Errorf(store.Forbidden, "schema_search: %s", forbiddenMessage(granted, []access.Scope{need}))
	}
	return kinds, nil
}

// narrowKinds is visibleKinds for granted scopes: the kinds to search, or
// the scope needed when the token may see none of those asked.
func narrowKinds(granted []string, asked []store.Kind) ([]store.Kind, access.Scope) {
	may := searchKinds(granted)
	if len(asked) == 0 {
		return may, ""
	}
	kinds := slices.DeleteFunc(slices.Clone(asked), func(k store.Kind) bool { return !slices.Contains(may, k) })
	if len(kinds) == 0 {
		if slices.Contains(asked, store.KindLogic) {
			return nil, access.LogicRead
		}
		return nil, access.TableRead
	}
	return kinds, ""
}

// searchToolName is schema_search's name: its kinds argument narrows the
// scope it needs (see MissingScope).
const searchToolName = "schema_search"

// MissingScope returns the scope that a JSON-RPC request (its method and
// raw params, as read from an HTTP body) needs and granted lacks, or ""
// when granted covers it or its params cannot tell (then checkScopes, in
// the MCP layer, decides). For a tool that any of several scopes opens
// (schema_search), it names the first. The HTTP transport asks it, with
// OAuth, to answer 403 with the insufficient_scope challenge before the
// request reaches MCP.
func (s *Server) MissingScope(granted []string, method string, params json.RawMessage) access.Scope {
	resource := func(uri string) access.Scope {
		if need := resourceScope(uri); need != "" && !access.Allows(granted, need) {
			return need
		}
		return ""
	}
	switch method {
	case "tools/call":
		var p struct {
			Name      string `json:"name"`
			Arguments struct {
				Kinds []store.Kind `json:"kinds"`
			} `json:"arguments"`
		}
		json.Unmarshal(params, &p)
		need, ok := s.scopes[p.Name]
		switch {
		case !ok:
			return "" // unknown: MCP answers -32602
		case !allowsAny(granted, need):
			return need[0]
		case p.Name == searchToolName:
			_, missing := narrowKinds(granted, p.Arguments.Kinds)
			return missing
		}
	case "resources/read", "resources/subscribe":
		var p struct {
			URI string `json:"uri"`
		}
		json.Unmarshal(params, &p)
		return resource(p.URI)
	case "completion/complete":
		var p struct {
			Ref struct {
				URI string `json:"uri"`
			} `json:"ref"`
		}
		json.Unmarshal(params, &p)
		return resource(p.Ref.URI)
	case "subscriptions/listen":
		var p struct {
			Notifications struct {
				ResourceSubscriptions []string `json:"resourceSubscriptions"`
			} `json:"notifications"`
		}
		json.Unmarshal(params, &p)
		for _, uri := range p.Notifications.ResourceSubscriptions {
			if need := resource(uri); need != "" {
				return need
			}
		}
	}
	return ""
}

package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver/access"
	"github.com/hubsnap/hubsnap/store"
)

// Scopes (SPEC §10). Over stdio, and over HTTP while no token exists, a
// request carries no token and may read everything. With a token, each
// tool, resource and completion needs the scope below; tools/list and
// resources/list show everything (they reveal no release data).

// toolScopes is the scope each tool needs. schema_search needs table:read
// or logic:read, and finds only the kinds its token may read.
var toolScopes = map[string]access.Scope{
	"schema_list_tables": access.TableRead,
	"schema_get_table":   access.TableRead,
	"logic_list":         access.LogicRead,
	"logic_get":          access.LogicRead,
	"release_info":       access.ReleaseRead,
}

// codeForbidden is the JSON-RPC error code of a resource read or a
// completion that the token's scopes do not cover. (Tools answer a tool
// error with code FORBIDDEN instead.) JSON-RPC leaves -32000 to -32099 to
// servers; MCP names no code for this.
const codeForbidden = -32001

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
func checkScopes(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		granted, limited := grantedScopes(req)
		if !limited {
			return next(ctx, method, req)
		}
		switch p := req.GetParams().(type) {
		case *mcp.CallToolParamsRaw:
			if need, ok := toolScopes[p.Name]; ok && !access.Allows(granted, need) {
				return forbiddenTool(p.Name, granted, need), nil
			}
			if p.Name == "schema_search" && len(searchKinds(granted)) == 0 {
				return forbiddenTool(p.Name, granted, "table:read or logic:read"), nil
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
		}
		return next(ctx, method, req)
	}
}

func checkResource(granted []string, uri string) error {
	need := resourceScope(uri)
	if need == "" || access.Allows(granted, need) {
		return nil
	}
	return &jsonrpc.Error{Code: codeForbidden, Message: forbiddenMessage(granted, need)}
}

func forbiddenTool(tool string, granted []string, need access.Scope) *mcp.CallToolResult {
	msg := fmt.Sprintf("%s: %s", tool, forbiddenMessage(granted, need))
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
		Text: (&toolError{Code: store.Forbidden, Message: msg}).Error()}}}
}

func forbiddenMessage(granted []string, need access.Scope) string {
	return fmt.Sprintf("this token's scopes (%s) do not include %s", strings.Join(granted, ", "), need)
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
	may := searchKinds(granted)
	if len(asked) == 0 {
		return may, nil
	}
	kinds := slices.DeleteFunc(slices.Clone(asked), func(k store.Kind) bool { return !slices.Contains(may, k) })
	if len(kinds) == 0 {
		need := access.TableRead
		if slices.Contains(asked, store.KindLogic) {
			need = access.LogicRead
		}
		return nil, store.Errorf(store.Forbidden, "schema_search: %s", forbiddenMessage(granted, need))
	}
	return kinds, nil
}

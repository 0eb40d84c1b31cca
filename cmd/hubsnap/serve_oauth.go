package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/hubsnap/hubsnap/mcpserver/access"
	"github.com/hubsnap/hubsnap/mcpserver/transport/oauth"
)

// discoveryTimeout bounds the discovery of the authorization server and
// the first fetch of its keys at start.
const discoveryTimeout = 30 * time.Second

// checkOAuth checks --http, --auth-issuer and --resource before anything
// listens or is fetched. The default resource identifier is the URL
// served, http://ADDR/mcp; an address that names every interface (0.0.0.0,
// [::], or no host) is not a URL a client can use, so it needs --resource.
func checkOAuth(opts *serveOptions) error {
	host, _, err := net.SplitHostPort(opts.HTTP)
	if err != nil {
		return usageErrorf("--http %q: want host:port, e.g. 127.0.0.1:7420", opts.HTTP)
	}
	if opts.Resource == "" {
		if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
			return usageErrorf("--auth-issuer with --http %s needs --resource: the URL clients use to reach this server, "+
				"which access tokens must be issued for (e.g. --resource https://hubsnap.example.com/mcp)", opts.HTTP)
		}
	}
	// The issuer and the resource as given; a default resource is checked
	// once its port is known (see startVerifier).
	resource := opts.Resource
	if resource == "" {
		resource = "http://" + opts.HTTP + "/mcp"
	}
	if err := (oauth.Config{Issuer: opts.AuthIssuer, Resource: resource}).Check(); err != nil {
		return usageErrorf("%v", err)
	}
	return nil
}

// startVerifier discovers the authorization server of --auth-issuer and
// fetches its keys, for the resource --resource or else served (the URL
// being served, with the port bound). An unreachable issuer is an error.
func startVerifier(ctx context.Context, opts *serveOptions, served string, status *slog.Logger) (*oauth.Verifier, error) {
	resource := opts.Resource
	if resource == "" {
		resource = served
	}
	ctx, cancel := context.WithTimeout(ctx, discoveryTimeout)
	defer cancel()
	v, err := oauth.New(ctx, oauth.Config{Issuer: opts.AuthIssuer, Resource: resource, Log: status})
	if err != nil {
		return nil, err
	}
	// One way of access at a time: tokens of hubsnap token create are not
	// accepted beside OAuth. Say so if some exist.
	if opts.ConfigDir != "" {
		if k, err := access.NewKeeper(access.NewFile(opts.ConfigDir)); err == nil {
			if n, _ := k.Count(); n > 0 {
				status.Warn(fmt.Sprintf("%d token(s) of hubsnap token create are not accepted: with --auth-issuer, "+
					"only OAuth access tokens are", n))
			}
		}
	}
	return v, nil
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hubsnap/hubsnap/mcpserver/access"
)

func (a *app) newTokenCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Issue, list and revoke the tokens of hubsnap serve --http",
		Long: `Tokens let people and assistants call hubsnap serve --http, each with scopes:

  table:read    the schema tools, schema_search and the table resources
  logic:read    the logic tools and resources (and logic hits of schema_search)
  release:read  release_info and the release resource

and the wildcards table:*, *:read and *. A token is printed once, when it is
created; the config folder keeps only its hash (serve-tokens.json, readable by
you alone). While any token exists, the server asks every request for one.

These are not Hub tokens: those belong to contexts (hubsnap context set).`,
	}
	cmd.AddCommand(a.newTokenCreateCommand(), a.newTokenListCommand(), a.newTokenRevokeCommand())
	return group(cmd)
}

// tokenConfigDir resolves the config folder that holds the token file.
// It reads no other file.
func (a *app) tokenConfigDir(cmd *cobra.Command) (string, error) {
	return a.folders(cmd).needConfigDir()
}

// tokenCreateOptions is what `hubsnap token create` works with.
type tokenCreateOptions struct {
	Stdout, Stderr io.Writer
	ConfigDir      string
	Name           string
	Scopes         []string // --scopes, unparsed; nil when not given
}

func (a *app) newTokenCreateCommand() *cobra.Command {
	opts := &tokenCreateOptions{}
	cmd := &cobra.Command{
		Use:   "create NAME --scopes SCOPE[,SCOPE...]",
		Short: "Issue a token and print it once",
		Long: `Issues a token named NAME with the given scopes and prints it on stdout, once:
hubsnap keeps only its hash and cannot show it again. Give it to the client
as "Authorization: Bearer TOKEN". To change a token's scopes, revoke it and
create it again.`,
		Example: `  hubsnap token create alice --scopes table:read,logic:read
  hubsnap token create ci --scopes '*:read'`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			var err error
			if opts.ConfigDir, err = a.tokenConfigDir(cmd); err != nil {
				return err
			}
			if cmd.Flags().Changed("scopes") && opts.Scopes == nil {
				opts.Scopes = []string{} // given, but empty
			}
			opts.Stdout, opts.Stderr, opts.Name = a.stdout, a.stderr, argv[0]
			return runTokenCreate(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringSliceVar(&opts.Scopes, "scopes", nil, "what the token may read: table:read, logic:read, release:read, or a wildcard (table:*, *:read, *)")
	return cmd
}

// runTokenCreate issues a token (access.File.Create), prints it on stdout
// and a note on stderr.
func runTokenCreate(_ context.Context, opts *tokenCreateOptions) error {
	if err := access.CheckName(opts.Name); err != nil {
		return usageErrorf("%v", err)
	}
	if opts.Scopes == nil {
		return usageErrorf("--scopes is required, e.g. --scopes table:read,logic:read")
	}
	scopes, err := access.ParseScopes(opts.Scopes)
	if err != nil {
		return usageErrorf("--scopes: %v", err)
	}
	secret, t, err := access.NewFile(opts.ConfigDir).Create(opts.Name, scopes, time.Now())
	if err != nil {
		return err
	}
	fmt.Fprintln(opts.Stdout, secret)
	fmt.Fprintf(opts.Stderr, "Token %q created with scopes %s. It is shown only this once: keep it now.\n",
		t.Name, strings.Join(t.Scopes, ","))
	return nil
}

// tokenListOptions is what `hubsnap token list` works with.
type tokenListOptions struct {
	Stdout, Stderr io.Writer
	ConfigDir      string
	JSON           bool // --json
}

func (a *app) newTokenListCommand() *cobra.Command {
	opts := &tokenListOptions{}
	cmd := &cobra.Command{
		Use:   "list [--json]",
		Short: "List tokens: names, scopes and creation times (never the tokens)",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if opts.ConfigDir, err = a.tokenConfigDir(cmd); err != nil {
				return err
			}
			opts.Stdout, opts.Stderr = a.stdout, a.stderr
			return runTokenList(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return cmd
}

// runTokenList prints the issued tokens (access.File.Read), never their
// secrets, which hubsnap does not have.
func runTokenList(_ context.Context, opts *tokenListOptions) error {
	tokens, err := access.NewFile(opts.ConfigDir).Read()
	if err != nil {
		return err
	}
	if opts.JSON {
		type entry struct {
			Name      string    `json:"name"`
			Scopes    []string  `json:"scopes"`
			CreatedAt time.Time `json:"createdAt"`
		}
		out := struct {
			Tokens []entry `json:"tokens"`
		}{Tokens: []entry{}}
		for _, t := range tokens {
			out.Tokens = append(out.Tokens, entry{t.Name, t.Scopes, t.CreatedAt})
		}
		return writeJSON(opts.Stdout, out)
	}
	if len(tokens) == 0 {
		fmt.Fprintln(opts.Stderr, "No tokens. Create one with: hubsnap token create NAME --scopes table:read,logic:read")
		return nil
	}
	tw := tabwriter.NewWriter(opts.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSCOPES\tCREATED")
	for _, t := range tokens {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Name, strings.Join(t.Scopes, ","), t.CreatedAt.Format(time.RFC3339))
	}
	return tw.Flush()
}

// tokenRevokeOptions is what `hubsnap token revoke` works with.
type tokenRevokeOptions struct {
	Stderr    io.Writer
	ConfigDir string
	Name      string
}

func (a *app) newTokenRevokeCommand() *cobra.Command {
	opts := &tokenRevokeOptions{}
	return &cobra.Command{
		Use:   "revoke NAME",
		Short: "Revoke a token; a running server refuses it from the next request on",
		Args:  args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			var err error
			if opts.ConfigDir, err = a.tokenConfigDir(cmd); err != nil {
				return err
			}
			opts.Stderr, opts.Name = a.stderr, argv[0]
			return runTokenRevoke(cmd.Context(), opts)
		},
	}
}

// runTokenRevoke removes a token from the token file (access.File.Revoke).
func runTokenRevoke(_ context.Context, opts *tokenRevokeOptions) error {
	t, err := access.NewFile(opts.ConfigDir).Revoke(opts.Name)
	if errors.Is(err, access.ErrNoToken) {
		return fmt.Errorf("no token named %q (see hubsnap token list)", opts.Name)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.Stderr, "Token %q revoked.\n", t.Name)
	return nil
}

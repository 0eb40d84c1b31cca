package main

import (
	"encoding/json"
	"errors"
	"fmt"
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

func (a *app) tokenFile(cmd *cobra.Command) (*access.File, error) {
	s, err := a.resolve(cmd)
	if err != nil {
		return nil, err
	}
	dir, err := s.needConfigDir()
	if err != nil {
		return nil, err
	}
	return access.NewFile(dir), nil
}

func (a *app) newTokenCreateCommand() *cobra.Command {
	var scopes []string
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
			name := argv[0]
			if err := access.CheckName(name); err != nil {
				return &usageError{err.Error()}
			}
			if !cmd.Flags().Changed("scopes") {
				return usageErrorf("--scopes is required, e.g. --scopes table:read,logic:read")
			}
			parsed, err := access.ParseScopes(scopes)
			if err != nil {
				return &usageError{"--scopes: " + err.Error()}
			}
			f, err := a.tokenFile(cmd)
			if err != nil {
				return err
			}
			secret, t, err := f.Create(name, parsed, time.Now())
			if err != nil {
				return err
			}
			fmt.Fprintln(a.stdout, secret)
			fmt.Fprintf(a.stderr, "Token %q created with scopes %s. It is shown only this once: keep it now.\n",
				t.Name, strings.Join(t.Scopes, ","))
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&scopes, "scopes", nil, "what the token may read: table:read, logic:read, release:read, or a wildcard (table:*, *:read, *)")
	return cmd
}

func (a *app) newTokenListCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [--json]",
		Short: "List tokens: names, scopes and creation times (never the tokens)",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			f, err := a.tokenFile(cmd)
			if err != nil {
				return err
			}
			tokens, err := f.Read()
			if err != nil {
				return err
			}
			if asJSON {
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
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(out)
			}
			if len(tokens) == 0 {
				fmt.Fprintln(a.stderr, "No tokens. Create one with: hubsnap token create NAME --scopes table:read,logic:read")
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tSCOPES\tCREATED")
			for _, t := range tokens {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Name, strings.Join(t.Scopes, ","), t.CreatedAt.Format(time.RFC3339))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func (a *app) newTokenRevokeCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "revoke NAME",
		Short: "Revoke a token; a running server refuses it within a second",
		Args:  args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			f, err := a.tokenFile(cmd)
			if err != nil {
				return err
			}
			t, err := f.Revoke(argv[0])
			if errors.Is(err, access.ErrNoToken) {
				return fmt.Errorf("no token named %q (see hubsnap token list)", argv[0])
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stderr, "Token %q revoked.\n", t.Name)
			return nil
		},
	}
}

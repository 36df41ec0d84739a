package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/proposals"
)

type oidcSetupOptions struct {
	gitea, gateway, name, secretFile string
}

func newServeOIDCCmd(io *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "oidc",
		Short: "Sign people in to the panel through an OIDC provider (Gitea)",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newServeOIDCSetupCmd(io))
	return cmd
}

func newServeOIDCSetupCmd(io *streams) *cobra.Command {
	var o oidcSetupOptions
	cmd := &cobra.Command{
		Use:   "setup",
		Short: "Make the gateway's OAuth2 app on Gitea; print its configuration",
		Long: `Setup makes a confidential OAuth2 application on Gitea, owned by the person
whose token GITEA_TOKEN_FILE (or GITEA_TOKEN) holds (it needs the write:user
scope), with the redirect URI --gateway + /auth/callback. It writes the
client secret to --secret-file (mode 0600; an existing file is refused), never
to the terminal or a log, and prints to stdout the auth.oidc configuration to
paste into bridle serve's file; what it made goes to stderr.

Give people roles under auth.roles in the same file, then restart bridle
serve: the panel's sign-in page offers "Sign in with Gitea".`,
		Example: `  GITEA_TOKEN_FILE=~/.config/gitea-token bridle serve oidc setup \
    --gitea https://gitea.example.org --gateway https://bridle.example.org \
    --secret-file /etc/bridle/oidc-client-secret`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runOIDCSetup(io, o) },
	}
	fl := cmd.Flags()
	fl.StringVar(&o.gitea, "gitea", "", "Gitea's `URL` (default $GITEA_URL)")
	fl.StringVar(&o.gateway, "gateway", "", "the gateway's `URL` as browsers reach it (the redirect URI is URL/auth/callback)")
	fl.StringVar(&o.name, "name", "Bridle", "the application's `name` in Gitea")
	fl.StringVar(&o.secretFile, "secret-file", "", "write the client secret to this new `file` (default STATE/gateway/oidc-client-secret)")
	return cmd
}

func runOIDCSetup(io *streams, o oidcSetupOptions) error {
	pc, err := io.f.Proposals(proposals.Config{GiteaURL: o.gitea})
	if err != nil {
		return usageErr("%w", err)
	}
	if pc.GiteaURL == "" {
		return usageErr("--gitea URL is required (or set GITEA_URL)")
	}
	if o.gateway == "" {
		return usageErr("--gateway URL is required: the gateway's address as people's browsers reach it")
	}
	if pc.Token != "" {
		io.f.Redactor().Add(pc.Token)
	}
	if o.secretFile == "" {
		state, err := io.f.StateDir()
		if err != nil {
			return usageErr("--secret-file: %w", err)
		}
		o.secretFile = filepath.Join(state, "gateway", "oidc-client-secret")
	}
	if abs, err := filepath.Abs(o.secretFile); err == nil {
		o.secretFile = abs
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := gateway.SetupGiteaOIDC(ctx, gateway.OIDCSetupOptions{Gitea: pc.GiteaURL, Token: pc.Token, Gateway: o.gateway, Name: o.name, SecretFile: o.secretFile})
	if err != nil {
		if errors.Is(err, gateway.ErrInput) {
			return usageErr("%w", err)
		}
		return err
	}
	fmt.Fprintf(io.errOut, "made OAuth2 application %q (id %d) on %s\n  client id:    %s\n  redirect URI: %s\n  secret:       in %s (mode 0600)\n\nPaste into bridle serve's configuration file, give people roles under auth.roles, restart:\n\n",
		s.Name, s.AppID, pc.GiteaURL, s.ClientID, s.RedirectURL, s.SecretFile)
	fmt.Fprint(io.out, s.Config())
	return nil
}

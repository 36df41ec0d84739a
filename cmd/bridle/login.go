package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bridle-dev/bridle/gateway"
)

// loginOptions are bridle login's flags.
type loginOptions struct {
	server    string
	noBrowser bool
	timeout   time.Duration
}

func newLoginCmd(io *streams) *cobra.Command {
	var o loginOptions
	cmd := &cobra.Command{
		Use:   "login",
		Short: "Sign the CLI in to a gateway as yourself",
		Long: `Login signs this CLI in to a gateway (bridle serve) as you, through the
gateway's identity provider (auth.oidc, e.g. Gitea): it opens your browser at
the gateway, which signs you in as the panel does and asks you to allow the
CLI; the browser comes back to this machine (127.0.0.1, a random port) with a
one-time code, which the CLI exchanges, with its PKCE verifier, for an API
token of your own. The address is printed too, for a machine with no
browser (--no-browser: only printed).

The token is kept in a file readable only by you, under your configuration
directory ($BRIDLE_CONFIG_DIR, else $XDG_CONFIG_HOME/bridle, else
~/.config/bridle), one per gateway; it is never printed. The admin verbs
with --server (approve, reject, proposals, agents, secrets) then act as you,
with the role the gateway gives you, when no admin credential is given
(--admin-token-file, BRIDLE_ADMIN_TOKEN_FILE). Your tokens are listed, with
their last use, on the panel's account page; bridle logout revokes this one.`,
		Example: `  bridle login --server https://bridle.example.org
  bridle login --server http://127.0.0.1:7777 --no-browser   # open the printed address yourself
  bridle approve 3 --server https://bridle.example.org --project runic-gateway`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return loginRun(cmd.Context(), io, o) },
	}
	cmd.Flags().StringVar(&o.server, "server", "", "the gateway's `url` (default $BRIDLE_SERVER)")
	cmd.Flags().BoolVar(&o.noBrowser, "no-browser", false, "print the address to open, do not open a browser")
	cmd.Flags().DurationVar(&o.timeout, "timeout", 5*time.Minute, "how long to wait for the sign-in in the browser")
	return cmd
}

func loginRun(ctx context.Context, io *streams, o loginOptions) error {
	if o.server == "" {
		o.server = io.f.ServerURL()
	}
	if o.server == "" {
		return usageErr("--server URL is required (or set BRIDLE_SERVER): the gateway to sign in to")
	}
	dir, err := io.f.ConfigDir()
	if err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	host, _ := os.Hostname()
	opts := gateway.LoginOptions{Server: o.server, Name: strings.TrimSpace("bridle login on " + host), Timeout: o.timeout,
		Show: func(address string) {
			fmt.Fprintf(io.errOut, "Open this address in a browser to sign in (it waits %s):\n  %s\n", o.timeout, address)
		}}
	if !o.noBrowser {
		opts.Open = openBrowser
	}
	m, err := gateway.Login(ctx, opts)
	if errors.Is(err, gateway.ErrInput) {
		return usageErr("%w", err)
	}
	if err != nil {
		return err
	}
	io.f.Redactor().Add(m.Token)
	path, err := gateway.SaveCredential(dir, gateway.Credential{Server: o.server, Token: m.Token, ID: m.Info.ID, Name: m.Info.Name,
		Person: m.Person, Expires: m.Info.Expires})
	if err != nil {
		return err
	}
	fmt.Fprintf(io.errOut, "Signed in to %s as %s; the token (%s, until %s) is in %s.\n", o.server, m.Person.Name, m.Info.Name,
		m.Info.Expires.Format("2006-01-02"), path)
	return nil
}

// openBrowser opens address in the desktop's browser, without waiting.
func openBrowser(address string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", address)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", address)
	default:
		cmd = exec.Command("xdg-open", address)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}

func newLogoutCmd(io *streams) *cobra.Command {
	var server string
	cmd := &cobra.Command{
		Use:   "logout",
		Short: "Revoke and forget the CLI's sign-in to a gateway",
		Long: `Logout revokes the API token bridle login stored for a gateway, on the
gateway, and deletes it from this machine. When the gateway cannot be
reached the token is still deleted here, and logout says so: revoke it on
the panel's account page. Without --server (or BRIDLE_SERVER) it signs out of
the one gateway signed in to.`,
		Example: `  bridle logout --server https://bridle.example.org`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := io.f.ConfigDir()
			if err != nil {
				return err
			}
			if server == "" {
				server = io.f.ServerURL()
			}
			if server == "" {
				all, err := gateway.StoredCredentials(dir)
				if err != nil {
					return err
				}
				switch len(all) {
				case 0:
					fmt.Fprintln(io.errOut, "Not signed in to any gateway.")
					return nil
				case 1:
					server = all[0].Server
				default:
					var names []string
					for _, c := range all {
						names = append(names, c.Server)
					}
					return usageErr("signed in to %d gateways (%s): say which with --server", len(all), strings.Join(names, ", "))
				}
			}
			c, err := gateway.LoadCredential(dir, server)
			if errors.Is(err, fs.ErrNotExist) {
				fmt.Fprintf(io.errOut, "Not signed in to %s.\n", server)
				return nil
			}
			if errors.Is(err, gateway.ErrInput) {
				return usageErr("%w", err)
			}
			if err != nil {
				return err
			}
			io.f.Redactor().Add(c.Token)
			revokeErr := revokeLogin(c)
			if err := gateway.DeleteCredential(dir, server); err != nil {
				return err
			}
			switch {
			case revokeErr == nil, errors.Is(revokeErr, gateway.ErrUnauthorized), errors.Is(revokeErr, gateway.ErrNoSuchItem):
				// Revoked now, or already refused (expired, revoked elsewhere).
				fmt.Fprintf(io.errOut, "Signed out of %s: the token %s is revoked and deleted here.\n", c.Server, c.Name)
				return nil
			}
			return &exitError{exitFailure, fmt.Errorf("deleted the token %s here, but the gateway could not revoke it (%w): revoke it on the panel's account page (%s/ui/account)",
				c.Name, revokeErr, strings.TrimRight(c.Server, "/"))}
		},
	}
	cmd.Flags().StringVar(&server, "server", "", "the gateway's `url` (default $BRIDLE_SERVER, else the one signed in to)")
	return cmd
}

// revokeLogin revokes c's token on its gateway, with the token itself.
func revokeLogin(c gateway.Credential) error {
	cl, err := gateway.NewPersonClient(c.Server, c.Token)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_, err = cl.RevokeMyToken(ctx, c.ID)
	return err
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/renameio/v2"
	"github.com/spf13/cobra"

	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/gateway"
)

// adminFlags are how an admin verb reaches the gateway: --server and the
// admin credential's file (never the credential itself as a flag).
type adminFlags struct {
	server, tokenFile, project string
	json                       bool
}

func (a *adminFlags) register(cmd *cobra.Command, project bool) {
	cmd.Flags().StringVar(&a.server, "server", "", "the gateway's `url` (default $BRIDLE_SERVER)")
	cmd.Flags().StringVar(&a.tokenFile, "admin-token-file", "", "the admin credential's `file` (default $BRIDLE_ADMIN_TOKEN_FILE)")
	if project {
		cmd.Flags().StringVar(&a.project, "project", "", "the `project` (an id in the gateway's configuration)")
	}
	cmd.Flags().BoolVar(&a.json, "json", false, "print the answer as one JSON document on stdout")
}

// client is the admin API client the flags describe.
func (a *adminFlags) client(io *streams) (*gateway.Client, error) {
	if a.server == "" {
		a.server = io.f.ServerURL()
	}
	if a.server == "" {
		return nil, usageErr("--server URL is required (or set BRIDLE_SERVER): the gateway started by bridle serve")
	}
	file := a.tokenFile
	if file == "" {
		file = io.f.AdminTokenFile()
	}
	if file == "" {
		// No admin credential given: the person bridle login signed in.
		dir, err := io.f.ConfigDir()
		if err == nil {
			c, lerr := gateway.LoadCredential(dir, a.server)
			switch {
			case lerr == nil:
				io.f.Redactor().Add(c.Token)
				cl, err := gateway.NewPersonClient(a.server, c.Token)
				if err != nil {
					return nil, usageErr("%w", err)
				}
				return cl, nil
			case errors.Is(lerr, gateway.ErrInput):
				return nil, usageErr("%w", lerr)
			case !errors.Is(lerr, fs.ErrNotExist):
				return nil, lerr
			}
		}
		return nil, usageErr("sign in as yourself with bridle login --server %s, or give the admin credential: set BRIDLE_ADMIN_TOKEN_FILE or --admin-token-file to the file bridle serve named at its first start", a.server)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, usageErr("admin credential: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return nil, usageErr("admin credential: %s is empty", file)
	}
	io.f.Redactor().Add(tok)
	c, err := gateway.NewClient(a.server, tok)
	if err != nil {
		return nil, usageErr("%w", err)
	}
	return c, nil
}

func (a *adminFlags) needProject() error {
	if a.project == "" {
		return usageErr("--project is required")
	}
	return nil
}

func newAgentsCmd(io *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "Manage a gateway project's agents and their tokens",
		Long: `Agents manages who may connect to a gateway (bridle serve): each agent of a
project has its own bearer token, which is its identity there. A token is
printed once, on stdout, when it is minted (add) or replaced (rotate), or
written to --out FILE (mode 0600; stdout redirected to a file is made 0600
too); the gateway keeps only its hash. Each
agent reads its token from a variable of its own (BRIDLE_TOKEN_CLAUDE, or
BRIDLE_TOKEN_FILE_CLAUDE naming the file), which bridle install --server
writes into its config: set it only where that agent starts. Revoking or rotating takes effect on the
agent's next request.

These verbs go through the gateway's admin API: --server URL (or
BRIDLE_SERVER) and the admin credential's file (BRIDLE_ADMIN_TOKEN_FILE, or
--admin-token-file).`,
		Example: `  export BRIDLE_SERVER=http://127.0.0.1:7777 BRIDLE_ADMIN_TOKEN_FILE=~/.local/state/bridle/gateway/admin-token
  bridle agents add --project my-project --agent claude --out ~/.config/bridle/claude.token
  bridle agents list --project my-project
  bridle agents rotate --project my-project --agent claude
  bridle agents revoke --project my-project --agent claude`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	mint := func(use, short string, call func(context.Context, *gateway.Client, string, string) (gateway.Minted, error)) *cobra.Command {
		var a adminFlags
		var agent, file string
		c := &cobra.Command{
			Use:   use,
			Short: short,
			Args:  cobra.NoArgs,
			RunE: func(*cobra.Command, []string) error {
				if err := a.needProject(); err != nil {
					return err
				}
				if agent == "" {
					return usageErr("--agent is required")
				}
				if file != "" && a.json {
					return usageErr("--out and --json exclude each other: the token goes to the file only")
				}
				cl, err := a.client(io)
				if err != nil {
					return err
				}
				if file == "" && !a.json {
					// bridle agents add … > FILE: the file is made
					// readable by its owner only, as --out's is, before
					// the token is minted and written.
					if err := privateStdout(io, use); err != nil {
						return err
					}
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				m, err := call(ctx, cl, a.project, agent)
				if err != nil {
					return err
				}
				if a.json {
					return writeJSON(io, m)
				}
				if file != "" {
					if err := writeTokenFile(file, m.Token); err != nil {
						// The token is minted: say so, or it is lost unseen.
						return fmt.Errorf("agents %s: the token for agent %s was minted but not saved (rotate it): %w", use, m.Agent.Agent, err)
					}
					fmt.Fprintf(io.errOut, "wrote the token for agent %s of project %s to %s (readable by you only)\n", m.Agent.Agent, m.Agent.Project, file)
				} else {
					fmt.Fprintln(io.out, m.Token)
					fmt.Fprintf(io.errOut, "token for agent %s of project %s — shown once\n", m.Agent.Agent, m.Agent.Project)
				}
				fmt.Fprintf(io.errOut, "MCP endpoint: %s%s\n", strings.TrimRight(a.server, "/"), m.MCP)
				fmt.Fprintf(io.errOut, "for agent %s only: set %s to the token where it starts (the HTTP entry bridle install --server writes), or %s to a file holding it (the stdio bridge); set neither where another agent starts\n",
					m.Agent.Agent, agents.TokenEnv(m.Agent.Agent), agents.TokenFileEnv(m.Agent.Agent))
				return nil
			},
		}
		a.register(c, true)
		c.Flags().StringVar(&agent, "agent", "", "the `agent` (a profile name in the rules: claude, codex, …)")
		c.Flags().StringVar(&file, "out", "", "write the token to this `file` (created readable by you only) instead of printing it")
		c.Flags().StringVar(&file, "token-file", "", "the same as --out")
		return c
	}
	add := mint("add", "Mint a token for a new agent of a project (printed once)",
		func(ctx context.Context, c *gateway.Client, p, a string) (gateway.Minted, error) {
			return c.AddAgent(ctx, p, a)
		})
	rotate := mint("rotate", "Replace an agent's token (the new one is printed once)",
		func(ctx context.Context, c *gateway.Client, p, a string) (gateway.Minted, error) {
			return c.RotateAgent(ctx, p, a)
		})

	var ra adminFlags
	var ragent string
	revoke := &cobra.Command{
		Use:   "revoke",
		Short: "Revoke an agent's token: its next request is refused",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := ra.needProject(); err != nil {
				return err
			}
			if ragent == "" {
				return usageErr("--agent is required")
			}
			cl, err := ra.client(io)
			if err != nil {
				return err
			}
			t, err := cl.RevokeAgent(context.Background(), ra.project, ragent)
			if err != nil {
				return err
			}
			if ra.json {
				return writeJSON(io, t)
			}
			fmt.Fprintf(io.errOut, "revoked the token of agent %s of project %s\n", t.Agent, t.Project)
			return nil
		},
	}
	ra.register(revoke, true)
	revoke.Flags().StringVar(&ragent, "agent", "", "the `agent`")

	var la adminFlags
	list := &cobra.Command{
		Use:   "list",
		Short: "List a project's agents, their token dates and permissions",
		Long: `List shows each agent of the project with a token: when it was minted and
last rotated, and the permissions the project's rules grant it. It never
shows a token, nor its hash.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := la.needProject(); err != nil {
				return err
			}
			cl, err := la.client(io)
			if err != nil {
				return err
			}
			views, err := cl.Agents(context.Background(), la.project)
			if err != nil {
				return err
			}
			if la.json {
				return writeJSON(io, views)
			}
			if len(views) == 0 {
				none(io, "no agents yet", "mint a token with bridle agents add --project "+la.project+" --agent NAME")
				return nil
			}
			w := table(io.out, "AGENT", "CREATED", "ROTATED", "PERMISSIONS")
			for _, a := range views {
				rotated, perms := "-", strings.Join(a.Permissions, ",")
				if !a.Rotated.IsZero() {
					rotated = a.Rotated.Format(time.RFC3339)
				}
				if !a.Profile {
					perms = "none (no profile in the rules)"
				} else if perms == "" {
					perms = "read the rules"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", cell(a.Agent), a.Created.Format(time.RFC3339), rotated, perms)
			}
			return w.Flush()
		},
	}
	la.register(list, true)
	cmd.AddCommand(add, list, rotate, revoke)
	return cmd
}

// registerGateway adds --server, --project and --admin-token-file to a
// proposals verb (whose --json it shares): with them the verb goes through
// the gateway's admin API instead of a local or Gitea backend.
func (a *adminFlags) registerGateway(cmd *cobra.Command) {
	cmd.Flags().StringVar(&a.server, "server", "", "go through this gateway's admin API (`url`; with --project, default $BRIDLE_SERVER)")
	cmd.Flags().StringVar(&a.project, "project", "", "with --server: the gateway's `project`")
	cmd.Flags().StringVar(&a.tokenFile, "admin-token-file", "", "with --server: the admin credential's `file` (default $BRIDLE_ADMIN_TOKEN_FILE)")
}

// gateway reports whether the verb goes through a gateway: --server, or
// --project with BRIDLE_SERVER set. It refuses the local flags then.
func (a *adminFlags) gateway(cmd *cobra.Command, io *streams) (bool, error) {
	if a.server == "" && (a.project == "" || io.f.ServerURL() == "") {
		if a.project != "" {
			return false, usageErr("--project names a gateway's project: give --server URL (or set BRIDLE_SERVER)")
		}
		return false, nil
	}
	var local []string
	for _, name := range []string{"rules", "gitea", "repo", "path", "as"} {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
			local = append(local, "--"+name)
		}
	}
	if len(local) > 0 {
		return true, usageErr("%s cannot go with --server: the gateway holds the project's rules and says who its admin is", strings.Join(local, ", "))
	}
	return true, a.needProject()
}

// writeTokenFile writes token to file, readable by its owner only; an
// existing file is replaced whole, and ends up 0600 whatever its mode was.
func writeTokenFile(file, token string) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	// Not renameio.WriteFile: it would keep an existing file's mode.
	t, err := renameio.NewPendingFile(file, renameio.WithStaticPermissions(0o600))
	if err != nil {
		return err
	}
	defer t.Cleanup()
	if _, err := t.Write([]byte(token + "\n")); err != nil {
		return err
	}
	return t.CloseAtomicallyReplace()
}

// privateStdout makes stdout, when it is a regular file (bridle agents add
// … > FILE), readable by its owner only, before any byte of a token is
// written to it; it refuses when that cannot be done, and warns when the
// file already held something (>> FILE: what it held is now private too).
func privateStdout(io *streams, use string) error {
	f, ok := io.protocol.(*os.File)
	if !ok {
		return nil
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil
	}
	if st.Mode().Perm()&0o077 != 0 {
		if err := f.Chmod(0o600); err != nil {
			return fmt.Errorf("agents %s: stdout is a file others may read, and it cannot be made private: %w (use --out FILE)", use, err)
		}
	}
	if st.Size() > 0 {
		fmt.Fprintf(io.errOut, "warning: stdout is a file that already holds %d bytes: the token is appended to it, and the whole file is now readable by you only (--out FILE writes a file of its own)\n", st.Size())
	}
	return nil
}

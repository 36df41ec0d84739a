package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/bridle-dev/bridle/bridge"
	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/install"
	"github.com/bridle-dev/bridle/kanboard"
	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/proposals"
)

type mcpOptions struct {
	rules    string
	ref      string
	worktree bool
	snapshot string
	agent    string
	logLevel string
	gitea    string
	repo     string
	path     string

	server       string // the gateway: bridle mcp is then a stdio bridge to it
	project      string
	tokenFile    string
	tokenFileEnv string // the variable naming the token file

	config string // the sidecar's integrations: kanboard, upstreams
}

func newMCPCmd(io *streams) *cobra.Command {
	var o mcpOptions
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the rules over MCP (stdio), or bridge an agent to a gateway",
		Long: `Mcp is the sidecar each coding agent launches. It speaks MCP over stdin and
stdout and logs to stderr only. It serves the rules rendered for the calling
agent (get_rules, list_guardrails, get_guardrail), asks the human before an
agent goes beyond its task (request_scope_approval), and exposes the
resources bridle://rules/{agent} and bridle://snapshot.

The agent is the one bound with --agent (or BRIDLE_AGENT); otherwise the MCP
client's name is looked up in the profiles' mcp_clients (claude-code → claude,
codex-mcp-client → codex); otherwise it is "unknown" and may do nothing but
read the rules. Tools the agent may not use are hidden and refused.

The rules served are those committed on main of the rules repository (or
--ref), never the work tree: an edit nobody approved is never the rules.
Parts of main that no approved merge produced (a direct commit, a
fast-forward that bypassed bridle approve) are served marked NOT APPROVED,
and grant no permission the last approved rules did not. --worktree is an
authoring mode that serves the work tree, loudly labelled, under the same
limit.

The snapshot is compiled on first use and cached per commit under the user
cache directory; if the rules cannot be read later, the cached snapshot is
served and marked stale. With --gitea/--repo (or GITEA_URL and
BRIDLE_GITEA_REPO) the rules are main of that repository, kept in a local
mirror and re-checked in the background every 2 s; while Gitea is down the
last snapshot is served, marked stale. Proposal tools open pull requests there
(or, without Gitea, branches in the local rules repository). Events go to the
audit log (bridle audit).

With KANBOARD_URL set (and KANBOARD_USER, KANBOARD_TOKEN or
KANBOARD_TOKEN_FILE, KANBOARD_PROJECTS) the Kanboard tools are served. --config
FILE adds integrations as a bridle serve project entry has them: kanboard:
(with one Kanboard user per agent) and upstreams: — existing MCP servers
(Gitea's gitea-mcp, …) run as stdio children or reached over HTTP, their tools
served as NAME_TOOL behind Bridle's permissions, with the credentials Bridle
reads from files and injects.

With --server URL --project P, mcp is instead a bridge to Bridle's gateway
(bridle serve): it forwards the agent's MCP messages, unchanged, to
URL/p/P/mcp over streamable HTTP, with the agent's token as a bearer token.
The token is the agent's identity there, so --rules, --ref, --worktree,
--snapshot, --agent and --gitea do not go with --server: the gateway
decides what the agent is served. The token is read from a file, never
from a flag value: --token-file FILE, else the file the variable
--token-file-env names (bridle install writes the agent's own,
BRIDLE_TOKEN_FILE_NAME, so that no two agents' configs read one variable;
no other variable is read then), else the file BRIDLE_TOKEN_FILE names.
bridle agents add --server URL --project P --agent NAME --token-file FILE
writes a new token to FILE, readable by its owner only. When the gateway restarts,
the bridge reconnects and replays the session's start, so the agent's next
call goes through; while the gateway is unreachable a call gets an error
after about 10 s, and a token the gateway refuses (revoked, rotated) gets
an error at once. --server defaults to BRIDLE_SERVER (which alone does not
make mcp a bridge).`,
		Example: `  bridle mcp --rules ~/rules --agent claude
  bridle mcp --rules ~/rules --ref release
  bridle mcp --rules ~/rules --worktree --agent claude   # while editing the rules
  bridle mcp --snapshot snapshot.json
  BRIDLE_TOKEN_FILE_KIMI=~/.config/bridle/kimi.token bridle mcp --server https://bridle.example.com --project runic --token-file-env BRIDLE_TOKEN_FILE_KIMI`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// From the start: a signal while the rules load still ends the
			// sidecar cleanly.
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			// --project (or --server) selects the bridge; BRIDLE_SERVER
			// alone does not, so that an environment set up for the admin
			// verbs leaves the embedded sidecar as it is.
			if o.server != "" || o.project != "" {
				if o.server == "" {
					o.server = io.f.ServerURL()
				}
				return runBridge(cmd, io, o)
			}
			if o.agent == "" {
				o.agent = io.f.BoundAgent()
			}
			if o.worktree && o.ref != "" {
				return usageErr("--worktree and --ref exclude each other: --worktree serves the work tree, --ref a commit")
			}
			// Starting allocates a lot at once (tool schemas); collecting
			// less often until the first tools/list is answered gets there
			// sooner. The default comes back right after.
			old := debug.SetGCPercent(400)
			restore := sync.OnceFunc(func() { debug.SetGCPercent(old) })
			time.AfterFunc(2*time.Second, restore)
			var level slog.Level
			if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
				return usageErr("--log-level: %v", err)
			}
			log := slog.New(slog.NewTextHandler(io.errOut, &slog.HandlerOptions{Level: level}))
			o.rules = findRules(o.rules)
			if o.ref != "" && o.snapshot == "" && o.gitea == "" {
				// A ref the repository does not have is a typo, not rules
				// to wait for (an uncommitted main gets its hint from the
				// server instead).
				if _, err := compiler.Head(compiler.Options{Rules: o.rules, Ref: o.ref}); errors.Is(err, compiler.ErrBadRef) {
					return rulesErr(err)
				}
			}
			cfg, err := io.f.Proposals(proposals.Config{Rules: o.rules, GiteaURL: o.gitea, GiteaRepo: o.repo, Path: o.path})
			if err != nil {
				return err
			}
			exRoot := examplesRoot(o.rules)
			if o.snapshot != "" || cfg.GiteaURL != "" && cfg.GiteaRepo != "" {
				exRoot = "" // no local rules directory to anchor local examples to
			}
			exOpts, err := io.f.Examples(exRoot)
			if err != nil {
				return usageErr("%w", err)
			}
			stateDir, err := io.f.StateDir()
			if err != nil {
				return err
			}
			opts := mcp.Options{
				Rules: o.rules, Ref: o.ref, Worktree: o.worktree, Snapshot: o.snapshot, Agent: o.agent,
				Version: version(), Logger: log, Redactor: io.f.Redactor(), CacheDir: io.f.CacheDir(), StateDir: stateDir,
				Proposals: func() (proposals.Backend, error) { return proposals.OpenBackend(cfg) },
				MemoryOf:  io.f.ProjectMemory,
				Examples:  exOpts,
				Listed:    restore,
				Prefetch:  true,
			}
			kc, err := io.f.Kanboard()
			if err != nil {
				return usageErr("%w", err)
			}
			if kc.URL != "" {
				opts.Kanboard = sidecarKanboard(kc)
			}
			var integ gateway.ProjectConfig
			if o.config != "" {
				b, err := os.ReadFile(o.config)
				if err != nil {
					return usageErr("--config: %w", err)
				}
				if integ, err = gateway.ParseIntegrations(o.config, b, io.f.getenv); err != nil {
					return usageErr("%w", err)
				}
				if integ.Kanboard != nil {
					if opts.Kanboard, _, err = gateway.Kanboard(*integ.Kanboard, io.f.SidecarCredentials(log)); err != nil {
						return usageErr("%w", err)
					}
				}
			}
			if cfg.GiteaURL != "" && cfg.GiteaRepo != "" && o.snapshot == "" {
				owner, name, err := proposals.Split(cfg.GiteaRepo)
				if err != nil {
					return usageErr("%w", err)
				}
				opts.Gitea = &proposals.GiteaOptions{URL: cfg.GiteaURL, Token: cfg.Token, Owner: owner, Repo: name, Path: cfg.Path, Main: cfg.Branch}
			}
			srv := mcp.New(opts)
			if err := srv.Err(); err != nil {
				return usageErr("mcp: %w", err)
			}
			go srv.WarnUnknownAgent() // on stderr, as soon as the rules are loaded
			ups, err := gateway.StartUpstreams(ctx, integ.Upstreams, srv, io.f.SidecarCredentials(log), log)
			if err != nil {
				return usageErr("%w", err)
			}
			defer func() {
				for _, u := range ups {
					u.Close()
				}
			}()
			if err := srv.ServeStdio(ctx, stdin(cmd), io.protocol); err != nil {
				return fmt.Errorf("mcp: %w", err)
			}
			return nil
		},
	}
	rulesFlag(cmd, &o.rules, "")
	refFlag(cmd, &o.ref, "", "serve the rules committed at this git `ref` (default: the rules' branch, recorded by bridle init as git config bridle.branch)")
	cmd.Flags().BoolVar(&o.worktree, "worktree", false, "authoring mode: serve the work tree's rules, labelled unapproved, with no permission main does not grant")
	cmd.Flags().StringVar(&o.snapshot, "snapshot", "", "serve this compiled snapshot `file` instead of compiling the rules")
	cmd.Flags().StringVar(&o.agent, "agent", "", "bind the session to this `agent` (default $BRIDLE_AGENT, else identify the MCP client)")
	cmd.Flags().StringVar(&o.logLevel, "log-level", "warn", "stderr log `level`: debug, info, warn or error")
	giteaFlags(cmd, &o.gitea, &o.repo, &o.path, "serve main of the rules repository")
	cmd.Flags().StringVar(&o.server, "server", "", "bridge the agent to the project's MCP endpoint on this Bridle gateway `URL` (default $BRIDLE_SERVER)")
	cmd.Flags().StringVar(&o.project, "project", "", "with --server, the gateway's `project`")
	cmd.Flags().StringVar(&o.config, "config", "", "the sidecar's integrations `file`: kanboard: and upstreams: (MCP servers served through Bridle), as a bridle serve project's")
	cmd.Flags().StringVar(&o.tokenFile, "token-file", "", "with --server, the `file` holding the agent's gateway token (default: the file --token-file-env names)")
	cmd.Flags().StringVar(&o.tokenFileEnv, "token-file-env", "", "with --server, the environment `variable` naming the token's file: the agent's own, as bridle install writes it (default BRIDLE_TOKEN_FILE)")
	cmd.AddCommand(newMCPToolsCmd(io))
	return cmd
}

// sidecarKanboard is the sidecar's Kanboard: the application identity (or
// KANBOARD_USER's) for every agent, restricted to KANBOARD_PROJECTS. A
// configuration the client refuses (no token, a URL that is not one) does
// not stop the rules being served: every Kanboard call says what is wrong.
func sidecarKanboard(kc kanboard.Config) *mcp.Kanboard {
	client, err := kanboard.New(kc.Options())
	return &mcp.Kanboard{Projects: kc.Projects, For: func(string) (*kanboard.Client, error) { return client, err }}
}

// runBridge runs bridle mcp --server: the stdio bridge to the gateway.
func runBridge(cmd *cobra.Command, io *streams, o mcpOptions) error {
	var local []string
	for _, name := range []string{"rules", "ref", "worktree", "snapshot", "agent", "gitea", "repo", "path", "config"} {
		if cmd.Flags().Changed(name) {
			local = append(local, "--"+name)
		}
	}
	switch {
	case o.server == "":
		return usageErr("--project needs --server (or BRIDLE_SERVER): the gateway that serves the project")
	case o.project == "":
		return usageErr("--server needs --project: the gateway's project to bridge to")
	case len(local) > 0:
		return usageErr("%s cannot go with --server: the gateway serves the project's rules, and the token is the agent's identity there", strings.Join(local, ", "))
	}
	endpoint, err := bridge.Endpoint(o.server, o.project)
	if err != nil {
		return usageErr("%w", err)
	}
	token, err := readToken(io, o)
	if err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		return usageErr("--log-level: %v", err)
	}
	red := io.f.Redactor()
	red.Add(token) // whatever the CLI prints from here on is masked too
	log := slog.New(slog.NewTextHandler(io.errOut, &slog.HandlerOptions{Level: level}))
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = bridge.Run(ctx, bridge.Options{URL: endpoint, Token: token, In: stdin(cmd), Out: io.protocol, Logger: log, Redactor: red})
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("mcp --server: %w", err)
	}
	return nil
}

// readToken reads the agent's token from --token-file, else the file
// --token-file-env's variable names, else BRIDLE_TOKEN_FILE's; errors name
// the file or the variable, never what the file holds.
func readToken(io *streams, o mcpOptions) (string, error) {
	file, from := o.tokenFile, "--token-file"
	fix := fmt.Sprintf("\n    fix: bridle agents add --server %s --project %s --agent NAME --token-file FILE writes a new token to FILE (readable by you only)", o.server, o.project)
	switch {
	case file != "":
	case o.tokenFileEnv != "":
		if !envName(o.tokenFileEnv) {
			return "", usageErr("--token-file-env %q is not an environment variable's name", o.tokenFileEnv)
		}
		from = o.tokenFileEnv
		if file = strings.TrimSpace(io.f.getenv(o.tokenFileEnv)); file == "" {
			return "", usageErr("--server needs the agent's token in a file: %s is not set (the agent's config reads no other variable; a token is never a flag value)%s; then set %s=FILE where the agent starts", o.tokenFileEnv, fix, o.tokenFileEnv)
		}
	default:
		from = install.BridgeTokenFileEnv
		if file = io.f.TokenFile(); file == "" {
			return "", usageErr("--server needs the agent's token in a file: --token-file FILE, --token-file-env VARIABLE or BRIDLE_TOKEN_FILE (a token is never a flag value)%s", fix)
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is said once
		}
		return "", usageErr("token file %s (%s): %w", file, from, err)
	}
	token := strings.TrimSpace(string(data))
	switch {
	case token == "":
		return "", usageErr("token file %s (%s) is empty%s", file, from, fix)
	case strings.ContainsAny(token, " \t\r\n"):
		return "", usageErr("token file %s (%s) holds more than one token (a token is one word, bridle_…)", file, from)
	}
	return token, nil
}

// envName reports whether s is a portable environment variable's name.
func envName(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

func stdin(cmd *cobra.Command) interface{ Read([]byte) (int, error) } {
	if r := cmd.InOrStdin(); r != nil {
		return r
	}
	return os.Stdin
}

func newMCPToolsCmd(io *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "tools",
		Short: "List the sidecar's tools as markdown (toolset, permission, hints)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprint(io.out, mcp.ToolsMarkdown(mcp.New(mcp.Options{CacheDir: "-"}).Tools()))
			return err
		},
	}
}

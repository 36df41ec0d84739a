package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bridle-dev/bridle/bridge"
	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/enforce"
	"github.com/bridle-dev/bridle/install"
	"github.com/bridle-dev/bridle/schema"
)

func newInstallCmd(io *streams) *cobra.Command {
	var o install.Options
	var dir string
	cmd := &cobra.Command{
		Use:       "install claude|codex|kimi",
		Short:     "Add bridle mcp to a coding agent's MCP configuration",
		ValidArgs: install.Clients,
		Long: `Install adds Bridle's MCP server to a client's MCP config, with the agent
bound at launch (bridle mcp --rules PATH --agent NAME), merging with what is
there: other servers and settings are kept, and a file that does not parse is
left alone.

  claude  --project DIR: DIR/.mcp.json          else ~/.claude.json
  codex   --project DIR: DIR/.codex/config.toml else ~/.codex/config.toml
  kimi    --project DIR: DIR/.kimi/mcp.json     else ~/.kimi/mcp.json

--config overrides the file. --dry-run prints the diff and writes nothing.

A project's config (--project) is meant to be committed for teammates: it
launches bridle from PATH with --rules relative to the project (bridle mcp
finds it from the directory the agent starts in, or any parent). A user's
config gets this binary's and the rules' absolute paths. Install refuses
--rules that hold no bridle.yaml or have none committed at --ref.

claude --project DIR also wires DIR/.claude/settings.json as render --all
does: the guardrails' enforce entries as permissions.deny/ask and, when they
need it, a PreToolUse hook running bridle (from PATH) hook claude --rules
"$CLAUDE_PROJECT_DIR"/RULES, RULES being --rules-path or --rules relative to
DIR, so the file can be committed. The user's own entries are kept; what
Bridle owns is listed in .claude/bridle.json. codex needs no wiring: Codex
loads .codex/rules/bridle.rules (written by render --all) once the project is
trusted in Codex.

With --server URL, the client reaches project P (--project P) on Bridle's
gateway instead, and the config changed is the project-scoped one in --dir
(default: the current directory) or --config. Claude Code and Codex connect
to URL/p/P/mcp over HTTP themselves, with the token from the BRIDLE_TOKEN
environment variable (claude: a header "Bearer ${BRIDLE_TOKEN}", codex:
bearer_token_env_var), so the file holds no token and can be committed.
kimi gets the stdio bridge, bridle mcp --server URL --project P, which reads
the token from the file BRIDLE_TOKEN_FILE names. Either way, set the
variable in the environment the agent starts in; bridle agents add --server
URL --project P --agent NAME prints a token, once. The token is the agent's
identity, so --rules, --ref, --gitea and --agent do not go with --server.`,
		Example: `  bridle install claude --project . --rules rules
  bridle install codex --rules ~/rules --ref main --dry-run
  bridle install claude --server https://bridle.example.com --project runic-gateway`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Client = args[0]
			if o.Server != "" {
				return installServer(cmd, io, o, dir)
			}
			if dir != "" {
				return usageErr("--dir goes with --server (without it, --project is the project's directory)")
			}
			if (o.GiteaURL == "") != (o.GiteaRepo == "") {
				return usageErr("--gitea and --repo go together")
			}
			home, err := os.UserHomeDir()
			if err != nil && o.ProjectDir == "" && o.ConfigPath == "" {
				return fmt.Errorf("install: no home directory: %w", err)
			}
			o.Home = home
			if o.GiteaURL == "" {
				if err := checkInstallRules(o); err != nil {
					return err
				}
			}
			if o.Command == "" {
				o.Command = "bridle"
				if exe, err := os.Executable(); err == nil && !o.Shared() && !strings.Contains(exe, string(filepath.Separator)+"go-build") {
					o.Command = exe // a user's own config: this binary
				}
			}
			if o.Command == "bridle" {
				if _, err := exec.LookPath("bridle"); err != nil {
					fmt.Fprintf(io.errOut, "warning: bridle is not on PATH, so %s cannot start it: go install ./cmd/bridle (from Bridle's checkout), or add its directory to PATH\n", o.Client)
				}
			}
			if o.Shared() && o.GiteaURL == "" {
				if abs, err := filepath.Abs(o.Rules); err == nil && filepath.IsAbs(install.RulesArg(o)) {
					fmt.Fprintf(io.errOut, "warning: the rules (%s) are outside the project, so the project's config holds this machine's path: teammates need the rules at the same path (or serve them from Gitea with --gitea)\n", abs)
				}
			}
			if o.Client == "claude" && o.ProjectDir != "" && o.GiteaURL == "" {
				o.Doc = loadForInstall(io, o)
			}
			res, err := install.Install(o)
			if errors.Is(err, install.ErrUnknownClient) {
				return usageErr("%w", err)
			}
			if err != nil {
				return err
			}
			for _, st := range res.Settings {
				switch {
				case !st.Changed:
					fmt.Fprintf(io.errOut, "%s already has Bridle's entries; nothing to do\n", st.Path)
				case o.DryRun:
					fmt.Fprint(io.out, st.Diff)
					fmt.Fprintf(io.errOut, "dry run: %s not changed\n", st.Path)
				default:
					fmt.Fprintf(io.errOut, "wired %s\n", st.Path)
				}
			}
			if o.Client == "codex" {
				fmt.Fprintf(io.errOut, "note: Codex loads the project's %s (bridle render --all writes it) only when the project is trusted in Codex\n", enforce.CodexPath)
			}
			switch {
			case !res.Changed:
				fmt.Fprintf(io.errOut, "%s already has bridle configured; nothing to do\n", res.Path)
			case o.DryRun:
				fmt.Fprint(io.out, res.Diff)
				if !strings.HasSuffix(res.Diff, "\n") {
					fmt.Fprintln(io.out)
				}
				fmt.Fprintf(io.errOut, "dry run: %s not changed\n", res.Path)
			default:
				fmt.Fprintf(io.errOut, "added bridle (agent %s) to %s; restart %s to load it\n", agentOr(o), res.Path, o.Client)
				if o.Shared() {
					fmt.Fprintf(io.errOut, "%s holds no path of this machine: commit it for your teammates\n", res.Path)
					if o.Client == "claude" {
						fmt.Fprintln(io.errOut, "Claude Code asks once to approve a project's MCP server: accept bridle when it asks (claude mcp list shows it)")
					}
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&o.ProjectDir, "project", "", "use the project-scoped config in this `dir` (with --server: the gateway's project)")
	cmd.Flags().StringVar(&o.Server, "server", "", "reach the project on this Bridle gateway `URL` instead of serving local rules")
	cmd.Flags().StringVar(&dir, "dir", "", "with --server, use the project-scoped config in this `dir` (default: the current directory)")
	cmd.Flags().StringVar(&o.ConfigPath, "config", "", "change this config `file` instead")
	rulesFlag(cmd, &o.Rules, "the rules `path` the server serves (a directory holding bridle.yaml, or the file)")
	refFlag(cmd, &o.Ref, "main", "the committed git `ref` the server serves the rules from (never the work tree)")
	cmd.Flags().StringVar(&o.Agent, "agent", "", "agent to bind (default: the client name)")
	giteaFlags(cmd, &o.GiteaURL, &o.GiteaRepo, nil, "instead of --rules, serve the rules repository (the agent's environment gives the token)")
	cmd.Flags().StringVar(&o.Command, "command", "", "bridle executable to launch (default: bridle from PATH in a project's config, this binary in a user's)")
	cmd.Flags().StringVar(&o.RulesPath, "rules-path", "", "with claude --project, the rules `path` the hook reads, relative to the project (default: --rules relative to --project)")
	cmd.Flags().BoolVar(&o.DryRun, "dry-run", false, "print the change, write nothing")
	return cmd
}

// installServer is install --server: the client set up to reach the
// gateway's project, natively over HTTP or through the stdio bridge.
func installServer(cmd *cobra.Command, io *streams, o install.Options, dir string) error {
	var local []string
	for _, name := range []string{"rules", "ref", "gitea", "repo", "rules-path", "agent"} {
		if cmd.Flags().Changed(name) {
			local = append(local, "--"+name)
		}
	}
	switch {
	case len(local) > 0:
		return usageErr("%s cannot go with --server: the gateway serves the project's rules, and the token is the agent's identity there (bridle agents add --agent NAME binds it)", strings.Join(local, ", "))
	case o.ProjectDir == "":
		return usageErr("--server needs --project: the gateway's project the agent works on")
	case o.ProjectDir == "." || o.ProjectDir == ".." || strings.ContainsAny(o.ProjectDir, `/\`):
		return usageErr("with --server, --project names the gateway's project (an id such as runic-gateway), not %q: the directory whose config is written is --dir", o.ProjectDir)
	}
	o.GatewayProject, o.ProjectDir = o.ProjectDir, dir
	if o.ProjectDir == "" && o.ConfigPath == "" {
		o.ProjectDir = "."
	}
	if o.Command == "" {
		o.Command = "bridle"
		if exe, err := os.Executable(); err == nil && !o.Shared() && !strings.Contains(exe, string(filepath.Separator)+"go-build") {
			o.Command = exe
		}
	}
	res, err := install.Install(o)
	switch {
	case errors.Is(err, install.ErrUnknownClient), errors.Is(err, bridge.ErrOptions):
		return usageErr("%w", err)
	case err != nil:
		return err
	}
	if !res.HTTP && o.Command == "bridle" {
		if _, err := exec.LookPath("bridle"); err != nil {
			fmt.Fprintf(io.errOut, "warning: bridle is not on PATH, so %s cannot start the bridge: go install ./cmd/bridle (from Bridle's checkout), or add its directory to PATH\n", o.Client)
		}
	}
	switch {
	case !res.Changed:
		fmt.Fprintf(io.errOut, "%s already has bridle configured; nothing to do\n", res.Path)
	case o.DryRun:
		fmt.Fprint(io.out, res.Diff)
		if !strings.HasSuffix(res.Diff, "\n") {
			fmt.Fprintln(io.out)
		}
		fmt.Fprintf(io.errOut, "dry run: %s not changed\n", res.Path)
	default:
		how := "the stdio bridge (bridle mcp --server)"
		if res.HTTP {
			how = "HTTP"
		}
		fmt.Fprintf(io.errOut, "added bridle (project %s on %s, over %s) to %s; restart %s to load it\n", o.GatewayProject, o.Server, how, res.Path, o.Client)
	}
	if res.HTTP {
		fmt.Fprintf(io.errOut, "set %s to the agent's token in the environment %s starts in; %s holds no token, so it can be committed (each teammate sets their own)\n", install.TokenEnv, o.Client, res.Path)
	} else {
		fmt.Fprintf(io.errOut, "set %s to a file holding the agent's token (readable by you only) in the environment %s starts in; the config holds neither\n", install.TokenFileEnv, o.Client)
	}
	fmt.Fprintf(io.errOut, "get a token with: bridle agents add --server %s --project %s --agent %s (it is printed once)\n", o.Server, o.GatewayProject, o.Client)
	if o.Client == "claude" && o.Shared() && res.Changed && !o.DryRun {
		fmt.Fprintln(io.errOut, "Claude Code asks once to approve a project's MCP server: accept bridle when it asks (claude mcp list shows it)")
	}
	return nil
}

// checkInstallRules refuses rules the sidecar could not serve: no
// bridle.yaml at --rules, or none committed at --ref.
func checkInstallRules(o install.Options) error {
	ref := o.Ref
	if ref == "" {
		ref = "main"
	}
	if _, diags, err := compiler.Read(compiler.Options{Rules: o.Rules}); err != nil || diags.HasErrors() {
		if err == nil {
			err = errors.New(diags[0].Message)
		}
		return usageErr("--rules %s: %w\n    fix: point --rules at the directory holding bridle.yaml, or create the rules with bridle init %s", o.Rules, err, o.Rules)
	}
	_, diags, err := compiler.Read(compiler.Options{Rules: o.Rules, Ref: ref})
	switch {
	case errors.Is(err, compiler.ErrNotRepo):
		return usageErr("--rules %s is not in a git repository, and the sidecar serves committed rules only\n    fix: commit them on %s: git -C %s init -b %s && git -C %s add . && git -C %s commit -m 'Bridle rules'", o.Rules, ref, o.Rules, ref, o.Rules, o.Rules)
	case err != nil:
		return usageErr("--rules %s: %w\n    fix: commit the rules on %s (bridle init commits them), or pass --ref", o.Rules, err, ref)
	case diags.HasErrors():
		return usageErr("--rules %s at %s: %s\n    fix: commit the rules on %s (git add, git commit), or pass --ref", o.Rules, ref, diags[0].Message, ref)
	}
	return nil
}

// loadForInstall compiles the rules whose enforce entries install wires
// into the project's settings; rules that cannot be loaded wire nothing
// (the MCP entry does not need them), with a warning.
func loadForInstall(io *streams, o install.Options) *schema.Document {
	snap, diags, err := compiler.Compile(compiler.Options{Rules: o.Rules, Ref: o.Ref, BridleVersion: version()})
	if err == nil && snap == nil {
		err = fmt.Errorf("the rules are invalid (%s; run bridle validate)", count(len(diags), "problem", "problems"))
	}
	if err != nil {
		fmt.Fprintf(io.errOut, "warning: not wiring .claude/settings.json: %v\n", err)
		return nil
	}
	return &snap.Document
}

func agentOr(o install.Options) string {
	if o.Agent != "" {
		return o.Agent
	}
	return o.Client
}

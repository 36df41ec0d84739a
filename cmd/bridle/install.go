package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/enforce"
	"github.com/bridle-dev/bridle/install"
	"github.com/bridle-dev/bridle/schema"
)

func newInstallCmd(io *streams) *cobra.Command {
	var o install.Options
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

claude --project DIR also wires DIR/.claude/settings.json as render --all
does: the guardrails' enforce entries as permissions.deny/ask and, when they
need it, a PreToolUse hook running bridle (from PATH) hook claude --rules
"$CLAUDE_PROJECT_DIR"/RULES, RULES being --rules-path or --rules relative to
DIR, so the file can be committed. The user's own entries are kept; what
Bridle owns is listed in .claude/bridle.json. codex needs no wiring: Codex
loads .codex/rules/bridle.rules (written by render --all) once the project is
trusted in Codex.`,
		Example: `  bridle install claude --project . --rules rules
  bridle install codex --rules ~/rules --ref main --dry-run`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			o.Client = args[0]
			if (o.GiteaURL == "") != (o.GiteaRepo == "") {
				return usageErr("--gitea and --repo go together")
			}
			home, err := os.UserHomeDir()
			if err != nil && o.ProjectDir == "" && o.ConfigPath == "" {
				return fmt.Errorf("install: no home directory: %w", err)
			}
			o.Home = home
			if o.Command == "" {
				if exe, err := os.Executable(); err == nil && !strings.Contains(exe, string(filepath.Separator)+"go-build") {
					o.Command = exe
				} else {
					o.Command = "bridle"
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
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&o.ProjectDir, "project", "", "use the project-scoped config in this `dir`")
	cmd.Flags().StringVar(&o.ConfigPath, "config", "", "change this config `file` instead")
	cmd.Flags().StringVar(&o.Rules, "rules", ".", "rules `path` the server reads")
	cmd.Flags().StringVar(&o.Ref, "ref", "main", "committed git `ref` the server serves the rules from (never the work tree)")
	cmd.Flags().StringVar(&o.Agent, "agent", "", "agent to bind (default: the client name)")
	cmd.Flags().StringVar(&o.GiteaURL, "gitea", "", "serve the rules of a Gitea `URL` instead of --rules (the token comes from the client's GITEA_TOKEN)")
	cmd.Flags().StringVar(&o.GiteaRepo, "repo", "", "the Gitea rules repository `OWNER/NAME`")
	cmd.Flags().StringVar(&o.Command, "command", "", "bridle executable to launch (default: this binary)")
	cmd.Flags().StringVar(&o.RulesPath, "rules-path", "", "with claude --project, the rules `path` the hook reads, relative to the project (default: --rules relative to --project)")
	cmd.Flags().BoolVar(&o.DryRun, "dry-run", false, "print the change, write nothing")
	return cmd
}

// loadForInstall compiles the rules whose enforce entries install wires
// into the project's settings; rules that cannot be loaded wire nothing
// (the MCP entry does not need them), with a warning.
func loadForInstall(io *streams, o install.Options) *schema.Document {
	snap, diags, err := compiler.Compile(compiler.Options{Rules: o.Rules, Ref: o.Ref, BridleVersion: version()})
	if err == nil && snap == nil {
		err = fmt.Errorf("the rules are invalid (%d problems; run bridle validate)", len(diags))
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

package main

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/bridge"
	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/install"
	"github.com/bridle-dev/bridle/schema"
)

func newInstallCmd(io *streams) *cobra.Command {
	var o install.Options
	var dir string
	clients := install.Clients()
	cmd := &cobra.Command{
		Use:       "install " + strings.Join(clients, "|"),
		Short:     "Add bridle mcp to a coding agent's MCP configuration",
		ValidArgs: clients,
		Long: `Install adds Bridle's MCP server to a client's MCP config, with the agent
bound at launch (bridle mcp --rules PATH --agent NAME), merging with what is
there: other servers, settings and comments are kept, and a file that does not
parse is left alone (the error names its line and column). The files, from the
agents registry:

` + installFiles() + `
--config overrides the file. --dry-run prints the diff and writes nothing.

A project's config (--project) is meant to be committed for teammates: it
launches bridle from PATH with --rules relative to the project (bridle mcp
finds it from the directory the agent starts in, or any parent). A user's
config gets this binary's and the rules' absolute paths. Install refuses
--rules that hold no bridle.yaml or have none committed at --ref. A client
that does not pass its own environment on to the servers it starts (` + strings.Join(install.EnvListing(), ", ") + `)
gets the variables Bridle needs (GITEA_TOKEN, GITEA_TOKEN_FILE with --gitea)
listed in the entry.

With --project DIR, install also wires the harness's native enforcement as
render --all does (Claude Code's .claude/settings.json: the guardrails'
enforce entries as permissions.deny/ask and a PreToolUse hook running bridle
(from PATH) hook claude --rules "$CLAUDE_PROJECT_DIR"/RULES, RULES being
--rules-path or --rules relative to DIR; Codex's .codex/rules/bridle.rules),
so the files can be committed. The user's own entries are kept; what Bridle
owns is recorded beside them.

Install then says what the harness needs before it uses the project's
servers (trusting the folder, approving the server).

With --server URL, the client reaches project P (--project P) on Bridle's
gateway instead, and the config changed is the project-scoped one in --dir
(default: the current directory; a client that reads no project's file gets
its user file) or --config. A client that speaks streamable HTTP connects to
URL/p/P/mcp itself, with the token from the agent's own environment variable
(BRIDLE_TOKEN_CLAUDE for claude, BRIDLE_TOKEN_GEMINI for gemini, …): the
file holds no token and can be committed, and exporting one agent's token
makes no other harness that agent. Any other client gets the stdio bridge,
bridle mcp --server URL --project P --token-file-env BRIDLE_TOKEN_FILE_NAME,
which reads the token from the file that variable names. Set the variable
only in the environment that agent starts in: some harnesses read another's
file (GitHub Copilot CLI reads Claude Code's .mcp.json, which is why its own
entry is named bridle-copilot), and start its servers with their own
environment. bridle agents add --server URL --project P --agent NAME mints a
token. The token is the agent's identity, so --rules, --ref and --gitea do
not go with --server; --agent NAME there only names the variable
(BRIDLE_TOKEN_NAME).

Bridle's entry is one per file: installing --server where the entry ran the
local sidecar (or the reverse) replaces it, and says so and how to go back.`,
		Example: `  bridle install claude --project . --rules rules
  bridle install codex --rules ~/rules --ref main --dry-run
  bridle install gemini --server https://bridle.example.com --project runic-gateway`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Client = args[0]
			if !slices.Contains(clients, o.Client) {
				if why := notInstallable(o.Client); why != "" {
					return usageErr("install %q: %w: %s", o.Client, install.ErrUnknownClient, why)
				}
				return usageErr("install %q: %w (use one of %s)", o.Client, install.ErrUnknownClient, strings.Join(clients, ", "))
			}
			home, herr := os.UserHomeDir()
			o.Home = home
			if o.Server != "" {
				return installServer(cmd, io, o, dir, herr)
			}
			if dir != "" {
				return usageErr("--dir goes with --server (without it, --project is the project's directory)")
			}
			if (o.GiteaURL == "") != (o.GiteaRepo == "") {
				return usageErr("--gitea and --repo go together")
			}
			if herr != nil && o.ProjectDir == "" && o.ConfigPath == "" {
				return fmt.Errorf("install: no home directory: %w", herr)
			}
			if _, err := install.Path(o); err != nil {
				return installErr(err)
			}
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
			if a, _ := agents.Lookup(o.Client); o.ProjectDir != "" && o.GiteaURL == "" && a.Harness.Native != "" {
				o.Doc = loadForInstall(io, o)
			}
			res, err := install.Install(o)
			if err != nil {
				return installErr(err)
			}
			// The MCP config first: a native file may be the same file,
			// changed again over it.
			switch {
			case !res.Changed:
				fmt.Fprintf(io.errOut, "%s already has bridle configured; nothing to do\n", res.Path)
			case o.DryRun:
				printDiff(io, res)
			default:
				fmt.Fprintf(io.errOut, "added %s (agent %s) to %s; restart %s to load it\n", res.Entry, agentOr(o), res.Path, o.Client)
				if res.Replaced != "" {
					fmt.Fprintf(io.errOut, "it replaced %s's bridle entry, which reached %s (one per file; the gateway's comes back with bridle install %s --server URL --project P)\n", res.Path, res.Replaced, o.Client)
				}
				if o.Shared() {
					fmt.Fprintf(io.errOut, "%s holds no path of this machine: commit it for your teammates\n", res.Path)
				}
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
			if len(res.Env) > 0 {
				fmt.Fprintf(io.errOut, "the entry passes %s on from the environment %s starts in (the client would not pass them on by itself)\n", strings.Join(res.Env, " and "), o.Client)
			}
			afterInstall(io, o, res)
			return nil
		},
	}
	cmd.Flags().StringVar(&o.ProjectDir, "project", "", "use the project-scoped config in this `dir` (with --server: the gateway's project)")
	cmd.Flags().StringVar(&o.Server, "server", "", "reach the project on this Bridle gateway `URL` instead of serving local rules")
	cmd.Flags().StringVar(&dir, "dir", "", "with --server, use the project-scoped config in this `dir` (default: the current directory)")
	cmd.Flags().StringVar(&o.ConfigPath, "config", "", "change this config `file` instead")
	rulesFlag(cmd, &o.Rules, "the rules `path` the server serves (a directory holding bridle.yaml, or the file)")
	refFlag(cmd, &o.Ref, "", "the committed git `ref` the server serves the rules from, never the work tree (default: the rules' branch, recorded by bridle init)")
	cmd.Flags().StringVar(&o.Agent, "agent", "", "agent to bind (default: the client name); with --server, the agent whose token variable the entry reads")
	giteaFlags(cmd, &o.GiteaURL, &o.GiteaRepo, nil, "instead of --rules, serve the rules repository (the agent's environment gives the token)")
	cmd.Flags().StringVar(&o.Command, "command", "", "bridle executable to launch (default: bridle from PATH in a project's config, this binary in a user's)")
	cmd.Flags().StringVar(&o.RulesPath, "rules-path", "", "with --project, the rules `path` the native hook reads, relative to the project (default: --rules relative to --project)")
	cmd.Flags().BoolVar(&o.DryRun, "dry-run", false, "print the change, write nothing")
	return cmd
}

// installFiles lists, from the agents registry, each installable agent's
// project and user files, for install's help.
func installFiles() string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, name := range install.Clients() {
		a, _ := agents.Lookup(name)
		c := a.Harness.Config
		project := "(no project file)"
		if c.Project != "" {
			project = "--project DIR: DIR/" + c.Project
			for _, also := range c.ProjectAlso {
				project += " (or DIR/" + also + ")"
			}
		}
		user := "(no user file)"
		switch {
		case c.User != "" && c.Project != "":
			user = "else ~/" + c.User
		case c.User != "":
			user = "~/" + c.User + " only"
		}
		fmt.Fprintf(w, "  %s\t%s\t%s\n", name, project, user)
	}
	w.Flush()
	return b.String()
}

// installErr is err as the exit code map wants it: a usage error when the
// client or its scope is not one install knows.
func installErr(err error) error {
	if errors.Is(err, install.ErrUnknownClient) || errors.Is(err, install.ErrNoScope) || errors.Is(err, bridge.ErrOptions) {
		return usageErr("%w", err)
	}
	return err
}

func printDiff(io *streams, res install.Result) {
	fmt.Fprint(io.out, res.Diff)
	if !strings.HasSuffix(res.Diff, "\n") {
		fmt.Fprintln(io.out)
	}
	fmt.Fprintf(io.errOut, "dry run: %s not changed\n", res.Path)
}

// afterInstall says what the person does next: the harness's trust step
// (agents registry); which other harnesses read the file written, and
// would start Bridle's entry there as their own; and which read it instead
// of their own file, now that it is there.
func afterInstall(io *streams, o install.Options, res install.Result) {
	a, _ := agents.Lookup(o.Client)
	if t := a.Harness.Trust; t != "" {
		fmt.Fprintf(io.errOut, "next: %s\n", t)
	}
	if !o.Shared() {
		return
	}
	r, err := filepath.Rel(o.ProjectDir, res.Path)
	if err != nil {
		return
	}
	rel := filepath.ToSlash(r)
	for _, other := range install.ReadBy(o.Client, rel) {
		b, _ := agents.Lookup(other)
		how := fmt.Sprintf("Bridle serves it the least privilege there (it is not %s)", a.DisplayName)
		if o.Server != "" {
			how = fmt.Sprintf("set %s only where %s starts", res.TokenEnv, a.DisplayName)
		}
		own := install.EntryName(other)
		if theirs, err := install.Path(install.Options{Client: other, ProjectDir: o.ProjectDir}); err == nil && theirs != res.Path {
			own += " in " + filepath.ToSlash(strings.TrimPrefix(theirs, o.ProjectDir+string(filepath.Separator)))
		}
		fmt.Fprintf(io.errOut, "note: %s also reads %s and may start %s, bound to agent %s, as its own: do not enable it there; %s. bridle install %s gives it an entry of its own (%s)\n",
			b.DisplayName, rel, res.Entry, agentOr(o), how, other, own)
	}
	if res.Created {
		for _, other := range install.ReadInstead(o.Client, rel) {
			b, _ := agents.Lookup(other)
			again := fmt.Sprintf("bridle install %s --project %s", other, o.ProjectDir)
			if o.Server != "" {
				again = fmt.Sprintf("bridle install %s --server %s --project %s --dir %s", other, o.Server, o.GatewayProject, o.ProjectDir)
			}
			fmt.Fprintf(io.errOut, "note: %s reads %s, now that it is there, instead of its own %s: %s adds its entry (%s) here\n",
				b.DisplayName, rel, b.Harness.Config.Project, again, install.EntryName(other))
		}
	}
}

// installServer is install --server: the client set up to reach the
// gateway's project, natively over HTTP or through the stdio bridge.
func installServer(cmd *cobra.Command, io *streams, o install.Options, dir string, herr error) error {
	var local []string
	for _, name := range []string{"rules", "ref", "gitea", "repo", "rules-path"} {
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
		if a, _ := agents.Lookup(o.Client); a.Harness.Config.Project == "" {
			o.ProjectDir = "" // a client that reads only its user's file
			if herr != nil {
				return fmt.Errorf("install: no home directory: %w", herr)
			}
		}
	}
	if o.Command == "" {
		o.Command = "bridle"
		if exe, err := os.Executable(); err == nil && !o.Shared() && !strings.Contains(exe, string(filepath.Separator)+"go-build") {
			o.Command = exe
		}
	}
	res, err := install.Install(o)
	if err != nil {
		return installErr(err)
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
		printDiff(io, res)
	default:
		how := "the stdio bridge (bridle mcp --server)"
		if res.HTTP {
			how = "HTTP"
		}
		fmt.Fprintf(io.errOut, "added %s (project %s on %s, over %s) to %s; restart %s to load it\n", res.Entry, o.GatewayProject, o.Server, how, res.Path, o.Client)
		if res.Replaced != "" {
			back := "bridle install " + o.Client + " --project " + shellWord(cmp.Or(dir, ".")) + " --rules RULES"
			fmt.Fprintf(io.errOut, "it replaced %s's bridle entry, which ran %s: agents started from this file now reach the gateway (one entry per file; to go back: %s)\n", res.Path, res.Replaced, back)
		}
	}
	agent := agentOr(o)
	if res.HTTP {
		fmt.Fprintf(io.errOut, "set %s to agent %s's token in the environment %s starts in, and nowhere else; %s holds no token, so it can be committed (each teammate sets their own)\n", res.TokenEnv, agent, o.Client, res.Path)
	} else {
		fmt.Fprintf(io.errOut, "set %s to a file holding agent %s's token (readable by you only) in the environment %s starts in; the config holds neither\n", res.TokenEnv, agent, o.Client)
	}
	fmt.Fprintf(io.errOut, "get a token with: bridle agents add --server %s --project %s --agent %s (it is printed once)\n", o.Server, o.GatewayProject, agent)
	afterInstall(io, o, res)
	return nil
}

// checkInstallRules refuses rules the sidecar could not serve: no
// bridle.yaml at --rules, or none committed at --ref.
func checkInstallRules(o install.Options) error {
	ref := o.Ref
	if ref == "" {
		ref = compiler.Branch(o.Rules)
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
		fmt.Fprintf(io.errOut, "warning: not wiring %s's native files: %v\n", o.Client, err)
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

// notInstallable says why a known agent has no MCP configuration bridle
// install writes, and what to do instead ("" for a name Bridle does not
// know).
func notInstallable(name string) string {
	a, ok := agents.Lookup(name)
	switch {
	case !ok:
		return ""
	case a.Harness == nil:
		return fmt.Sprintf("%s is a model, not a harness: install the harness that runs it (bridle install opencode, …) and name it in the profile (agent_profiles.%s.harness)", a.DisplayName, name)
	}
	where := "docs/agents/" + name + ".md"
	if a.Harness.NoMCP {
		return fmt.Sprintf("%s has no MCP client, so there is nothing to install; bridle render --all writes its %s and points it there (%s)", a.DisplayName, a.Harness.Instructions, where)
	}
	return fmt.Sprintf("%s keeps its MCP servers where bridle install does not write; %s says how to add Bridle's (bridle render writes its %s)", a.DisplayName, where, a.Harness.Instructions)
}

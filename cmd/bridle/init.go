package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/spf13/cobra"

	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/internal/identity"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/scaffold"
)

type initOptions struct {
	agents                  []string
	gitea, repo             string
	approvers, writers      []string
	private                 bool
	bridleURL, bridleModule string
	adopt                   bool // --import: the rules from the project's agent files (bridle import)
	server                  string
	branch                  string
}

func newInitCmd(io *streams) *cobra.Command {
	var o initOptions
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Create the rules: a folder in a project, or a repository",
		Long: `Init creates the rules and commits them on the rules' branch, so that
bridle mcp (which serves that branch) answers with them at once: a commented
bridle.yaml that
validates as written, its schema (bridle.schema.json, for editors), the
agents' files, a Gitea Actions workflow (validate and check the renders on
pull requests, compile and publish on merge), a README and a .gitignore.

DIR (default: the current directory) decides the layout:

  not in a git repository   a rules repository of its own: git init (branch
                            --branch, else git's init.defaultBranch, else
                            main); renders in DIR/rendered/
  a folder of a repository  the rules of that project: bridle.yaml in the
  (e.g. rules/ in a project) folder; the agents' files (CLAUDE.md,
                            AGENTS.md, agents/<agent>/AGENTS.md) at the
                            project root, where the agents read them; the
                            workflow in the root's .gitea/workflows/
  the root of a repository  a rules repository there

In an existing repository the commit holds only the files init wrote; the
rest of your work tree and index are left alone. Existing files are kept,
never overwritten (a bridle.yaml already there is refused).

The rules' branch is the repository's own: --branch, else main when the
repository has it, else origin's default branch, else the branch HEAD is on
(master after a plain git init). Init records it in the repository's git
configuration (git config bridle.branch), where the sidecar, the hook,
install, proposals, approve and serve find it. When HEAD is on another
branch, init writes the files and says how to commit them.

The project's stack and commands are read from its files (go.mod,
package.json and its scripts with the package manager its lockfile names,
pyproject.toml, Cargo.toml, the Makefile's targets, the existing CI's run:
lines); what cannot be read is written as a TODO(bridle) placeholder, which
bridle validate warns about until it is replaced.

The committed rules are the approved baseline: change them afterwards with
bridle propose and bridle approve (a change committed any other way is
served NOT APPROVED). The workflow installs Bridle from your Bridle gateway
(--server URL: bridle serve serves its own linux-amd64 binary and its
checksum, so nothing needs publishing), from --bridle-url or --bridle-module,
or from the repository variables BRIDLE_SERVER / BRIDLE_URL / BRIDLE_MODULE.
The CI runs what it downloads, so --server and --bridle-url must be https:
plain http is refused unless the host is this machine (localhost,
127.0.0.0/8, ::1), since anyone on the path could replace the binary (and
its checksum, which comes from the same server).

With --gitea URL --repo OWNER/NAME (token from GITEA_TOKEN or
GITEA_TOKEN_FILE) init creates the repository on Gitea, pushes the scaffold,
and protects its branch (--branch, default main) so that the only way in is a
merged pull request: direct
pushes are refused. --writers may open proposals (e.g. the agents' bot
account); --approvers, when given, are the only ones who may merge.`,
		Example: `  cd my-project && bridle init rules      # rules/ in this project
  bridle init rules --agents claude,codex,cursor,gemini
  bridle init ~/acme-rules                 # a rules repository of its own
  GITEA_TOKEN=… bridle init --gitea https://gitea.example.com --repo acme/rules \
    --writers bridle-bot --approvers mira,jonas`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := scaffold.CheckAgents(o.agents); err != nil {
				return usageErr("--agents: %w", err)
			}
			if o.gitea != "" || o.repo != "" {
				if len(args) > 0 {
					return usageErr("init with --gitea takes no DIR")
				}
				return runInitGitea(io, o)
			}
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			if o.adopt {
				return runImport(io, dir, importOptions{init: o})
			}
			return runInit(io, dir, o)
		},
	}
	giteaFlags(cmd, &o.gitea, &o.repo, nil, "create the rules repository")
	cmd.Flags().StringSliceVar(&o.agents, "agents", nil, "the `agents` the project uses, comma-separated: only these get profiles and files (default: claude, codex and each harness whose own file the project already has, e.g. GEMINI.md or .cursor/rules; known: "+strings.Join(agents.Names(), ", ")+")")
	cmd.Flags().StringSliceVar(&o.writers, "writers", nil, "Gitea users who may open proposals")
	cmd.Flags().StringSliceVar(&o.approvers, "approvers", nil, "Gitea users who alone may merge into the rules' branch")
	cmd.Flags().StringVar(&o.branch, "branch", "", "the rules' `branch`: served to the agents, where proposals merge (default: see above)")
	cmd.Flags().BoolVar(&o.adopt, "import", false, "make the project's existing agent files the rules, as bridle import does")
	cmd.Flags().BoolVar(&o.private, "private", false, "make the Gitea repository private")
	cmd.Flags().StringVar(&o.server, "server", "", "the CI workflow downloads bridle from this Bridle gateway `URL`, https or http to this machine (bridle serve serves its own binary at /download/bridle-linux-amd64, checksummed; default: the repository variable BRIDLE_SERVER)")
	cmd.Flags().StringVar(&o.bridleURL, "bridle-url", "", "the CI workflow downloads the bridle binary from this `URL`, not plain http to another machine (default: the repository variable BRIDLE_URL)")
	cmd.Flags().StringVar(&o.bridleModule, "bridle-module", "", "or installs it with go install `PATH@VERSION` (default: the repository variable BRIDLE_MODULE)")
	return cmd
}

func runInit(io *streams, dir string, o initOptions) error {
	author, err := commitIdentity(dir)
	if err != nil {
		return err
	}
	res, err := scaffold.Init(dir, scaffold.Options{Version: version(), Author: author, BridleServer: o.server, BridleURL: o.bridleURL, BridleModule: o.bridleModule, Agents: o.agents, Branch: o.branch})
	switch {
	case errors.Is(err, scaffold.ErrExists):
		return usageErr("%w; change it with bridle propose, or choose another directory", err)
	case errors.Is(err, scaffold.ErrBadSetting):
		return usageErr("%w", err)
	case err != nil:
		return err
	}
	for _, f := range res.Files {
		fmt.Fprintf(io.errOut, "created %s\n", display(f))
	}
	l := res.Layout
	for _, k := range res.Kept {
		fmt.Fprintf(io.errOut, "kept    %s (it exists; not committed)\n", k)
	}
	rules := dir
	out := filepath.Join(dir, scaffold.RenderDir)
	if l.Rules != "." {
		out = display(filepath.Join(res.Root, filepath.FromSlash(l.Out())))
		fmt.Fprintf(io.errOut, "layout: the rules of the project in %s, in %s/; the agents' files at the project root\n", res.Root, l.Rules)
	} else if res.Created {
		fmt.Fprintf(io.errOut, "layout: a rules repository of its own (git init, branch %s); renders in %s\n", res.Branch, out)
	} else {
		fmt.Fprintf(io.errOut, "layout: a rules repository at the root of %s; renders in %s\n", res.Root, out)
	}
	for _, k := range res.Kept {
		if strings.HasSuffix(k, ".md") && path.Base(k) != "README.md" {
			fmt.Fprintf(io.errOut, "note: %s is not Bridle's, so render --check calls it edited by hand: move what it says into bridle.yaml, then run bridle render --rules %s --all --out %s\n", k, rules, out)
		}
	}
	fmt.Fprintf(io.errOut, "the rules' branch: %s (recorded as git config %s; bridle init --branch chooses another)\n", res.Branch, compiler.BranchKey)
	if res.Commit != "" {
		fmt.Fprintf(io.errOut, "committed %s on %s as %s (only these files: the rest of the work tree and the index are as they were)\n",
			count(len(res.Files), "file", "files"), res.Branch, res.Commit[:12])
	} else {
		fmt.Fprintf(io.errOut, "not committed: %s. The agents are served the rules committed on %s: commit these files there (git switch %s, git add them, git commit)\n", res.NotCommitted, res.Branch, shellWord(res.Branch))
	}
	project := "."
	if l.Rules == "." {
		project = "<your project>"
	}
	fmt.Fprintf(io.errOut, "next:\n")
	fmt.Fprintf(io.errOut, "  bridle install claude --project %s --rules %s   # Claude Code starts bridle mcp with these rules (also: codex, …)\n", project, shellWord(rules))
	fmt.Fprintf(io.errOut, "  bridle propose guardrail --rules %s --id … --statement … --why …   # change the rules; bridle approve N merges\n", shellWord(rules))
	fmt.Fprintf(io.errOut, "  bridle render --rules %s --all --out %s --check   # what CI runs: the agents' files are current\n", shellWord(rules), shellWord(out))
	if l.BridleServer == "" && l.BridleURL == "" && l.BridleModule == "" {
		fmt.Fprintf(io.errOut, "CI: set the repository variable BRIDLE_SERVER (your Bridle gateway's URL: it serves its own binary) in Gitea, or BRIDLE_URL (a bridle binary) or BRIDLE_MODULE (go install path@version); or init with --server URL; see %s\n", scaffold.WorkflowPath)
	}
	return nil
}

// display is p relative to the working directory when it is below it.
func display(p string) string {
	wd, err := os.Getwd()
	if err != nil || !filepath.IsAbs(p) {
		return p
	}
	if rel, err := filepath.Rel(wd, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return rel
	}
	return p
}

// commitIdentity is who signs the commit init makes: git's committer, as
// for every commit Bridle makes on main (internal/identity), found from dir.
func commitIdentity(dir string) (*object.Signature, error) {
	p, err := identity.At(identity.Committer, dir)
	if err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	return &object.Signature{Name: p.Name, Email: p.Email, When: time.Now()}, nil
}

func runInitGitea(io *streams, o initOptions) error {
	cfg, err := io.f.Proposals(proposals.Config{GiteaURL: o.gitea, GiteaRepo: o.repo})
	if err != nil {
		return err
	}
	if cfg.GiteaURL == "" || cfg.GiteaRepo == "" {
		return usageErr("init on Gitea needs --gitea URL and --repo OWNER/NAME")
	}
	owner, name, err := proposals.Split(cfg.GiteaRepo)
	if err != nil {
		return usageErr("%w", err)
	}
	if cfg.Token == "" {
		return usageErr("set GITEA_TOKEN (or GITEA_TOKEN_FILE) to a token that may create the repository")
	}
	branch := cmp.Or(o.branch, cfg.Branch, compiler.DefaultBranch)
	g, err := proposals.NewGitea(proposals.GiteaOptions{URL: cfg.GiteaURL, Token: cfg.Token, Owner: owner, Repo: name, Main: branch})
	if err != nil {
		return err
	}
	files, err := scaffold.FilesFor(scaffold.ProjectID(name), version(), o.agents, branch)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	repo, err := g.Bootstrap(ctx, proposals.BootstrapOptions{Files: files, Private: o.private,
		Description: "Bridle rules", Writers: o.writers, Approvers: o.approvers})
	if err != nil {
		return err
	}
	fmt.Fprintf(io.errOut, "created %s with the scaffold; %s is protected (pull requests only)\n", repo.HTMLURL, branch)
	if len(o.approvers) > 0 {
		fmt.Fprintf(io.errOut, "only %s may merge into %s\n", strings.Join(o.approvers, ", "), branch)
	}
	fmt.Fprintf(io.errOut, "next: bridle mcp --gitea %s --repo %s --agent claude   (with GITEA_TOKEN of a writer)\n", cfg.GiteaURL, cfg.GiteaRepo)
	return nil
}

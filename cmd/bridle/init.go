package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/scaffold"
)

type initOptions struct {
	gitea, repo        string
	approvers, writers []string
	private            bool
}

func newInitCmd(io *streams) *cobra.Command {
	var o initOptions
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Create a rules repository (local, or on Gitea)",
		Long: `Init creates a rules repository: a commented bridle.yaml that validates as
written, its renders in rendered/, a Gitea Actions workflow
(.gitea/workflows/bridle.yaml: validate and check renders on pull requests,
compile and publish on merge), a README and a .gitignore.

Locally (the default) the files go into DIR (default: the current directory);
when DIR is not inside a git repository, init runs git init (branch main) and
makes the first commit. It never overwrites an existing bridle.yaml.

With --gitea URL --repo OWNER/NAME (token from GITEA_TOKEN or
GITEA_TOKEN_FILE) init creates the repository on Gitea, pushes the scaffold,
and protects main so that the only way in is a merged pull request: direct
pushes are refused. --writers may open proposals (e.g. the agents' bot
account); --approvers, when given, are the only ones who may merge.`,
		Example: `  bridle init my-rules
  GITEA_TOKEN=… bridle init --gitea https://gitea.example.com --repo acme/rules \
    --writers bridle-bot --approvers mira,jonas`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
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
			res, err := scaffold.Init(dir, version())
			if errors.Is(err, scaffold.ErrExists) {
				return usageErr("%w; edit it, or choose another directory", err)
			}
			if err != nil {
				return err
			}
			for _, f := range res.Files {
				fmt.Fprintf(io.errOut, "created %s\n", f)
			}
			if res.Commit != "" {
				fmt.Fprintf(io.errOut, "initialised git repository with commit %s\n", res.Commit[:12])
			}
			fmt.Fprintf(io.errOut, "next: edit %s/bridle.yaml, then run: bridle validate --rules %s\n", dir, dir)
			return nil
		},
	}
	cmd.Flags().StringVar(&o.gitea, "gitea", "", "create the repository on this Gitea `URL`")
	cmd.Flags().StringVar(&o.repo, "repo", "", "the repository to create, `OWNER/NAME`")
	cmd.Flags().StringSliceVar(&o.writers, "writers", nil, "Gitea users who may open proposals")
	cmd.Flags().StringSliceVar(&o.approvers, "approvers", nil, "Gitea users who alone may merge into main")
	cmd.Flags().BoolVar(&o.private, "private", false, "make the Gitea repository private")
	return cmd
}

func runInitGitea(io *streams, o initOptions) error {
	cfg, err := proposals.ConfigFromEnv(proposals.Config{GiteaURL: o.gitea, GiteaRepo: o.repo})
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
	g, err := proposals.NewGitea(proposals.GiteaOptions{URL: cfg.GiteaURL, Token: cfg.Token, Owner: owner, Repo: name})
	if err != nil {
		return err
	}
	files, err := scaffold.Files(scaffold.ProjectID(name), version())
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
	fmt.Fprintf(io.errOut, "created %s with the scaffold; main is protected (pull requests only)\n", repo.HTMLURL)
	if len(o.approvers) > 0 {
		fmt.Fprintf(io.errOut, "only %v may merge into main\n", o.approvers)
	}
	fmt.Fprintf(io.errOut, "next: bridle mcp --gitea %s --repo %s --agent claude   (with GITEA_TOKEN of a writer)\n", cfg.GiteaURL, cfg.GiteaRepo)
	return nil
}

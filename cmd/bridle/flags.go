package main

import "github.com/spf13/cobra"

// The flags that say where the rules live are declared here, once, for
// every command that takes them: the same names, defaults and wording
// everywhere, with what the flag means for the command given by the caller.

const rulesUsage = "rules `path`: a bridle.yaml file, or a directory holding one"

// rulesFlag adds --rules (default "."); usage "" is the common wording.
func rulesFlag(cmd *cobra.Command, p *string, usage string) {
	if usage == "" {
		usage = rulesUsage
	}
	cmd.Flags().StringVar(p, "rules", ".", usage)
}

// refFlag adds --ref with its default and what it means for the command.
func refFlag(cmd *cobra.Command, p *string, def, usage string) {
	cmd.Flags().StringVar(p, "ref", def, usage)
}

// giteaFlags adds --gitea URL and --repo OWNER/NAME (and --path FILE when
// path is not nil): what says what the command does with the repository.
// Unset, they come from GITEA_URL and BRIDLE_GITEA_REPO (the factory).
func giteaFlags(cmd *cobra.Command, url, repo, path *string, what string) {
	cmd.Flags().StringVar(url, "gitea", "", what+" on this Gitea `URL` (default $GITEA_URL; the token from $GITEA_TOKEN or $GITEA_TOKEN_FILE)")
	cmd.Flags().StringVar(repo, "repo", "", "the Gitea repository `OWNER/NAME` (default $BRIDLE_GITEA_REPO; its rules' branch: $BRIDLE_GITEA_BRANCH, default main)")
	if path != nil {
		cmd.Flags().StringVar(path, "path", "", "the rules `file` inside the Gitea repository (default bridle.yaml)")
	}
}

package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/bridle-dev/bridle/scaffold"
)

func newInitCmd(io *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "init [DIR]",
		Short: "Create a rules repository with a commented bridle.yaml",
		Long: `Init writes a commented bridle.yaml that validates as written and a
.gitignore into DIR (default: the current directory). When DIR is not inside
a git repository, init also runs git init (branch main) and makes the first
commit. It never overwrites an existing bridle.yaml.`,
		Example: `  bridle init my-rules
  cd my-rules && bridle render --rules . --all --out rendered`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
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
}

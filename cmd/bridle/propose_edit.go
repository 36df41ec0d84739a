package main

import (
	"fmt"
	goio "io"
	"os"

	"github.com/spf13/cobra"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/proposals"
)

func newProposeEditCmd(io *streams) *cobra.Command {
	var o proposeOptions
	var file string
	c := &cobra.Command{
		Use:   "edit",
		Short: "Propose your edit of bridle.yaml, whole",
		Long: `Propose edit proposes the rules document as you edited it — by default the
work tree's bridle.yaml at --rules, or --from FILE — as a replacement of main's.
It is how a maintainer changes what the other kinds cannot (permissions,
agent profiles, a guardrail's wording, anything): edit the file, propose it,
and have it approved. Committing the edit yourself would be served to the
agents as NOT APPROVED and grant nothing.

The pull request shows the diff of bridle.yaml and of every agent's file.
An edit applies only to the main it was made from: if main changes before it
is approved, approval reports a conflict; edit the new main and propose again.`,
		Example: `  $EDITOR rules/bridle.yaml
  bridle propose edit --rules rules --why "Let claude forget memories"
  bridle approve 4 --rules rules --self     # or a second maintainer approves`,
	}
	c.Flags().StringVar(&file, "from", "", "the edited document `file` (default: bridle.yaml at --rules, in the work tree)")
	return proposeCmd(io, c, &o, func() (proposals.Change, error) {
		var doc []byte
		if file != "" {
			// Read at most one byte past the limit: an oversized file is
			// refused without being read whole.
			f, err := os.Open(file)
			if err != nil {
				return proposals.Change{}, fmt.Errorf("propose edit: %w", err)
			}
			doc, err = goio.ReadAll(goio.LimitReader(f, proposals.MaxDocument+1))
			f.Close()
			if err != nil {
				return proposals.Change{}, fmt.Errorf("propose edit: %w", err)
			}
		} else {
			in, diags, err := compiler.Read(compiler.Options{Rules: o.backend.rules, NoHistory: true})
			if err != nil {
				return proposals.Change{}, rulesErr(err)
			}
			if diags.HasErrors() {
				printDiagnostics(io, diags)
				return proposals.Change{}, &exitError{exitInvalid, errReported}
			}
			doc = in.Data
		}
		if len(doc) > proposals.MaxDocument {
			return proposals.Change{}, usageErr("propose edit: the document is larger than %d bytes", proposals.MaxDocument)
		}
		return proposals.Change{Kind: proposals.KindEdit, Document: string(doc)}, nil
	})
}

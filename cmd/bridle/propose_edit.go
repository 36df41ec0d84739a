package main

import (
	"fmt"
	goio "io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

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

// noChangeHint says, for a proposal that changes nothing, what to do: edit
// the document first or, when the rules' branch holds changes no approved
// merge made (a direct commit), how to ratify them (revert the commits, then
// propose their document) or drop them (revert alone), naming the commits
// the history flags.
func noChangeHint(rules string) string {
	branch := compiler.Branch(rules)
	snap, _, err := compiler.Compile(compiler.Options{Rules: rules, Ref: branch})
	if err != nil || snap == nil || snap.Approval == nil || len(snap.Approval.Unapproved) == 0 {
		return fmt.Sprintf("\n    fix: the document is %s's as committed: edit %s first (or pass --from FILE)", branch, shellWord(filepath.Join(rulesDir(rules), compiler.FileName)))
	}
	var commits, subjects []string
	for _, u := range snap.Approval.Unapproved {
		subjects = append(subjects, u.Subject)
		if u.Commit != "" && !slices.Contains(commits, u.Commit) {
			commits = append(commits, u.Commit)
		}
	}
	if len(commits) == 0 {
		return fmt.Sprintf("\n    fix: %s's rules hold changes no approved merge made (%s); see bridle audit", branch, strings.Join(subjects, ", "))
	}
	// Newest first, as git revert undoes a series.
	slices.SortStableFunc(commits, func(a, b string) int { return commitOrder(snap, b) - commitOrder(snap, a) })
	short := make([]string, len(commits))
	for i, c := range commits {
		short[i] = c[:min(12, len(c))]
	}
	root, file := snap.Source.Repo, snap.Source.Path
	revert := fmt.Sprintf("git -C %s revert --no-edit %s", shellWord(root), strings.Join(short, " "))
	ratified := filepath.Join(os.TempDir(), "bridle-ratify.yaml")
	return fmt.Sprintf(`
    %s's rules are already this document, but %s %s changed %s without an approved merge: served NOT APPROVED, granting nothing
    fix, to ratify the change: keep the document, revert the change, then propose the document and approve it:
      git -C %s show %s:%s > %s
      %s
      bridle propose edit --rules %s --from %s --why "…"
    fix, to undo the change: %s
    (docs/guides/recover-from-a-direct-commit.md)`,
		branch, map[bool]string{true: "commit", false: "commits"}[len(short) == 1], strings.Join(short, ", "), strings.Join(subjects, ", "),
		shellWord(root), shellWord(branch), file, shellWord(ratified), revert, shellWord(rules), shellWord(ratified), revert)
}

// commitOrder is the position of the first unapproved part commit made, by
// time, for ordering.
func commitOrder(snap *compiler.Snapshot, commit string) int {
	for _, u := range snap.Approval.Unapproved {
		if u.Commit == commit {
			if t, err := time.Parse(time.RFC3339, u.At); err == nil {
				return int(t.Unix())
			}
		}
	}
	return 0
}

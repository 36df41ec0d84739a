package main

import (
	"bytes"
	"slices"
	"testing"

	"github.com/spf13/cobra"
)

// TestSubcommandsTable: the table newRootFor matches on names every
// subcommand by the name cobra dispatches on.
func TestSubcommandsTable(t *testing.T) {
	for _, sub := range subcommands {
		if got := sub.build(&streams{}).Name(); got != sub.name {
			t.Errorf("subcommands names %q, but the command it builds is %q", sub.name, got)
		}
	}
}

// TestNewRootForBuildsWhatRuns: a run naming a subcommand builds only it;
// anything else gets the whole tree.
func TestNewRootForBuildsWhatRuns(t *testing.T) {
	names := func(c *cobra.Command) (out []string) {
		for _, s := range c.Commands() {
			out = append(out, s.Name())
		}
		return out
	}
	all := names(newRoot(&streams{}))
	for _, sub := range subcommands {
		if got := names(newRootFor(&streams{}, []string{sub.name, "--help"})); !slices.Equal(got, []string{sub.name}) {
			t.Errorf("newRootFor(%s) built %v", sub.name, got)
		}
	}
	for _, args := range [][]string{nil, {"--version"}, {"help", "hook"}, {"rendr"}, {"--help"}} {
		if got := names(newRootFor(&streams{}, args)); !slices.Equal(got, all) {
			t.Errorf("newRootFor(%q) built %v, want the whole tree %v", args, got, all)
		}
	}
}

// TestNewRootForRunsAlike: what a run prints and returns is the same with
// only the named subcommand built as with all of them (help, usage errors).
func TestNewRootForRunsAlike(t *testing.T) {
	exec := func(root *cobra.Command, args []string) (string, error) {
		var out bytes.Buffer
		root.SetArgs(args)
		root.SetOut(&out)
		root.SetErr(&out)
		_, err := root.ExecuteC()
		return out.String(), err
	}
	for _, sub := range subcommands {
		for _, args := range [][]string{{sub.name, "--help"}, {sub.name, "--no-such-flag"}} {
			io := &streams{out: &bytes.Buffer{}, errOut: &bytes.Buffer{}}
			want, wantErr := exec(newRoot(io), args)
			got, gotErr := exec(newRootFor(io, args), args)
			if got != want || (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
				t.Errorf("%q: got %q, %v; with the whole tree %q, %v", args, got, gotErr, want, wantErr)
			}
		}
	}
}

package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/schema"
)

// rulesFlags are the flags every command that reads rules shares.
type rulesFlags struct {
	rules     string
	ref       string
	json      bool
	noHistory bool
}

func (f *rulesFlags) register(cmd *cobra.Command, withJSON bool) {
	cmd.Flags().StringVar(&f.rules, "rules", ".", "rules `path`: a bridle.yaml file, or a directory holding one")
	cmd.Flags().StringVar(&f.ref, "ref", "", "read the rules from this git `ref` (branch, tag or commit) instead of the work tree")
	cmd.Flags().BoolVar(&f.noHistory, "no-history", false, "take provenance from bridle.yaml only, not from the repository's merged proposals")
	if withJSON {
		cmd.Flags().BoolVar(&f.json, "json", false, "print diagnostics as JSON on stdout")
	}
}

func (f *rulesFlags) options() compiler.Options {
	return compiler.Options{Rules: f.rules, Ref: f.ref, BridleVersion: version(), NoHistory: f.noHistory}
}

// compile compiles the rules and reports diagnostics. It returns an
// exitError with exitInvalid when the rules are invalid.
func (f *rulesFlags) compile(io *streams) (*compiler.Snapshot, error) {
	snap, diags, _, err := compiler.CompileCached(f.options(), compiler.DefaultCache())
	if err != nil {
		if errors.Is(err, compiler.ErrNotFound) || errors.Is(err, compiler.ErrBadRef) || errors.Is(err, compiler.ErrNotRepo) {
			return nil, &exitError{exitInvalid, err}
		}
		return nil, err
	}
	if perr := f.report(io, diags); perr != nil {
		return nil, perr
	}
	if snap == nil {
		return nil, &exitError{exitInvalid, errReported}
	}
	return snap, nil
}

// report prints diagnostics: text on stderr, or JSON on stdout with --json.
func (f *rulesFlags) report(io *streams, diags schema.Diagnostics) error {
	if f.json {
		if diags == nil {
			diags = schema.Diagnostics{}
		}
		enc := json.NewEncoder(io.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Valid       bool               `json:"valid"`
			Diagnostics schema.Diagnostics `json:"diagnostics"`
		}{!diags.HasErrors(), diags}); err != nil {
			return err
		}
	} else {
		printDiagnostics(io, diags)
	}
	if diags.HasErrors() {
		return &exitError{exitInvalid, errReported}
	}
	return nil
}

func printDiagnostics(io *streams, diags schema.Diagnostics) {
	errs, warns := 0, 0
	for _, d := range diags {
		fmt.Fprintln(io.errOut, d.String())
		if d.Fix != "" {
			fmt.Fprintf(io.errOut, "    fix: %s\n", d.Fix)
		}
		if d.Level == schema.Warning {
			warns++
		} else {
			errs++
		}
	}
	if errs > 0 {
		fmt.Fprintf(io.errOut, "%s, %s\n", plural(errs, "error"), plural(warns, "warning"))
	}
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func newValidateCmd(io *streams) *cobra.Command {
	var f rulesFlags
	cmd := &cobra.Command{
		Use:   "validate",
		Short: "Check the rules document and report every problem",
		Long: `Validate checks bridle.yaml against the schema and Bridle's semantic rules and
reports every problem at once, each as file:line:col with how to fix it.
It exits 0 when the rules are valid and 3 when they are not.`,
		Example: `  bridle validate --rules .
  bridle validate --rules . --ref main
  bridle validate --rules bridle.yaml --json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return runValidate(io, &f)
		},
	}
	f.register(cmd, true)
	return cmd
}

func runValidate(io *streams, f *rulesFlags) error {
	in, diags, err := compiler.Read(f.options())
	if err != nil {
		return &exitError{exitInvalid, err}
	}
	if !diags.HasErrors() {
		var file *schema.File
		file, diags = schema.Load(in.Name, in.Data)
		if !diags.HasErrors() && !f.json {
			fmt.Fprintf(io.errOut, "%s: valid (%s, %s)\n", in.Name,
				plural(len(file.Doc.Guardrails), "guardrail"), plural(len(file.Doc.AgentProfiles), "agent"))
		}
	}
	return f.report(io, diags)
}

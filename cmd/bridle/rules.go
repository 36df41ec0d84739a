package main

import (
	"encoding/json"
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

// register adds the rules flags to cmd. jsonUsage, when set, adds --json
// saying what the command prints; withHistory adds --no-history, for a
// command whose output depends on the rules' history.
func (f *rulesFlags) register(cmd *cobra.Command, jsonUsage string, withHistory bool) {
	rulesFlag(cmd, &f.rules, "")
	refFlag(cmd, &f.ref, "", "read the rules from this git `ref` (branch, tag or commit) instead of the work tree")
	if withHistory {
		cmd.Flags().BoolVar(&f.noHistory, "no-history", false, "with --ref, take provenance from bridle.yaml only, not from the repository's merged proposals")
	}
	if jsonUsage != "" {
		cmd.Flags().BoolVar(&f.json, "json", false, jsonUsage)
	}
}

// options are the compiler options the flags ask for. History is reviewed
// for a git ref only: the work tree is read as it states itself (nothing in
// it is approved, and a committed render must not depend on its own merge),
// so every command without --ref renders what bridle.yaml says.
func (f *rulesFlags) options() compiler.Options {
	return compiler.Options{Rules: f.rules, Ref: f.ref, BridleVersion: version(), NoHistory: f.noHistory || f.ref == ""}
}

// load compiles the rules for a command that prints data (see jsonout.go):
// invalid rules get the diagnostics document alone (with --json) or text
// diagnostics; valid rules' warnings go to stderr as text and are returned
// too, for a command whose document carries them.
func (f *rulesFlags) load(io *streams) (*compiler.Snapshot, schema.Diagnostics, error) {
	snap, diags, _, err := compiler.CompileCached(f.options(), io.f.CompileCache())
	if err != nil {
		return nil, nil, rulesErr(err)
	}
	if snap == nil || diags.HasErrors() {
		if perr := f.report(io, diags); perr != nil {
			return nil, nil, perr
		}
		return nil, nil, &exitError{exitInvalid, errReported}
	}
	printDiagnostics(io, diags)
	if diags == nil {
		diags = schema.Diagnostics{}
	}
	return snap, diags, nil
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
		fmt.Fprintf(io.errOut, "%s, %s\n", count(errs, "error", "errors"), count(warns, "warning", "warnings"))
	}
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
	f.register(cmd, "print {valid, diagnostics} as one JSON object on stdout", false)
	return cmd
}

func runValidate(io *streams, f *rulesFlags) error {
	in, diags, err := compiler.Read(f.options())
	if err != nil {
		return rulesErr(err)
	}
	if !diags.HasErrors() {
		var file *schema.File
		file, diags = schema.Load(in.Name, in.Data)
		if !diags.HasErrors() && !f.json {
			fmt.Fprintf(io.errOut, "%s: valid (%s, %s)\n", in.Name,
				count(len(file.Doc.Guardrails), "guardrail", "guardrails"), count(len(file.Doc.AgentProfiles), "agent", "agents"))
		}
	}
	return f.report(io, diags)
}

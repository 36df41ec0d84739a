package main

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/bridle-dev/bridle/compiler"
)

// With --json, a command prints exactly one JSON document on stdout, so
// that `bridle … --json | jq` and a decoder of one value both work:
//
//   - its data, when it ran; the rules' warnings then go to stderr as text,
//     like every other status;
//   - the diagnostics document alone ({"valid": false, "diagnostics": […]},
//     exit 3) when the rules it needs are invalid;
//   - nothing on stdout when it was refused before it ran (exit 2) or
//     failed (exit 1): the error is on stderr.
//
// compileData and writeJSON are how every command keeps that promise.

// compileData compiles the rules for a command that prints data: the
// diagnostics document (with --json) or text diagnostics when the rules are
// invalid, and only text warnings on stderr when they are valid, so that
// the caller's data is the one document on stdout.
func (f *rulesFlags) compileData(io *streams) (*compiler.Snapshot, error) {
	snap, diags, _, err := compiler.CompileCached(f.options(), compiler.DefaultCache())
	if err != nil {
		return nil, rulesErr(err)
	}
	if diags.HasErrors() || snap == nil {
		if err := f.report(io, diags); err != nil {
			return nil, err
		}
		return nil, &exitError{exitInvalid, errReported}
	}
	printDiagnostics(io, diags)
	return snap, nil
}

// rulesErr gives a failure to read the rules its exit code: rules that are
// not there are invalid (3); a ref git cannot resolve, or --ref outside a
// repository, is an operation that failed (1), like any other git error.
func rulesErr(err error) error {
	switch {
	case errors.Is(err, compiler.ErrBadRef), errors.Is(err, compiler.ErrNotRepo):
		return &exitError{exitFailure, err}
	case errors.Is(err, compiler.ErrNotFound):
		return &exitError{exitInvalid, err}
	}
	return err
}

// writeJSON prints v as the one JSON document of a --json invocation,
// indented, with this environment's secrets masked like every other output.
func writeJSON(io *streams, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, cliRedactor().JSON(b), "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = io.out.Write(out.Bytes())
	return err
}

// registerRules registers the rules flags on cmd, as rulesFlags.register
// defines them, but with --json saying what this command prints, and
// without --no-history for a command whose output does not depend on the
// rules' history (the flag would be accepted and ignored).
func (f *rulesFlags) registerRules(cmd *cobra.Command, jsonUsage string, withHistory bool) {
	scratch := &cobra.Command{}
	f.register(scratch, jsonUsage != "")
	scratch.Flags().VisitAll(func(fl *pflag.Flag) {
		switch {
		case fl.Name == "no-history" && !withHistory:
			return
		case fl.Name == "json":
			fl.Usage = jsonUsage
		}
		cmd.Flags().AddFlag(fl)
	})
}

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

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

// compileData compiles the rules for a command that prints data (load,
// without the warnings).
func (f *rulesFlags) compileData(io *streams) (*compiler.Snapshot, error) {
	snap, _, err := f.load(io)
	return snap, err
}

// rulesErr gives a failure to read the rules its exit code: rules that are
// not there are invalid (3); a ref git cannot resolve, or --ref outside a
// repository, is an operation that failed (1), like any other git error.
func rulesErr(err error) error {
	switch {
	case errors.Is(err, compiler.ErrBadRef):
		return &exitError{exitFailure, fmt.Errorf("%w\n    fix: name a branch, tag or commit of the rules repository (git branch -a there lists them)", err)}
	case errors.Is(err, compiler.ErrNotRepo):
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
	if err := json.Indent(&out, io.f.Redactor().JSON(b), "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = io.out.Write(out.Bytes())
	return err
}

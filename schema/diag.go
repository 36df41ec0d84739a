package schema

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Level says how serious a diagnostic is.
type Level string

// Diagnostic levels.
const (
	Error   Level = "error"
	Warning Level = "warning"
)

// Diagnostic is one problem found in a rules document. Producing one and
// printing it are separate: String gives the one-line form, and the JSON
// encoding serves --json and MCP tools.
type Diagnostic struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Level   Level  `json:"level"`
	Path    string `json:"path,omitempty"`    // where in the document, e.g. guardrails[2].severity
	Message string `json:"message"`           // what is wrong
	Suggest string `json:"suggest,omitempty"` // "did you mean" candidate, if any
	Fix     string `json:"fix,omitempty"`     // how to fix it
}

// String renders the diagnostic as
// `bridle.yaml:14:5: guardrails[2].severity: "hard" is not … (did you mean "hard-instruction"?)`.
func (d Diagnostic) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d:%d: ", d.File, d.Line, d.Col)
	if d.Level == Warning {
		b.WriteString("warning: ")
	}
	if d.Path != "" {
		b.WriteString(d.Path)
		b.WriteString(": ")
	}
	b.WriteString(d.Message)
	if d.Suggest != "" {
		fmt.Fprintf(&b, " (did you mean %q?)", d.Suggest)
	}
	return b.String()
}

// Diagnostics is a list of problems. As an error it prints one per line.
type Diagnostics []Diagnostic

// HasErrors reports whether any diagnostic is an error (not just a warning).
func (ds Diagnostics) HasErrors() bool {
	return slices.ContainsFunc(ds, func(d Diagnostic) bool { return d.Level != Warning })
}

// Error implements error.
func (ds Diagnostics) Error() string {
	var b strings.Builder
	for i, d := range ds {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(d.String())
	}
	return b.String()
}

// Sort orders diagnostics by file, position, path and message, and drops exact duplicates.
func (ds Diagnostics) Sort() Diagnostics {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		return cmp.Or(
			cmp.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Col, b.Col),
			cmp.Compare(a.Path, b.Path),
			cmp.Compare(a.Message, b.Message),
		)
	})
	return slices.Compact(ds)
}

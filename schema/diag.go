package schema

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bridle-dev/bridle/internal/lazyregexp"
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

// Bounds on what diagnostics repeat back, so that a hostile document cannot
// make the report larger than itself (a 2 MB file once printed 26 MB).
const (
	// MaxDiagnostics is how many diagnostics Load and Parse return; one
	// more says how many were left out.
	MaxDiagnostics = 100
	// MaxQuote is how many characters of a value a message quotes.
	MaxQuote   = 64
	maxMessage = 400 // characters of a message, fix or path
)

// quote quotes at most MaxQuote characters of a user's value, marking a cut
// with "…" after the closing quote.
func quote(s string) string {
	if utf8.RuneCountInString(s) <= MaxQuote {
		return strconv.Quote(s)
	}
	return strconv.Quote(prefix(s, MaxQuote)) + "…"
}

func prefix(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

func bound(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return prefix(s, n) + "…"
}

var quotedRe = lazyregexp.New("\"(?:[^\"\\\\]|\\\\.)*\"|`[^`]*`")

// shortenQuoted bounds every quoted value in a message written by a
// library (go-yaml, the JSON Schema validator).
func shortenQuoted(msg string) string {
	if len(msg) <= MaxQuote {
		return msg
	}
	return quotedRe.ReplaceAllStringFunc(msg, func(q string) string {
		if utf8.RuneCountInString(q) <= MaxQuote+2 {
			return q
		}
		return prefix(q, MaxQuote+1) + q[len(q)-1:] + "…"
	})
}

// Limit keeps the first n diagnostics (sorted, so the first by position)
// and replaces the rest with one saying how many were left out, and bounds
// the length of every message, path, fix and suggestion.
func (ds Diagnostics) Limit(n int) Diagnostics {
	if len(ds) > n {
		rest := ds[n:]
		errs := 0
		for _, d := range rest {
			if d.Level != Warning {
				errs++
			}
		}
		more := Diagnostic{File: rest[0].File, Line: rest[0].Line, Col: rest[0].Col, Level: Warning,
			Message: fmt.Sprintf("%s not shown (%s, %s)", count(len(rest), "more problem", "more problems"),
				count(errs, "error", "errors"), count(len(rest)-errs, "warning", "warnings")),
			Fix: "fix the problems above and run again"}
		if errs > 0 {
			more.Level = Error
		}
		ds = append(ds[:n:n], more)
	}
	for i := range ds {
		d := &ds[i]
		d.Message, d.Fix, d.Path = bound(d.Message, maxMessage), bound(d.Fix, maxMessage), bound(d.Path, maxMessage)
		d.Suggest = bound(d.Suggest, MaxQuote)
	}
	return ds
}

// count is n with the noun in the right number.
func count(n int, singular, pluralForm string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, singular)
	}
	return fmt.Sprintf("%d %s", n, pluralForm)
}

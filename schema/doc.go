// Package schema defines the canonical Bridle rules document (bridle.yaml),
// decodes it while keeping the line and column of every value, and validates
// it against the committed JSON Schema and Bridle's semantic checks.
//
// Promises:
//   - Load never panics and never hangs on any input: size, nesting depth and
//     alias expansion are bounded, and bad input yields diagnostics, not errors.
//   - Every problem is reported in one run, each Diagnostic carrying
//     file:line:col, the path in the document (guardrails[2].severity), what is
//     wrong and how to fix it, with "did you mean" for misspelt keys and values.
//   - Diagnostics are sorted by position, so output is deterministic, and
//     bounded: at most MaxDiagnostics and one counting the rest, each value
//     quoted to MaxQuote characters.
//   - Alias cycles, alias-expanded nesting and size, and oversized mappings
//     are refused before any recursive pass or typed decoding sees the node
//     graph.
//   - Rules text cannot disguise itself or reshape a render: control,
//     bidi and invisible characters are refused in every string; one-line
//     fields refuse line breaks, a leading #, HTML comments and raw-text
//     elements (other leading markdown is escaped by the renderers); prose
//     refuses every construct that could swallow or restructure what
//     follows it (internal/mdsafe.CheckProse), at its own line.
//
// The JSON Schema (bridle.schema.json) is generated from the Go types with
// invopop/jsonschema and committed; TestSchemaDrift fails when they diverge
// (go test ./schema -run Drift -update rewrites it).
package schema

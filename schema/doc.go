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
//   - Diagnostics are sorted by position, so output is deterministic.
//
// The JSON Schema (bridle.schema.json) is generated from the Go types with
// invopop/jsonschema and committed; TestSchemaDrift fails when they diverge
// (go test ./schema -run Drift -update rewrites it).
package schema

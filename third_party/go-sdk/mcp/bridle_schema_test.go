package mcp

import (
	"context"
	"encoding/json"
	"testing"
)

// otherRaw marshals as the bytes it holds but is not a json.RawMessage, so
// AddTool checks it as upstream does.
type otherRaw []byte

func (o otherRaw) MarshalJSON() ([]byte, error) { return o, nil }

func addPanics(in, out any) (panicked bool) {
	defer func() { panicked = recover() != nil }()
	s := NewServer(&Implementation{Name: "t", Version: "1"}, nil)
	s.AddTool(&Tool{Name: "t", InputSchema: in, OutputSchema: out}, func(context.Context, *CallToolRequest) (*CallToolResult, error) {
		return nil, nil
	})
	return false
}

var schemaCases = []string{
	`{"type":"object"}`,
	`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`,
	`{"type":"string"}`,
	`{"properties":{}}`,
	`[1]`,
	`"object"`,
	`{"type":"object","properties":{"a":`,
	`{"type":"object","x":tru}`,
	`{"type":"object"} {}`,
	`{"type":"object","properties":{"h":{"type":"string","x-mcp-header":"X-Ok"}}}`,
	`{"type":"object","properties":{"h":{"type":"object","x-mcp-header":"X-Bad"}}}`,
	`{"type":"object","properties":{"h":{"type":"object","x-mcp-\u0068eader":"X-Bad"}}}`,
	`{"type":"object","properties":{"h":{"type":"string","x-mcp-header":""}}}`,
	`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"X-A"},"b":{"type":"string","x-mcp-header":"x-a"}}}`,
	`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"array","x-mcp-header":"X-B"}}}}}`,
	``,
	`null`,
}

// TestRawSchemaChecksAsUpstream (Bridle's patch): a json.RawMessage input
// or output schema is refused exactly when upstream's checks refuse the
// same bytes.
func TestRawSchemaChecksAsUpstream(t *testing.T) {
	for _, c := range schemaCases {
		raw := json.RawMessage(c)
		if got, want := addPanics(raw, nil), addPanics(otherRaw(c), nil); got != want {
			t.Errorf("input %s: refused %v, upstream refuses %v", c, got, want)
		}
		if got, want := addPanics(json.RawMessage(`{"type":"object"}`), raw), addPanics(json.RawMessage(`{"type":"object"}`), otherRaw(c)); got != want && c != "" {
			t.Errorf("output %s: refused %v, upstream refuses %v", c, got, want)
		}
	}
}

// FuzzRawSchemaChecks: the same, for any bytes.
func FuzzRawSchemaChecks(f *testing.F) {
	for _, c := range schemaCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, c string) {
		if got, want := addPanics(json.RawMessage(c), nil), addPanics(otherRaw(c), nil); got != want {
			t.Fatalf("input %q: refused %v, upstream refuses %v", c, got, want)
		}
	})
}

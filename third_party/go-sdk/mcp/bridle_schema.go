package mcp

import (
	"bytes"
	"encoding/json"
	"errors"

	internaljson "github.com/modelcontextprotocol/go-sdk/internal/json"
)

// Bridle's patch. Server.AddTool checks a tool's schemas by remarshalling
// them: the input schema into a map (is it an object of type "object"?),
// the output schema into an any (is it JSON?), and the input schema again
// for x-mcp-header annotations. A schema given as a json.RawMessage (Bridle
// serves its tools' schemas precomputed, and an upstream server's as they
// came) was each time compacted and decoded into maps, which was half of
// `bridle mcp`'s work from start to an answered tools/list. For a
// json.RawMessage the same checks now run on the bytes:
//
//   - input: json.Valid, then one decode of its "type" alone; a document
//     that is not an object fails as before;
//   - output: json.Valid;
//   - header annotations: validated as before whenever the schema could
//     hold one — it names x-mcp-header, or holds a \u escape that could
//     spell it.
//
// Every other schema (a *jsonschema.Schema, a map, a struct) is checked as
// upstream checks it.

// rawSchemaType is the "type" of the JSON object raw.
func rawSchemaType(raw json.RawMessage) (any, error) {
	if !json.Valid(raw) { // one value, nothing after it, as marshalling it checked
		return nil, errors.New("invalid JSON")
	}
	var head struct {
		Type any `json:"type"`
	}
	if err := internaljson.Unmarshal(raw, &head); err != nil {
		return nil, err
	}
	return head.Type, nil
}

// mayAnnotateHeaders reports whether schema could carry an x-mcp-header
// annotation (always, unless it is a json.RawMessage that cannot).
func mayAnnotateHeaders(schema any) bool {
	raw, ok := schema.(json.RawMessage)
	if !ok {
		return true
	}
	return bytes.Contains(raw, []byte("x-mcp-header")) || bytes.Contains(raw, []byte(`\u`))
}

package schema

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	invopop "github.com/invopop/jsonschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaID is the $id of the committed JSON Schema.
const SchemaID = "https://github.com/bridle-dev/bridle/schema/bridle.schema.json"

//go:embed bridle.schema.json
var committed []byte

// JSON returns the committed JSON Schema of the rules document.
func JSON() []byte { return bytes.Clone(committed) }

// Generate reflects the JSON Schema from the Go types. srcDir is this
// package's source directory, read for field comments that become
// descriptions; pass "" to skip them.
func Generate(srcDir string) ([]byte, error) {
	r := &invopop.Reflector{
		FieldNameTag:               "yaml",
		RequiredFromJSONSchemaTags: true,
		DoNotReference:             false,
	}
	if srcDir != "" {
		if err := r.AddGoComments("github.com/bridle-dev/bridle/schema", srcDir); err != nil {
			return nil, fmt.Errorf("generate schema: read comments: %w", err)
		}
	}
	s := r.Reflect(&Document{})
	s.ID = SchemaID
	s.Title = "Bridle rules document"
	s.Description = "The canonical, version-controlled rules of one software project (bridle.yaml)."
	out, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("generate schema: %w", err)
	}
	return append(out, '\n'), nil
}

// compiled is the committed schema, compiled once.
var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(committed))
	if err != nil {
		return nil, fmt.Errorf("load schema: %w", err)
	}
	stripDescriptions(doc) // they are for editors; compiling without them is faster
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(SchemaID, doc); err != nil {
		return nil, fmt.Errorf("load schema: %w", err)
	}
	sch, err := c.Compile(SchemaID)
	if err != nil {
		return nil, fmt.Errorf("compile schema: %w", err)
	}
	return sch, nil
})

func stripDescriptions(v any) {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v["description"].(string); ok {
			delete(v, "description")
		}
		for _, x := range v {
			stripDescriptions(x)
		}
	case []any:
		for _, x := range v {
			stripDescriptions(x)
		}
	}
}

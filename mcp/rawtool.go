package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/schema"
)

// RawHandler handles a tool whose input schema is known only at run time.
// args are the call's arguments, already validated against that schema
// (absent arguments arrive as {}). An error is reported to the model as a
// tool error; a *jsonrpc.Error is sent as a protocol error.
type RawHandler func(ctx context.Context, req *sdk.CallToolRequest, args json.RawMessage) (*sdk.CallToolResult, error)

// ErrInvalidTool is wrapped by NewRawTool and AddToolset for a definition
// Bridle will not serve.
var ErrInvalidTool = errors.New("invalid tool")

// Limits on a run-time tool's definition, which comes from another server
// and is therefore hostile data.
const (
	maxRawSchema      = 256 << 10
	maxRawTitle       = 200
	maxRawDescription = 4000
)

// NewRawTool builds a tool whose input schema is given at run time — an
// upstream MCP server's tool, served through Bridle. The definition is
// treated as hostile: the name must be a valid MCP tool name (1 to 128 of
// A-Z a-z 0-9 _ - .), the schema a JSON object of type "object", at most
// 256 KiB, that resolves without loading anything; the title and
// description lose control characters and are cut to length. t's toolset,
// permission and hints are Bridle's to set, never the upstream's.
//
// Each call's arguments are validated against the schema before h runs, as
// for the typed tools; the permission, redaction and audit middlewares apply
// as to every other tool.
func NewRawTool(t Tool, inputSchema json.RawMessage, h RawHandler) (Tool, error) {
	if err := checkToolName(t.Name); err != nil {
		return Tool{}, err
	}
	if h == nil {
		return Tool{}, fmt.Errorf("tool %q: no handler: %w", t.Name, ErrInvalidTool)
	}
	// A tool defined at run time (an upstream server's) is never open to
	// every agent by default: it names the permission that admits it.
	if !slices.Contains(schema.PermissionNames, string(t.Permission)) {
		return Tool{}, fmt.Errorf("tool %q: permission %q is not one of %s: %w", t.Name, t.Permission, strings.Join(schema.PermissionNames, ", "), ErrInvalidTool)
	}
	s, err := rawSchema(inputSchema)
	if err != nil {
		return Tool{}, fmt.Errorf("tool %q: input schema: %w: %w", t.Name, ErrInvalidTool, err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return Tool{}, fmt.Errorf("tool %q: input schema: %w: %w", t.Name, ErrInvalidTool, err)
	}
	// What is served is the schema as Bridle parsed it, the one it validates
	// against.
	b, err := json.Marshal(s)
	in := json.RawMessage(b)
	if err != nil {
		return Tool{}, fmt.Errorf("tool %q: input schema: %w: %w", t.Name, ErrInvalidTool, err)
	}
	t.Title = proposals.OneLine(t.Title, maxRawTitle)
	t.Description = truncate(strings.TrimSpace(clean(t.Description)), maxRawDescription)
	t.schema = func() (*jsonschema.Schema, error) { return rawSchema(in) }
	t.schemas = func() (json.RawMessage, json.RawMessage, error) { return in, nil, nil }
	t.add = func(srv *sdk.Server) {
		def := &sdk.Tool{Name: t.Name, Title: t.Title, Description: t.Description, Annotations: t.Annotations(), InputSchema: in}
		srv.AddTool(def, serve(t.Name, func() (*jsonschema.Resolved, error) { return resolved, nil }, h))
	}
	return t, nil
}

// rawSchema decodes a run-time input schema and checks its shape.
func rawSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	if len(raw) > maxRawSchema {
		return nil, fmt.Errorf("%d bytes, more than %d", len(raw), maxRawSchema)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	if s.Type != "object" {
		return nil, fmt.Errorf(`type is %q, not "object"`, s.Type)
	}
	return &s, nil
}

// checkToolName applies the MCP rule for tool names.
func checkToolName(name string) error {
	if name == "" || len(name) > 128 || strings.IndexFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.')
	}) >= 0 {
		return fmt.Errorf("tool name %q: not 1 to 128 of A-Z a-z 0-9 _ - .: %w", truncate(name, 140), ErrInvalidTool)
	}
	return nil
}

// truncate cuts s to at most n bytes, on a character boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

// resolveOnce resolves a schema given as JSON on first use.
func resolveOnce(in json.RawMessage) func() (*jsonschema.Resolved, error) {
	return sync.OnceValues(func() (*jsonschema.Resolved, error) {
		var s jsonschema.Schema
		if err := json.Unmarshal(in, &s); err != nil {
			return nil, err
		}
		return s.Resolve(nil)
	})
}

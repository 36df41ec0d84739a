package mcp

import (
	"context"
	"slices"
)

// ToolsetID names a toolset: the unit a client enables and the heading a
// tool is documented under. (Toolset is the value that holds the tools.)
type ToolsetID string

// The toolsets.
const (
	ToolsetRules     ToolsetID = "rules"
	ToolsetProposals ToolsetID = "proposals"
	ToolsetMemory    ToolsetID = "memory"
	ToolsetPatterns  ToolsetID = "patterns"
	ToolsetKanboard  ToolsetID = "kanboard"
)

// Toolsets lists every toolset, in the order they are documented.
var Toolsets = []ToolsetID{ToolsetRules, ToolsetProposals, ToolsetMemory, ToolsetPatterns, ToolsetKanboard}

// Toolset is a group of tools built from the dependencies they need (a
// constructor such as proposalsToolset(proposalDeps{…}) returns one). The
// server registers toolsets in (*Server).toolsets at start, or with
// AddToolset while it runs; either way every call goes through the same
// permission, redaction and audit middlewares.
type Toolset struct {
	ID    ToolsetID
	Tools []Tool
	// Enabled reports whether the service behind the toolset is set up; the
	// tools of a disabled toolset are absent from tools/list and refused on
	// tools/call. nil means always enabled.
	Enabled func(context.Context) bool
}

// configured is an Enabled hook for a toolset whose service is set up
// exactly when ok.
func configured(ok bool) func(context.Context) bool {
	return func(context.Context) bool { return ok }
}

func (t Tool) isEnabled(ctx context.Context) bool { return t.enabled == nil || t.enabled(ctx) }

// tools returns ts's tools, each carrying the toolset's Enabled hook.
func (ts Toolset) tools() []Tool {
	out := make([]Tool, len(ts.Tools))
	for i, t := range ts.Tools {
		if ts.Enabled != nil {
			t.enabled = ts.Enabled
		}
		out[i] = t
	}
	return out
}

func (s *Server) tool(name string) (Tool, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	i := slices.IndexFunc(s.tools, func(t Tool) bool { return t.Name == name })
	if i < 0 {
		return Tool{}, false
	}
	return s.tools[i], true
}

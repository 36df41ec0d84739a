package mcp

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

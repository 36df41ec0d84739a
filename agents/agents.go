// Package agents is the registry of the coding agents Bridle knows: one
// entry per agent holds every fact Bridle needs about it — its names, how
// its instructions are rendered and where they go by default, the MCP
// clientInfo names that identify it, and where its MCP client keeps its
// configuration. Adding an agent is adding one entry to the list below;
// schema (profile defaults), renderers (through the format and style) and
// install (the client configuration) read it from here.
//
// The package is a leaf: plain data, no imports of Bridle's.
package agents

import (
	"path"
	"slices"
)

// Instruction file formats.
const (
	ClaudeMD = "CLAUDE.md"
	AgentsMD = "AGENTS.md"
)

// Renderer styles (schema.Style values).
const (
	Reference = "reference"
	Stepwise  = "stepwise"
)

// ConfigFormat is how an MCP client's configuration file is written.
type ConfigFormat string

// The configuration formats install can merge into.
const (
	// JSONServers is a JSON object with an "mcpServers" map (Claude Code, Kimi).
	JSONServers ConfigFormat = "json"
	// TOMLServers is TOML with [mcp_servers.NAME] tables (Codex).
	TOMLServers ConfigFormat = "toml"
)

// Config is where an agent's MCP client keeps its server configuration.
type Config struct {
	Format ConfigFormat
	// Project is the project-scoped file, slash path relative to the
	// project root.
	Project string
	// User is the user's own file, slash path relative to the home
	// directory.
	User string
	// HTTP reports that the client connects to a streamable HTTP MCP
	// server itself, with a bearer token taken from the environment (bridle
	// install --server writes that); a client without it launches the
	// stdio bridge, bridle mcp --server.
	HTTP bool
}

// Agent is one known agent.
type Agent struct {
	Name        string // the profile name in bridle.yaml: claude, codex, …
	DisplayName string
	Vendor      string
	// InstructionFormat and Style choose the renderer (renderers.For).
	InstructionFormat string
	Style             string
	// MCPClients are the clientInfo.name values its MCP client sends.
	MCPClients []string
	// Config is where bridle install writes; nil when Bridle cannot
	// configure its client.
	Config *Config
	// VendorSources are the vendor's published guidance on instructing the
	// agent, served as markdown: bridle init writes them into the agent's
	// profile (vendor_sources) for bridle vendor sync to read. None when
	// the vendor publishes no such document Bridle knows of.
	VendorSources []VendorSource
}

// VendorSource is one published guidance document.
type VendorSource struct {
	URL    string
	Format string // markdown or html
}

// list is every known agent, in one flat list.
var list = []Agent{
	{
		Name: "claude", DisplayName: "Claude Code", Vendor: "Anthropic",
		InstructionFormat: ClaudeMD, Style: Reference, MCPClients: []string{"claude-code"},
		Config: &Config{Format: JSONServers, Project: ".mcp.json", User: ".claude.json", HTTP: true},
		// The Claude Code docs serve each page as markdown at its .md address.
		VendorSources: []VendorSource{{URL: "https://code.claude.com/docs/en/memory.md", Format: "markdown"}},
	},
	{
		Name: "codex", DisplayName: "Codex CLI", Vendor: "OpenAI",
		InstructionFormat: AgentsMD, Style: Reference, MCPClients: []string{"codex-mcp-client"},
		Config: &Config{Format: TOMLServers, Project: ".codex/config.toml", User: ".codex/config.toml", HTTP: true},
		// The AGENTS.md documentation in OpenAI's Codex repository.
		VendorSources: []VendorSource{{URL: "https://raw.githubusercontent.com/openai/codex/main/docs/agents_md.md", Format: "markdown"}},
	},
	{
		Name: "kimi", DisplayName: "Kimi", Vendor: "Moonshot AI",
		InstructionFormat: AgentsMD, Style: Stepwise,
		Config: &Config{Format: JSONServers, Project: ".kimi/mcp.json", User: ".kimi/mcp.json"},
		// The AGENTS.md page of Moonshot's kimi-cli documentation.
		VendorSources: []VendorSource{{URL: "https://raw.githubusercontent.com/MoonshotAI/kimi-cli/main/docs/en/customization/agents-md.md", Format: "markdown"}},
	},
	{
		Name: "deepseek", DisplayName: "DeepSeek", Vendor: "DeepSeek",
		InstructionFormat: AgentsMD, Style: Stepwise,
		// DeepSeek publishes no guidance on instructing its harness that
		// Bridle knows of: add one to the profile when it does.
	},
}

// All returns every known agent, sorted by name. The entries are copies.
func All() []Agent {
	out := make([]Agent, len(list))
	for i, a := range list {
		out[i] = a.clone()
	}
	slices.SortFunc(out, func(a, b Agent) int {
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	return out
}

// Lookup returns the known agent of that name.
func Lookup(name string) (Agent, bool) {
	for _, a := range list {
		if a.Name == name {
			return a.clone(), true
		}
	}
	return Agent{}, false
}

// Names lists the known agents' names, sorted.
func Names() []string {
	var out []string
	for _, a := range All() {
		out = append(out, a.Name)
	}
	return out
}

// Installable lists the agents whose MCP client bridle install can
// configure, sorted.
func Installable() []string {
	var out []string
	for _, a := range All() {
		if a.Config != nil {
			out = append(out, a.Name)
		}
	}
	return out
}

// Output is the default path of an agent's rendered file, chosen so that
// no render overwrites another: CLAUDE.md-format agents write CLAUDE.md,
// AGENTS.md agents in reference style AGENTS.md, stepwise agents
// agents/<name>/AGENTS.md.
func Output(name, format, style string) string {
	switch {
	case format == ClaudeMD:
		return ClaudeMD
	case style == Stepwise:
		return path.Join("agents", name, AgentsMD)
	default:
		return AgentsMD
	}
}

func (a Agent) clone() Agent {
	a.MCPClients = slices.Clone(a.MCPClients)
	a.VendorSources = slices.Clone(a.VendorSources)
	if a.Config != nil {
		c := *a.Config
		a.Config = &c
	}
	return a
}

package schema

import (
	"slices"
	"strings"

	"github.com/bridle-dev/bridle/agents"
)

// Instruction file names.
const (
	ClaudeMD = agents.ClaudeMD
	AgentsMD = agents.AgentsMD
)

// BuiltinAgents lists the agents with built-in defaults (the agents
// registry), sorted.
func BuiltinAgents() []string { return agents.Names() }

// Resolved returns agent's profile with built-in defaults filled in:
// instruction format, style, display name, MCP client names and output path.
// Output layout, chosen so that no render overwrites another:
//   - CLAUDE.md-format agents write CLAUDE.md;
//   - AGENTS.md-format agents in reference style write AGENTS.md;
//   - stepwise agents write agents/<agent>/AGENTS.md,
//
// unless the profile sets output. Validate reports any two agents that still
// resolve to the same path.
func (d *Document) Resolved(agent string) AgentProfile {
	p := d.AgentProfiles[agent]
	def := AgentProfile{DisplayName: agent, InstructionFormat: AgentsMD, Style: Reference}
	if a, known := agents.Lookup(agent); known {
		def = AgentProfile{DisplayName: a.DisplayName, Vendor: a.Vendor, InstructionFormat: a.InstructionFormat,
			Style: Style(a.Style), MCPClients: a.MCPClients}
	}
	if p.DisplayName == "" {
		p.DisplayName = def.DisplayName
	}
	if p.Vendor == "" {
		p.Vendor = def.Vendor
	}
	if p.InstructionFormat == "" {
		p.InstructionFormat = def.InstructionFormat
	}
	if p.Style == "" {
		p.Style = def.Style
	}
	if len(p.MCPClients) == 0 {
		p.MCPClients = slices.Clone(def.MCPClients)
	}
	if p.Output == "" {
		p.Output = agents.Output(agent, p.InstructionFormat, string(p.Style))
	}
	return p
}

// Agents returns the names of the agents that have a profile, sorted.
func (d *Document) Agents() []string {
	names := make([]string, 0, len(d.AgentProfiles))
	for n := range d.AgentProfiles {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// AppliesTo reports whether guardrail g applies to agent.
func (g Guardrail) AppliesToAgent(agent string) bool {
	if len(g.AppliesTo) == 0 {
		return true
	}
	for _, a := range g.AppliesTo {
		if a == AllAgents || a == agent {
			return true
		}
	}
	return false
}

// AgentForClient maps an MCP clientInfo.name to an agent through the profiles'
// mcp_clients (with built-in defaults). It returns "" when nothing matches.
func (d *Document) AgentForClient(client string) string {
	client = strings.TrimSpace(client)
	if client == "" {
		return ""
	}
	for _, a := range d.Agents() {
		if slices.Contains(d.Resolved(a).MCPClients, client) {
			return a
		}
	}
	return ""
}

// Normalize fills defaults in place so that the document states everything
// explicitly: applies_to defaults to [all_agents], profiles get their
// built-in defaults, example repos get arch_tag from their pattern, and
// provenance source defaults to user. It is idempotent.
func (d *Document) Normalize() {
	for i := range d.Guardrails {
		g := &d.Guardrails[i]
		if len(g.AppliesTo) == 0 {
			g.AppliesTo = []string{AllAgents}
		}
		if g.Provenance.Source == "" {
			g.Provenance.Source = SourceUser
		}
	}
	for i := range d.Patterns.Custom {
		c := &d.Patterns.Custom[i]
		if c.Provenance.Source == "" {
			c.Provenance.Source = SourceUser
		}
		for j := range c.ExampleRepos {
			if c.ExampleRepos[j].ArchTag == "" {
				c.ExampleRepos[j].ArchTag = c.Name
			}
		}
	}
	for name := range d.AgentProfiles {
		d.AgentProfiles[name] = d.Resolved(name)
	}
}

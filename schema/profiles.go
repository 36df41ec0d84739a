package schema

import (
	"path"
	"slices"
	"strings"
)

// Instruction file names.
const (
	ClaudeMD = "CLAUDE.md"
	AgentsMD = "AGENTS.md"
)

// builtin holds the defaults for agents Bridle knows. A document that declares
// one of these profiles gets these values for every field it leaves empty.
var builtin = map[string]AgentProfile{
	"claude": {
		DisplayName: "Claude Code", Vendor: "Anthropic",
		InstructionFormat: ClaudeMD, Style: Reference, MCPClients: []string{"claude-code"},
	},
	"codex": {
		DisplayName: "Codex CLI", Vendor: "OpenAI",
		InstructionFormat: AgentsMD, Style: Reference, MCPClients: []string{"codex-mcp-client"},
	},
	"kimi": {
		DisplayName: "Kimi", Vendor: "Moonshot AI",
		InstructionFormat: AgentsMD, Style: Stepwise,
	},
	"deepseek": {
		DisplayName: "DeepSeek", Vendor: "DeepSeek",
		InstructionFormat: AgentsMD, Style: Stepwise,
	},
}

// BuiltinAgents lists the agents with built-in defaults, sorted.
func BuiltinAgents() []string {
	names := make([]string, 0, len(builtin))
	for n := range builtin {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

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
	def, known := builtin[agent]
	if !known {
		def = AgentProfile{DisplayName: agent, InstructionFormat: AgentsMD, Style: Reference}
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
		switch {
		case p.InstructionFormat == ClaudeMD:
			p.Output = ClaudeMD
		case p.Style == Stepwise:
			p.Output = path.Join("agents", agent, AgentsMD)
		default:
			p.Output = AgentsMD
		}
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

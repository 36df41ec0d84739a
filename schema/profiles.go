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
// harness, instruction format, style, display name, MCP client names and
// output path.
//
//   - The harness is the profile's harness, else the profile's name when
//     that is a known harness (claude, codex, gemini, …), else none.
//   - Display name, vendor, format, style and MCP client names come from
//     the registry entry of the profile's name when it has one, else from
//     its harness's entry (but for MCP client names: a second profile on
//     one harness is told apart only by its launch binding). A model the
//     registry renders stepwise (deepseek, kimi) named by model makes
//     stepwise the default style.
//   - Output layout, chosen so that no render overwrites another: the
//     harness's own instruction file when it has one (GEMINI.md,
//     .cursor/rules/bridle.mdc, …); else CLAUDE.md-format agents write
//     CLAUDE.md, AGENTS.md-format agents in reference style AGENTS.md and
//     stepwise agents agents/<agent>/AGENTS.md.
//
// A field the profile sets is kept. Validate reports any two agents that
// still resolve to the same path.
func (d *Document) Resolved(agent string) AgentProfile {
	p := d.AgentProfiles[agent]
	if p.Harness == "" {
		if a, ok := agents.Lookup(agent); ok && a.Harness != nil {
			p.Harness = agent
		}
	}
	def := AgentProfile{DisplayName: agent, InstructionFormat: AgentsMD, Style: Reference}
	if a, known := agents.Lookup(agent); known {
		def = AgentProfile{DisplayName: a.DisplayName, Vendor: a.Vendor, InstructionFormat: a.InstructionFormat,
			Style: Style(a.Style), MCPClients: a.MCPClients}
	} else if h, ok := agents.Lookup(p.Harness); ok {
		def.InstructionFormat, def.Style = h.InstructionFormat, Style(h.Style)
	}
	if p.Model != "" && modelStepwise(p.Model) {
		def.Style = Stepwise
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
		p.Output = agents.Output(agent, p.Harness, p.InstructionFormat, string(p.Style))
	}
	return p
}

// modelStepwise reports whether model names a model the registry renders
// stepwise: its name starts with such an entry's name (deepseek-chat,
// kimi-k2).
func modelStepwise(model string) bool {
	m := strings.ToLower(strings.TrimSpace(model))
	for _, a := range agents.All() {
		if a.Style == agents.Stepwise && strings.HasPrefix(m, a.Name) {
			return true
		}
	}
	return false
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
		p := d.Resolved(name)
		if p.Harness == name {
			// The default harness stays implicit, so that documents from
			// before harnesses keep their content hash (and their renders
			// stay current); Resolved fills it again.
			p.Harness = ""
		}
		d.AgentProfiles[name] = p
	}
}

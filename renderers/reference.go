package renderers

import (
	"fmt"
	"strings"

	"github.com/bridle-dev/bridle/schema"
)

// voice is what differs between the two reference-style formats.
type voice struct {
	title       string // first heading, %s = project name
	stackTitle  string
	cmdTitle    string
	convTitle   string
	rulesTitle  string
	mustPrefix  string // emphasis before a hard-instruction statement
	enfPrefix   string // emphasis before an enforcement statement
	sessionTool string // how to call Bridle's tools
}

// claudeMD renders CLAUDE.md in Claude Code's conventions: a concise project
// memory file with short sections, bullet lists and the IMPORTANT / YOU MUST
// emphasis Claude Code's documentation recommends for rules that must hold.
type claudeMD struct{}

func (claudeMD) Name() string { return "claude-md" }

// Fits CLAUDE.md-format agents.
func (claudeMD) Fits(p schema.AgentProfile) bool { return p.InstructionFormat == schema.ClaudeMD }

func (claudeMD) Render(in Input) []byte {
	return reference(in, voice{
		title:       "# %s — project rules for Claude",
		stackTitle:  "## Tech stack",
		cmdTitle:    "## Commands",
		convTitle:   "## Code conventions",
		rulesTitle:  "## Guardrails",
		mustPrefix:  "YOU MUST: ",
		enfPrefix:   "IMPORTANT: ",
		sessionTool: "the `bridle` MCP server",
	})
}

// agentsMD renders AGENTS.md as Codex reads it: plain sections an agent scans
// for setup, build and test commands, code style and rules, without
// Claude-specific emphasis.
type agentsMD struct{}

func (agentsMD) Name() string { return "agents-md" }

// Fits every other agent: AGENTS.md is the common format.
func (agentsMD) Fits(schema.AgentProfile) bool { return true }

func (agentsMD) Render(in Input) []byte {
	return reference(in, voice{
		title:       "# AGENTS.md — %s",
		stackTitle:  "## Stack",
		cmdTitle:    "## Build, test and lint",
		convTitle:   "## Code style and conventions",
		rulesTitle:  "## Rules",
		mustPrefix:  "",
		enfPrefix:   "",
		sessionTool: "the `bridle` MCP server",
	})
}

func projectName(doc *schema.Document) string {
	if doc.Project.Name != "" {
		return text(doc.Project.Name)
	}
	return text(doc.Project.ID)
}

func reference(in Input, v voice) []byte {
	d := in.Doc
	var b strings.Builder
	b.Grow(sizeHint(d))
	b.WriteString(Header(in))
	b.WriteByte('\n')
	fmt.Fprintf(&b, v.title+"\n\n", projectName(d))
	paragraphs(&b, d.Project.Overview)

	if len(d.Project.Stack) > 0 {
		b.WriteString(v.stackTitle + "\n\n")
		for _, s := range d.Project.Stack {
			b.WriteString("- " + lead(s) + "\n")
		}
		b.WriteByte('\n')
	}
	if len(d.Project.Commands) > 0 {
		b.WriteString(v.cmdTitle + "\n\n")
		for _, c := range d.Project.Commands {
			fmt.Fprintf(&b, "- %s: %s\n", lead(c.Name), code(c.Run))
		}
		b.WriteByte('\n')
	}
	if len(d.Project.Conventions) > 0 {
		b.WriteString(v.convTitle + "\n\n")
		for _, c := range d.Project.Conventions {
			fmt.Fprintf(&b, "- %s (`%s`)", lead(c.Statement), c.ID)
			if c.Rationale != "" {
				b.WriteString(" — why: " + text(c.Rationale))
			}
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}

	gs := guardrailsFor(d, in.Agent)
	nm := noMCP(in.Profile) // the harness cannot reach Bridle (Aider)
	b.WriteString(v.rulesTitle + "\n\n")
	if len(gs) == 0 {
		b.WriteString("No guardrails apply to this agent.\n\n")
	}
	for _, tier := range schema.Severities {
		tg := byTier(gs, tier)
		if len(tg) == 0 {
			continue
		}
		meaning := TierMeaning(tier)
		if tier == schema.Enforcement && nm {
			meaning = "Bridle enforces these where it is asked (its tools, its gateway); your harness cannot ask it, so nothing stops a breach here: treat each as a rule you must never break."
		}
		fmt.Fprintf(&b, "### %s (%s)\n\n%s\n\n", TierTitle(tier), tier, meaning)
		for _, g := range tg {
			prefix := ""
			switch tier {
			case schema.Enforcement:
				prefix = v.enfPrefix
			case schema.HardInstruction:
				prefix = v.mustPrefix
			}
			fmt.Fprintf(&b, "- **%s** — %s%s\n", g.ID, prefix, text(g.Statement))
			if g.Rationale != "" {
				b.WriteString("  - Why: " + text(g.Rationale) + "\n")
			}
			if tier == schema.Enforcement && !nm {
				if len(g.EnforcedBy) > 0 {
					fmt.Fprintf(&b, "  - Enforced by Bridle through the %s permission.\n", backticks(g.EnforcedBy))
				} else {
					b.WriteString("  - Enforced by Bridle.\n")
				}
			}
			b.WriteString(enforcedLine(g, in.Profile))
			switch {
			case g.ScopeApproval && nm:
				b.WriteString("  - Before any action beyond the task, ask the human and wait for the answer.\n")
			case g.ScopeApproval:
				b.WriteString("  - Before any action beyond the task, call `request_scope_approval` (action, reason, guardrail_id) and wait for the answer.\n")
			}
			b.WriteString("  - Origin: " + Origin(g.Provenance) + ".\n")
		}
		b.WriteByte('\n')
	}

	patterns(&b, d)
	session(&b, in, v)
	return []byte(strings.TrimRight(b.String(), "\n") + "\n")
}

func patterns(b *strings.Builder, d *schema.Document) {
	if len(d.Patterns.Standard) == 0 && len(d.Patterns.Custom) == 0 {
		return
	}
	b.WriteString("## Architecture patterns\n\n")
	if len(d.Patterns.Standard) > 0 {
		b.WriteString("Standard patterns in use: " + texts(d.Patterns.Standard, ", ") + ".\n\n")
	}
	for _, p := range d.Patterns.Custom {
		fmt.Fprintf(b, "### %s\n\n", p.Name)
		paragraphs(b, p.Description)
		if len(p.ExampleRepos) > 0 {
			fmt.Fprintf(b, "Examples (search them with `search_pattern_examples`, arch_tag `%s`):\n\n", archTag(p))
			for _, r := range p.ExampleRepos {
				fmt.Fprintf(b, "- `%s`: %s", r.ReferenceTag, text(r.URL))
				if r.Ref != "" {
					b.WriteString(" at " + code(r.Ref))
				}
				if len(r.Paths) > 0 {
					b.WriteString(", paths " + codes(r.Paths))
				}
				b.WriteByte('\n')
			}
			b.WriteByte('\n')
		}
	}
}

func archTag(p schema.CustomPattern) string {
	for _, r := range p.ExampleRepos {
		if r.ArchTag != "" {
			return r.ArchTag
		}
	}
	return p.Name
}

func session(b *strings.Builder, in Input, v voice) {
	b.WriteString("## Working with Bridle\n\n")
	if noMCP(in.Doc.Resolved(in.Agent)) {
		// The harness cannot reach Bridle: no tool to call, no
		// permission Bridle could check.
		b.WriteString("- Your harness has no MCP client, so it cannot reach Bridle: this file is all you get of the rules, as rendered.\n")
		b.WriteString("- Never edit this file. To change a rule, ask a human to propose the change (`bridle propose`); a maintainer approves it by merging.\n")
		return
	}
	fmt.Fprintf(b, "- At the start of each session, call `get_rules` on %s; its answer is the current version of this file.\n", v.sessionTool)
	b.WriteString("- Never edit this file. To change a rule, propose the change; a maintainer approves it by merging.\n")
	allowed, denied := permissions(in.Doc, in.Agent)
	if len(allowed) > 0 {
		b.WriteString("- You may: " + strings.Join(allowed, "; ") + ".\n")
	}
	if len(denied) > 0 {
		b.WriteString("- You may not: " + strings.Join(denied, "; ") + ". Bridle refuses these.\n")
	}
}

package renderers

import (
	"strings"

	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/schema"
)

// Harness names the agent harness a resolved profile's files are for: its
// harness (the profile's, or its name's: schema.Document.Resolved), or for a
// profile without one, the harness whose instruction file it renders, as
// before profiles named their harness: the root CLAUDE.md is Claude Code's,
// the root AGENTS.md in reference style Codex's. "" for none.
func Harness(p schema.AgentProfile) string {
	switch {
	case p.Harness != "":
		return p.Harness
	case p.InstructionFormat == schema.ClaudeMD && p.Output == schema.ClaudeMD:
		return "claude"
	case p.InstructionFormat == schema.AgentsMD && p.Style == schema.Reference && p.Output == schema.AgentsMD:
		return "codex"
	}
	return ""
}

// enforcedLine says, for a guardrail with enforce entries, what the agent's
// own harness enforces and what is left to the agent, so that a refusal
// does not surprise it. "" when the guardrail has none.
func enforcedLine(g *schema.Guardrail, p schema.AgentProfile) string {
	e := g.Enforce
	if e.IsZero() {
		return ""
	}
	var parts []string
	list := func(what string, items []string) {
		if len(items) > 0 {
			parts = append(parts, what+" "+codes(items))
		}
	}
	list("running", e.Commands.Forbid)
	forbidden := strings.Join(parts, "; ")
	parts = nil
	list("running", e.Commands.Ask)
	asks := strings.Join(parts, "; ")
	parts = nil
	list("reading", e.Paths.NoRead)
	list("writing", e.Paths.NoWrite)
	files := strings.Join(parts, "; ")

	var b strings.Builder
	// clause adds " Label: items." when there are items.
	clause := func(label, items string) {
		if items != "" {
			b.WriteString(" " + label + ": " + items + ".")
		}
	}
	switch NativeKindOf(p) {
	case ClaudeSettings:
		b.WriteString("  - Claude Code enforces this itself (permission rules and Bridle's hook in `.claude/settings.json`):")
		clause("Denied", forbidden)
		clause("Denied", files)
		clause("Asks the human first", asks)
	case CodexRules:
		if forbidden != "" || asks != "" {
			b.WriteString("  - Codex enforces the commands itself (`.codex/rules/bridle.rules`):")
			clause("forbidden", forbidden)
			clause("Needs approval", asks)
		}
		if files != "" {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString("  - Codex cannot enforce file rules: you must not be " + files + "; when unsure, call `check_path`.")
		}
	case AiderConf:
		b.WriteString("  - Nothing enforces this for you and you cannot ask Bridle: follow it yourself before any command or file access it covers.")
		clause("Forbidden", forbidden)
		clause("Ask the human first", asks)
		clause("Never", files)
	case hookKind(p):
		// What explain reports for these (hookReport): Bridle's hook, which
		// the rendering writes into the harness's settings, checks every
		// call; some hooks cannot ask, so what needs a person is refused.
		b.WriteString("  - " + harnessName(p) + " runs Bridle's hook (`bridle hook " + Harness(p) + "`) before each tool call, and it enforces this:")
		clause("Denied", forbidden)
		if hookCannotAsk(Harness(p)) {
			clause("Refused until the human agrees (ask them first)", asks)
		} else {
			clause("Asks the human first", asks)
		}
		clause("Denied", files)
	default:
		b.WriteString("  - Your harness does not enforce this; before any command or file access it covers, call `check_command` or `check_path` and obey the answer.")
		clause("Forbidden", forbidden)
		clause("Ask the human first", asks)
		clause("Never", files)
	}
	return b.String() + "\n"
}

// hookKind is NativeKindOf(p) when p's harness is enforced by Bridle's
// hook alone (its native rendering wires bridle hook; Claude Code's, which
// also writes permission rules, is described apart), else a kind no
// profile has, so that it can stand in a switch on NativeKindOf.
func hookKind(p schema.AgentProfile) NativeKind {
	k := NativeKindOf(p)
	a, ok := agents.Lookup(Harness(p))
	if k == "" || k == ClaudeSettings || !ok || a.Harness == nil || a.Harness.Hook == "" {
		return "-"
	}
	return k
}

// hookCannotAsk reports whether harness's hook cannot ask the person
// (agents.Harness.HookCannotAsk).
func hookCannotAsk(harness string) bool {
	a, ok := agents.Lookup(harness)
	return ok && a.Harness != nil && a.Harness.HookCannotAsk
}

// noMCP reports whether p's harness has no MCP client (Aider): its render
// then names none of Bridle's tools.
func noMCP(p schema.AgentProfile) bool {
	a, ok := agents.Lookup(Harness(p))
	return ok && a.Harness != nil && a.Harness.NoMCP
}

// harnessName is the display name of p's harness.
func harnessName(p schema.AgentProfile) string {
	if a, ok := agents.Lookup(Harness(p)); ok {
		return a.DisplayName
	}
	return p.DisplayName
}

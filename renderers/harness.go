package renderers

import (
	"strings"

	"github.com/bridle-dev/bridle/schema"
)

// Harness names the agent harness whose own mechanism Bridle renders a
// guardrail's enforce entries into, from the same registry that decides
// which native files are written (NativeKindOf): "claude" (Claude Code's
// permission rules and hook), "codex" (Codex's execpolicy rules), or "" for
// agents without one (Kimi, DeepSeek, a profile writing elsewhere, …).
func Harness(p schema.AgentProfile) string {
	switch NativeKindOf(p) {
	case ClaudeSettings:
		return "claude"
	case CodexRules:
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
	switch Harness(p) {
	case "claude":
		b.WriteString("  - Claude Code enforces this itself (permission rules and Bridle's hook in `.claude/settings.json`):")
		clause("Denied", forbidden)
		clause("Denied", files)
		clause("Asks the human first", asks)
	case "codex":
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
	default:
		b.WriteString("  - Your harness does not enforce this; before any command or file access it covers, call `check_command` or `check_path` and obey the answer.")
		clause("Forbidden", forbidden)
		clause("Ask the human first", asks)
		clause("Never", files)
	}
	return b.String() + "\n"
}

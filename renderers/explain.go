package renderers

import (
	"strings"

	"github.com/bridle-dev/bridle/enforce"
	"github.com/bridle-dev/bridle/internal/mdsafe"
	"github.com/bridle-dev/bridle/schema"
)

// Explanation describes what one agent receives.
type Explanation struct {
	Agent        string              `json:"agent"`
	DisplayName  string              `json:"display_name"`
	Renderer     string              `json:"renderer"`
	Path         string              `json:"path"`
	Bytes        int                 `json:"bytes"`
	Tokens       int                 `json:"tokens"` // approximate: bytes / 4
	Sections     []Section           `json:"sections"`
	Tiers        map[string][]string `json:"guardrails_by_tier"` // tier → ids, strongest first in Severities order
	NotApplied   []string            `json:"not_applied,omitempty"`
	Permissions  []string            `json:"permissions"`
	MCPClients   []string            `json:"mcp_clients,omitempty"`
	Instructions string              `json:"instruction_format"`
	Style        string              `json:"style"`
	// Unapproved lists the guardrails that apply to the agent whose current
	// text no approved merge produced.
	Unapproved []string `json:"unapproved,omitempty"`
	// Enforcement is the translation-loss report: how each enforce entry
	// that applies to the agent is enforced for it (native, hook or prose
	// only) and why.
	Enforcement []enforce.Translation `json:"enforcement,omitempty"`
}

// Section is one heading of a rendered file and the size of its text.
type Section struct {
	Heading string `json:"heading"`
	Level   int    `json:"level"`
	Bytes   int    `json:"bytes"`
}

// ApproxTokens estimates the tokens of text, at about four bytes a token.
func ApproxTokens(n int) int { return (n + 3) / 4 }

// Explain describes what agent receives from f, rendered from doc.
func Explain(doc *schema.Document, f File) Explanation {
	p := doc.Resolved(f.Agent)
	e := Explanation{
		Agent: f.Agent, DisplayName: p.DisplayName, Renderer: f.Renderer, Path: f.Path,
		Bytes: len(f.Content), Tokens: ApproxTokens(len(f.Content)),
		Tiers: map[string][]string{}, MCPClients: p.MCPClients,
		Instructions: p.InstructionFormat, Style: string(p.Style),
	}
	var cur *Section
	inHeader := false
	fenced := mdsafe.Fenced(f.Content) // a "# comment" in a code block in prose is not a section
	i := -1
	for line := range strings.Lines(f.Content) {
		i++
		switch {
		case i < len(fenced) && fenced[i]:
		case strings.HasPrefix(line, "<!--"):
			inHeader = !strings.Contains(line, "-->")
			continue
		case inHeader:
			inHeader = !strings.Contains(line, "-->")
			continue
		case strings.HasPrefix(line, "#"):
			level := len(line) - len(strings.TrimLeft(line, "#"))
			e.Sections = append(e.Sections, Section{Heading: strings.TrimSpace(line[level:]), Level: level})
			cur = &e.Sections[len(e.Sections)-1]
		}
		if cur != nil {
			cur.Bytes += len(line)
		}
	}
	for _, g := range doc.Guardrails {
		if g.AppliesToAgent(f.Agent) {
			e.Tiers[string(g.Severity)] = append(e.Tiers[string(g.Severity)], g.ID)
			if g.Provenance.Unapproved != "" {
				e.Unapproved = append(e.Unapproved, g.ID)
			}
		} else {
			e.NotApplied = append(e.NotApplied, g.ID)
		}
	}
	perms := doc.Permissions[f.Agent]
	for _, n := range schema.PermissionNames {
		if perms.Allows(n) {
			e.Permissions = append(e.Permissions, n)
		}
	}
	return e
}

// ExplainAll is Explain with what the agent's own harness enforces of the
// guardrails' enforce entries (or, for a harness Bridle has no translation
// for, what Bridle's tools check instead).
func ExplainAll(doc *schema.Document, f File) (Explanation, error) {
	e := Explain(doc, f)
	rules, err := enforce.New(doc, f.Agent)
	if err != nil {
		return e, err
	}
	target := Harness(doc.Resolved(f.Agent))
	if target == "" {
		target = enforce.TargetOther
	}
	for _, t := range rules.Report() {
		if t.Target == target {
			e.Enforcement = append(e.Enforcement, t)
		}
	}
	return e, nil
}

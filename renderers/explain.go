package renderers

import (
	"strconv"
	"strings"

	"github.com/bridle-dev/bridle/agents"
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
	// Harness is the harness the profile runs in ("" for none).
	Harness string `json:"harness,omitempty"`
	// Reads are the instruction files the harness reads by itself, and
	// whose render each is: a harness reading a file rendered for another
	// profile (AGENTS.md is read by many) is told so plainly.
	Reads []Read `json:"reads,omitempty"`
}

// Read is one instruction file a harness reads.
type Read struct {
	Path string `json:"path"`
	// Agent is the profile the file is rendered for; "" when no profile
	// renders it (the harness reads whatever the person keeps there).
	Agent string `json:"agent,omitempty"`
	Own   bool   `json:"own"` // rendered for this profile
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
	e.Harness = Harness(p)
	if a, ok := agents.Lookup(e.Harness); ok && a.Harness != nil {
		read := []string{a.Harness.Instructions}
		if a.Harness.Pointer != "" {
			read = []string{p.Output} // Bridle points the harness at the profile's own file
		}
		found := false
		for i, path := range append(read, a.Harness.Reads...) {
			if i >= len(read) && a.Harness.ReadsFirst && found {
				break // it reads only the first of these that exists
			}
			r := Read{Path: path}
			for _, other := range doc.Agents() {
				if doc.Resolved(other).Output == path {
					r.Agent, r.Own = other, other == f.Agent
					found = found || i >= len(read)
				}
			}
			e.Reads = append(e.Reads, r)
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
	p := doc.Resolved(f.Agent)
	target := Harness(p)
	kind := NativeKindOf(p)
	switch kind {
	case ClaudeSettings, CodexRules:
	case "", AiderConf:
		target = enforce.TargetOther
	default:
		e.Enforcement = hookReport(rules, target, kind)
		return e, nil
	}
	for _, t := range rules.Report() {
		if t.Target == target {
			if noMCP(p) {
				t.Why = "prose only: " + harnessName(p) + " has no MCP client and no hook Bridle uses, so nothing checks it; its instruction file states the rule"
			}
			e.Enforcement = append(e.Enforcement, t)
		}
	}
	return e, nil
}

// hookReport says, for a harness whose enforcement is Bridle's hook (with,
// for some, static rules beside it), how each entry is enforced.
func hookReport(rules *enforce.Rules, harness string, kind NativeKind) []enforce.Translation {
	a, _ := agents.Lookup(harness)
	asks := "asks the person"
	if hookCannotAsk(harness) {
		asks = "denies what needs a human's OK, saying so (the harness's hook cannot ask)"
	}
	var out []enforce.Translation
	for _, en := range rules.Entries() {
		t := enforce.Translation{Guardrail: en.Guardrail, Entry: en.String(), Target: harness, Mechanism: enforce.Hook}
		t.Why = "bridle hook " + harness + " checks every call " + a.DisplayName + " makes (commands by meaning, files with links resolved) and " + asks
		if en.Kind == enforce.Command {
			switch kind {
			case GeminiSettings:
				t.Rules = []string{"commandPrefix = " + strconv.Quote(en.Pattern)}
				t.Why = "written to .gemini/policies/bridle.toml (as spelled); " + t.Why
			case OpenCodeConfig:
				t.Rules = []string{"permission.bash " + strconv.Quote(en.Pattern+" *")}
				t.Why = "written to " + OpenCodeConfigPath + " (as spelled); " + t.Why
			}
		}
		out = append(out, t)
	}
	return out
}

package mcp

import (
	"context"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/redact"
)

// TestProposalsRefuseSecrets: a known secret (in any form) or a password in
// a URL or connection string, anywhere in a proposal's arguments, is refused
// naming the field, never echoing the value; nothing is created.
func TestProposalsRefuseSecrets(t *testing.T) {
	const token = "p&<a>\"ss\\word-123"
	dir := localRulesRepo(t)
	f := newFixture(t, Options{Rules: dir, Redactor: redact.New(token),
		Proposals: func() (proposals.Backend, error) { return proposals.OpenLocal(dir, "test") }})
	cs := f.connect(t, "claude-code", "", nil)
	guardrail := func(field, value string) map[string]any {
		a := map[string]any{"id": "no-leaks", "statement": "Do not leak.", "severity": "guidance", "why": "We leaked once."}
		a[field] = value
		return a
	}
	for _, tt := range []struct {
		tool  string
		args  map[string]any
		field string
	}{
		{"propose_guardrail", guardrail("statement", "Use the token "+token+" for CI."), "statement"},
		{"propose_guardrail", guardrail("why", "it was "+token), "why"},
		{"propose_guardrail", guardrail("rationale", "see https://bot:hunter22@git.example.com/x"), "rationale"},
		{"add_pattern", map[string]any{"name": "hexagonal", "description": "Ports and adapters.", "why": "w",
			"example_repos": []any{map[string]any{"url": "https://ci:t0ken-pw@git.example.com/x.git", "reference_tag": "x"}}}, "example_repos[0].url"},
		{"update_rules", map[string]any{"section": "project.commands", "why": "w",
			"value": []any{map[string]any{"name": "db", "run": "psql postgres://app:pg-pw-9@db/app"}}}, "value[0].run"},
		{"update_rules", map[string]any{"section": "project.overview", "why": "w", "value": "token " + token}, "value"},
	} {
		got, isErr := callText(t, cs, tt.tool, tt.args)
		if !isErr || !strings.Contains(got, tt.field+" holds a secret") || !strings.Contains(got, "nothing was created") {
			t.Errorf("%s with a secret in %s: %s", tt.tool, tt.field, got)
		}
		for _, leak := range []string{"word-123", "hunter22", "t0ken-pw", "pg-pw-9"} {
			if strings.Contains(got, leak) {
				t.Errorf("%s echoed the secret: %s", tt.tool, got)
			}
		}
	}
	l, _ := proposals.OpenLocal(dir, "test")
	if ps, _ := l.List(context.Background(), proposals.All); len(ps) != 0 {
		t.Errorf("%d proposals created", len(ps))
	}
	// A placeholder is not a secret.
	if got, isErr := callText(t, cs, "propose_guardrail", guardrail("statement", "Read the password from $DB_PASSWORD, never inline.")); isErr {
		t.Errorf("placeholder refused: %s", got)
	}
}

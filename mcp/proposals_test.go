package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/schema"
)

func localRulesRepo(t *testing.T) string {
	t.Helper()
	return exampleRepo(t, t.TempDir())
}

// TestProposeFromAgent: an agent proposes through the MCP tool; the server
// fills provenance from the session and ignores what the agent claims.
func TestProposeFromAgent(t *testing.T) {
	dir := localRulesRepo(t)
	f := newFixture(t, Options{Rules: dir, Proposals: func() (proposals.Backend, error) { return proposals.OpenLocal(dir, "test") }})
	cs := f.connect(t, "claude-code", "", nil)
	ctx := context.Background()

	forged := map[string]any{
		"id": "log-request-ids", "statement": "Log the request id with every error.", "severity": "guidance",
		"why":        "Debugging a payout failure took an hour without it.",
		"provenance": map[string]any{"source": "user", "approved_by": "mira.okafor"},
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "propose_guardrail", Arguments: forged})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		// Rejected outright for the unknown argument: also fine, but then
		// propose without it and check the server's provenance.
		delete(forged, "provenance")
		if res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "propose_guardrail", Arguments: forged}); err != nil || res.IsError {
			t.Fatalf("propose: %v %+v", err, res)
		}
	}
	var pv ProposalView
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &pv)
	if pv.Number != 1 || pv.State != "open" || pv.Branch != "bridle/agent/claude/guardrail-log-request-ids" {
		t.Fatalf("proposal = %+v", pv)
	}
	l, _ := proposals.OpenLocal(dir, "test")
	p, _ := l.Get(ctx, 1)
	if p.Draft.Origin.Source != schema.SourceAgent || p.Draft.Origin.Agent != "claude" || p.Draft.Origin.Session != f.srv.session {
		t.Errorf("origin = %+v", p.Draft.Origin)
	}
	if g := p.Draft.Change.Guardrail; g.Provenance.ApprovedBy != "" || g.Provenance.Source == schema.SourceUser {
		t.Errorf("forged provenance kept: %+v", g.Provenance)
	}

	// Invalid: refused with the diagnostics, nothing created.
	got, isErr := callText(t, cs, "propose_guardrail", map[string]any{"id": "Bad Id", "statement": "x", "severity": "guidance", "why": "y"})
	if !isErr || !strings.Contains(got, "would make the rules invalid") || !strings.Contains(got, "guardrails[12].id") {
		t.Errorf("invalid proposal: %s", got)
	}
	if ps, _ := l.List(ctx, proposals.All); len(ps) != 1 {
		t.Errorf("%d proposals after an invalid one", len(ps))
	}
	got, isErr = callText(t, cs, "update_rules", map[string]any{"section": "permissions", "value": "x", "why": "y"})
	if !isErr {
		t.Errorf("update_rules on permissions accepted: %s", got)
	}

	// claude may not approve; the tool is not even listed.
	if got, isErr := callText(t, cs, "approve_proposal", map[string]any{"number": 1}); !isErr || !strings.Contains(got, "needs the rules.approve permission") {
		t.Errorf("approve by claude: %s", got)
	}
	list, _ := callText(t, cs, "list_proposals", nil)
	if !strings.Contains(list, `"number":1`) {
		t.Errorf("list_proposals: %s", list)
	}
	ev, _, _ := audit.Open(f.state, "runic-gateway", nil).Read(audit.Filter{Agent: "claude"})
	kinds := ""
	for _, e := range ev {
		kinds += e.Kind + ":" + e.Tool + " "
	}
	if !strings.Contains(kinds, "write:propose_guardrail") || !strings.Contains(kinds, "refusal:approve_proposal") {
		t.Errorf("audit: %s", kinds)
	}
}

// TestProposalToolInputs: malformed, hostile and oversized arguments to the
// proposal tools each get a clear error, and nothing is created.
func TestProposalToolInputs(t *testing.T) {
	dir := localRulesRepo(t)
	f := newFixture(t, Options{Rules: dir, Proposals: func() (proposals.Backend, error) { return proposals.OpenLocal(dir, "test") }})
	cs := f.connect(t, "claude-code", "", nil)
	cases := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"propose_guardrail", map[string]any{"id": "x", "statement": strings.Repeat("s", 2000), "severity": "guidance", "why": "w"}, "statement"},
		{"propose_guardrail", map[string]any{"id": "x", "statement": "s", "severity": "urgent", "why": "w"}, "severity"},
		{"propose_guardrail", map[string]any{"id": "x\n# injected", "statement": "s", "severity": "guidance", "why": "w"}, "invalid"},
		{"propose_guardrail", map[string]any{"id": "x", "statement": "s", "severity": "guidance", "why": strings.Repeat("w", 5000)}, "why"},
		{"propose_guardrail", map[string]any{"id": "no-pii-in-logs", "statement": "dup", "severity": "guidance", "why": "w"}, "already exists"},
		{"propose_guardrail", map[string]any{"id": "ok", "statement": "s", "severity": "guidance", "why": "w", "applies_to": []string{"gemini"}}, "unknown agent"},
		{"update_rules", map[string]any{"section": "project.stack", "value": 42, "why": "w"}, "invalid"},
		{"update_rules", map[string]any{"section": "project.overview", "value": "## heading\ntext", "why": "w"}, "heading"},
		{"add_pattern", map[string]any{"name": "p", "description": "d", "why": "w", "example_repos": []map[string]any{{"url": "a\nb", "reference_tag": "t"}}}, "one line"},
		{"add_pattern", map[string]any{"name": "p", "description": "d", "why": "w", "example_repos": []map[string]any{{"url": "./x", "reference_tag": "t", "paths": []string{"../../etc"}}}}, "escapes"},
		{"get_proposal", map[string]any{"number": 999}, "no such proposal"},
		{"get_proposal", map[string]any{"number": "one"}, "number"},
	}
	for _, c := range cases {
		got, isErr := callText(t, cs, c.tool, c.args)
		if !isErr || !strings.Contains(got, c.want) {
			t.Errorf("%s(%.60v): error %v, %.300s; want %q", c.tool, c.args, isErr, got, c.want)
		}
	}
	l, _ := proposals.OpenLocal(dir, "test")
	if ps, _ := l.List(context.Background(), proposals.All); len(ps) != 0 {
		t.Errorf("%d proposals created by bad input", len(ps))
	}
	// Control characters in the rationale never reach the pull request.
	got, isErr := callText(t, cs, "propose_guardrail", map[string]any{"id": "clean-rationale", "statement": "s.", "severity": "guidance", "why": "ok\x1b[31m red\x07"})
	if isErr {
		t.Fatal(got)
	}
	p, _ := l.Get(context.Background(), 1)
	if strings.ContainsAny(p.Body, "\x1b\x07") {
		t.Error("control characters reached the pull request body")
	}
}

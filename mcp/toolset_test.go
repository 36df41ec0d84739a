package mcp

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func listedNames(t *testing.T, cs *sdk.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// TestUnconfiguredToolsets: a toolset whose service is not set up (here
// memory and patterns: no store) is absent from tools/list and refused on
// tools/call, saying so; the configured ones are served as ever.
func TestUnconfiguredToolsets(t *testing.T) {
	f := newFixture(t, Options{Proposals: noProposals})
	want := []string{"add_pattern", "check_command", "check_path", "get_guardrail", "get_proposal", "get_rules",
		"list_guardrails", "list_proposals", "propose_guardrail", "request_scope_approval", "update_rules"}
	for _, p := range protocols {
		cs := f.connect(t, "claude-code", p, nil)
		if diff := cmp.Diff(want, listedNames(t, cs)); diff != "" {
			t.Errorf("%q: tools/list (-want +got):\n%s", p, diff)
		}
		for name, toolset := range map[string]string{"recall": "memory", "remember": "memory", "search_pattern_examples": "patterns"} {
			got, isErr := callText(t, cs, name, map[string]any{"query": "ledger", "text": "x", "kind": "note"})
			if !isErr || !strings.Contains(got, name+" is not available: the "+toolset+" toolset is not set up on this server") {
				t.Errorf("%q: %s: %v %s", p, name, isErr, got)
			}
		}
		if got, isErr := callText(t, cs, "list_proposals", nil); !isErr || !strings.Contains(got, "test: no proposal backend") {
			t.Errorf("%q: list_proposals reached its backend? %v %s", p, isErr, got)
		}
	}
}

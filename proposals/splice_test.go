package proposals

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/splice")

// TestApplyKeepsTheFormatting: a proposal's change to a hand-formatted
// document (comments, aligned line comments, blank lines, quoted URLs, flow
// collections) changes only the lines the change needs. Each golden is the
// line diff between the document and the changed one: nothing else moves.
func TestApplyKeepsTheFormatting(t *testing.T) {
	src, err := os.ReadFile("testdata/splice/hand.yaml")
	if err != nil {
		t.Fatal(err)
	}
	user := Origin{Source: schema.SourceUser, Author: "Mira Rossi"}
	tests := []struct {
		name   string
		change Change
	}{
		{"add-guardrail", Change{Kind: KindGuardrail, Guardrail: &schema.Guardrail{ID: "no-secrets", Statement: "Never print a secret.", Severity: schema.Guidance}}},
		{"add-enforce", Change{Kind: KindGuardrail, Guardrail: &schema.Guardrail{ID: "no-rm-rf", Statement: "Never delete recursively.", Severity: schema.HardInstruction,
			Enforce: schema.Enforce{Commands: schema.CommandRules{Forbid: []string{"rm -rf", "git push --force"}}, Paths: schema.PathRules{NoWrite: []string{".env"}}}}}},
		{"edit-overview", Change{Kind: KindRules, Section: "project.overview", Value: "Acme sells anvils.\nNothing is deployed on Fridays.\n"}},
		{"edit-name", Change{Kind: KindRules, Section: "project.name", Value: "Acme Anvils"}},
		{"edit-stack", Change{Kind: KindRules, Section: "project.stack", Value: []any{"Go", "PostgreSQL", "Redis"}}},
		{"edit-standard", Change{Kind: KindRules, Section: "patterns.standard", Value: []any{"Errors are wrapped with %w.", "Logs are structured."}}},
		{"add-pattern", Change{Kind: KindPattern, Pattern: &schema.CustomPattern{Name: "fakes", Description: "Unit tests use fakes of real APIs."}}},
		{"replace-pattern", Change{Kind: KindPattern, Pattern: &schema.CustomPattern{Name: "table-tests", Description: "Tests are table-driven, one row per case."}}},
		{"profile-vendor", Change{Kind: KindVendor, Vendor: &VendorUpdate{Agent: "claude",
			Add:      []schema.VendorSuggestion{{ID: "plan-first", Statement: "Plan before a large change.", Source: "https://docs.anthropic.com/en/docs/claude-code/memory"}},
			Withdraw: []string{"run-the-tests"}}}},
		{"profile-remove", Change{Kind: KindVendor, Vendor: &VendorUpdate{Agent: "claude", Dismiss: []string{"read-before-edit"}}}},
		{"profile-new-list", Change{Kind: KindVendor, Vendor: &VendorUpdate{Agent: "codex",
			Add: []schema.VendorSuggestion{{ID: "sandbox", Statement: "Stay in the sandbox."}}}}},
		{"promote", Change{Kind: KindPromote, Promote: &Promotion{Agent: "claude", Suggestion: "read-before-edit"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Apply(src, tt.change, user)
			if err != nil {
				t.Fatal(err)
			}
			got := lineDiff(string(src), string(out))
			golden := filepath.Join("testdata", "splice", tt.name+".diff")
			if *update {
				os.WriteFile(golden, []byte(got), 0o644)
			}
			want, _ := os.ReadFile(golden)
			if got != string(want) {
				t.Errorf("the change's diff (-update rewrites %s):\n%s\nwant:\n%s", golden, got, want)
			}
			if again, err := Apply(src, tt.change, user); err != nil || string(again) != string(out) {
				t.Errorf("a second Apply differs")
			}
		})
	}
}

// lineDiff is a minimal line diff of a and b: "-" removed, "+" added, each
// hunk headed by the line number in a.
func lineDiff(a, b string) string {
	x, y := strings.SplitAfter(a, "\n"), strings.SplitAfter(b, "\n")
	// lcs[i][j] is the longest common subsequence of x[i:] and y[j:].
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	i, j, inHunk := 0, 0, false
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			i, j, inHunk = i+1, j+1, false
			continue
		case !inHunk:
			fmt.Fprintf(&out, "@@ line %d\n", i+1)
			inHunk = true
		}
		if j < len(y) && (i == len(x) || lcs[i][j+1] >= lcs[i+1][j]) {
			out.WriteString("+" + strings.TrimSuffix(y[j], "\n") + "\n")
			j++
		} else {
			out.WriteString("-" + strings.TrimSuffix(x[i], "\n") + "\n")
			i++
		}
	}
	return out.String()
}

// TestProposalsMadeBeforeSplicing: a branch Bridle wrote before changes were
// spliced into the text holds the whole document re-encoded; its recorded
// change still verifies (it can be approved and rebased), while a hand
// edit on top of either form is still tampering.
func TestProposalsMadeBeforeSplicing(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "splice", "hand.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	d := Draft{Change: Change{Kind: KindGuardrail, Rationale: "We lost work.",
		Guardrail: &schema.Guardrail{ID: "no-secrets-in-logs", Statement: "Never log a secret.", Severity: schema.HardInstruction}},
		Origin: Origin{Source: schema.SourceAgent, Agent: "claude", Session: "s1"}}
	msg := message("Add guardrail no-secrets-in-logs", d)
	spliced, err := Apply(src, d.Change, d.Origin)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := applyReencoded(src, d.Change, d.Origin)
	if err != nil || string(whole) == string(spliced) {
		t.Fatalf("the re-encoded form is not another text: %v", err)
	}
	for name, after := range map[string][]byte{"spliced": spliced, "re-encoded (older Bridle)": whole} {
		if _, err := recorded(msg, src, after); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		edited := []byte(strings.Replace(string(after), "Never log a secret.", "Always log a secret.", 1))
		if _, err := recorded(msg, src, edited); !errors.Is(err, ErrTampered) {
			t.Errorf("%s, edited by hand: %v, want ErrTampered", name, err)
		}
	}
}

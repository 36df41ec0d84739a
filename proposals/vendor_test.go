package proposals

import (
	"context"
	"errors"
	"github.com/bridle-dev/bridle/actor"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/schema"
)

// TestVendorUpdate: a vendor's suggestions arrive as one proposal (source
// vendor) a human approves; they are then profile data, not policy; an
// earlier one can be withdrawn or dismissed, a dismissed one is never
// promoted, a pending one is — with the document and its hash in the
// guardrail's provenance.
func TestVendorUpdate(t *testing.T) {
	dir, _ := rulesRepo(t)
	l, _ := OpenLocal(dir, "test")
	svc := Service{Backend: l}
	ctx := context.Background()
	vendor := Origin{Source: schema.SourceVendor, Agent: "claude", Author: "jonas"}
	add := Change{Kind: KindVendor, Rationale: "bridle vendor sync", Vendor: &VendorUpdate{Agent: "claude", Add: []schema.VendorSuggestion{
		{ID: "ask-before-large-changes", Statement: "Ask before large changes.", Severity: schema.Guidance,
			Source: "https://docs.example.com/memory.md", DocumentHash: "sha256:abc", Section: "Memory > Rules", Excerpt: "Ask before large changes."},
		{ID: "keep-tests-green", Statement: "Keep the tests green.", Severity: schema.HardInstruction, Source: "https://docs.example.com/memory.md"},
	}}}
	p, err := svc.Propose(ctx, Draft{Change: add, Origin: vendor})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Title, "Vendor suggestions for claude: 2 new") || !strings.Contains(p.Body, "Ask before large changes.") {
		t.Errorf("title %q, body:\n%s", p.Title, p.Body)
	}
	if _, err := svc.Approve(ctx, p.Number, Principal{Actor: actor.AgentOf("", "codex", "")}); !errors.Is(err, ErrAgentApproval) {
		t.Errorf("an agent approved a vendor proposal: %v", err)
	}
	if _, err := svc.Approve(ctx, p.Number, Principal{Actor: actor.Git("mira", "")}); err != nil {
		t.Fatal(err)
	}
	snap, _, err := compiler.Compile(compiler.Options{Rules: dir, Ref: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if got := snap.Document.AgentProfiles["claude"].VendorGuardrailSuggestions; len(got) != 3 { // the example's one, and two
		t.Fatalf("suggestions after approval: %+v", got)
	}
	for _, g := range snap.Document.Guardrails {
		if g.ID == "ask-before-large-changes" {
			t.Error("a suggestion became a guardrail without a promotion")
		}
	}
	// The same suggestion again is a conflict; withdrawing an unknown one too.
	if _, err := svc.Propose(ctx, Draft{Change: add, Origin: vendor}); !errors.Is(err, ErrConflict) {
		t.Errorf("adding a suggestion twice: %v", err)
	}
	if _, err := svc.Propose(ctx, Draft{Change: Change{Kind: KindVendor, Vendor: &VendorUpdate{Agent: "claude", Withdraw: []string{"nope"}}}, Origin: vendor}); !errors.Is(err, ErrConflict) {
		t.Errorf("withdrawing an unknown suggestion: %v", err)
	}
	if _, err := svc.Propose(ctx, Draft{Change: Change{Kind: KindVendor, Vendor: &VendorUpdate{Agent: "claude"}}, Origin: vendor}); !errors.Is(err, ErrNoChange) {
		t.Errorf("an empty update: %v", err)
	}
	user := Origin{Source: schema.SourceUser, Author: "mira"}
	d, err := svc.Propose(ctx, Draft{Change: Change{Kind: KindVendor, Rationale: "not for us", Vendor: &VendorUpdate{Agent: "claude", Dismiss: []string{"keep-tests-green"}}}, Origin: user})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Approve(ctx, d.Number, Principal{Actor: actor.Git("jonas", "")}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Propose(ctx, Draft{Change: Change{Kind: KindPromote, Promote: &Promotion{Agent: "claude", Suggestion: "keep-tests-green"}}, Origin: user}); !errors.Is(err, ErrBadInput) {
		t.Errorf("promoting a dismissed suggestion: %v", err)
	}
	pr, err := svc.Propose(ctx, Draft{Change: Change{Kind: KindPromote, Promote: &Promotion{Agent: "claude", Suggestion: "ask-before-large-changes"}}, Origin: user})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Approve(ctx, pr.Number, Principal{Actor: actor.Git("jonas", "")}); err != nil {
		t.Fatal(err)
	}
	snap, _, _ = compiler.Compile(compiler.Options{Rules: dir, Ref: "main"})
	var promoted *schema.Guardrail
	for i, g := range snap.Document.Guardrails {
		if g.ID == "ask-before-large-changes" {
			promoted = &snap.Document.Guardrails[i]
		}
	}
	if promoted == nil || promoted.Provenance.Source != schema.SourceVendor || promoted.Provenance.Document != "https://docs.example.com/memory.md" ||
		promoted.Provenance.DocumentHash != "sha256:abc" || promoted.Provenance.ApprovedBy != "jonas" {
		t.Errorf("promoted guardrail: %+v", promoted)
	}
}

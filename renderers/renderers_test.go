package renderers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/schema"
)

func TestOrigin(t *testing.T) {
	tests := []struct {
		p    schema.Provenance
		want string
	}{
		{schema.Provenance{}, "project policy; approval not recorded"},
		// Approval fields the file claims are never shown as an approval.
		{schema.Provenance{Source: schema.SourceUser, ProposedBy: "ann", ApprovedBy: "bob", ApprovedAt: "2026-01-02T03:04:05Z"},
			"project policy, proposed by ann; approval unverified (the rules file claims: approved by bob on 2026-01-02)"},
		{schema.Provenance{Source: schema.SourceAgent, Agent: "claude", AgentSession: "s1", PullRequest: "12", ApprovedBy: "bob"},
			"proposed by agent claude (session s1); approval unverified (the rules file claims: approved by bob via proposal #12)"},
		{schema.Provenance{Source: schema.SourceVendor, Vendor: "Acme", Agent: "kimi", PullRequest: "https://x/pulls/3"},
			"suggested by Acme for kimi; approval unverified (the rules file claims: via proposal https://x/pulls/3)"},
		// What the history proved.
		{schema.Provenance{Source: schema.SourceUser, ProposedBy: "ann", ApprovedBy: "bob", ApprovedAt: "2026-01-02T03:04:05Z", PullRequest: "4", Verified: true},
			"project policy, proposed by ann, via proposal #4; approved by bob on 2026-01-02"},
		{schema.Provenance{Source: schema.SourceAgent, Agent: "claude", AgentSession: "s1", PullRequest: "12", ApprovedBy: "bob", Verified: true},
			"proposed by agent claude (session s1), via proposal #12; approved by bob"},
		{schema.Provenance{Source: schema.SourceUser, ProposedBy: "ann", Verified: true, Baseline: "0123456789abcdef"},
			"project policy, proposed by ann; in the owner's baseline (commit 0123456789ab)"},
		{schema.Provenance{Source: schema.SourceUser, ApprovedBy: "forged", Unapproved: "a direct commit to main, not an approved proposal (commit 0123456789ab)"},
			"project policy; NOT APPROVED: a direct commit to main, not an approved proposal (commit 0123456789ab)"},
	}
	for _, tt := range tests {
		if got := Origin(tt.p); got != tt.want {
			t.Errorf("Origin(%+v) = %q, want %q", tt.p, got, tt.want)
		}
	}
}

func TestRegistry(t *testing.T) {
	doc := &schema.Document{AgentProfiles: map[string]schema.AgentProfile{
		"claude": {}, "codex": {}, "kimi": {}, "deepseek": {}, "other": {}, "loud": {Style: schema.Stepwise},
	}}
	want := map[string]string{
		"claude": "claude-md", "codex": "agents-md", "kimi": "agents-md-stepwise",
		"deepseek": "agents-md-stepwise", "other": "agents-md", "loud": "agents-md-stepwise",
	}
	for agent, name := range want {
		if got := For(doc.Resolved(agent)).Name(); got != name {
			t.Errorf("%s: renderer %s, want %s", agent, got, name)
		}
	}
	if len(Names()) != 3 {
		t.Errorf("Names() = %v", Names())
	}
	if _, err := Render(doc, "nobody", Meta{}); err == nil {
		t.Error("rendering for an agent without a profile succeeded")
	}
}

// TestStepwiseDiffersInSubstance: the stepwise render is a procedure with
// numbered rules, not the reference document with another header.
func TestStepwiseDiffersInSubstance(t *testing.T) {
	doc := &schema.Document{
		Project: schema.Project{ID: "p", Commands: []schema.Command{{Name: "test", Run: "go test ./..."}}},
		Guardrails: []schema.Guardrail{
			{ID: "scope", Statement: "Stay in scope.", Severity: schema.HardInstruction, ScopeApproval: true},
			{ID: "nosecrets", Statement: "No secrets.", Severity: schema.Enforcement, EnforcedBy: []string{"secrets.read"}},
		},
		AgentProfiles: map[string]schema.AgentProfile{"codex": {}, "kimi": {}},
	}
	codex, _ := Render(doc, "codex", Meta{})
	kimi, _ := Render(doc, "kimi", Meta{})
	for _, s := range []string{"## Step 2 — Before each change", "If NO: STOP. Call `request_scope_approval`",
		"**R1** `scope`", "**E1** `nosecrets`", "You do NOT have `secrets.read`", "Run the test command: `go test ./...`"} {
		if !strings.Contains(kimi.Content, s) {
			t.Errorf("stepwise render lacks %q", s)
		}
		if strings.Contains(codex.Content, s) {
			t.Errorf("reference render has stepwise text %q", s)
		}
	}
}

func TestCheckStates(t *testing.T) {
	doc := &schema.Document{Project: schema.Project{ID: "p"}, AgentProfiles: map[string]schema.AgentProfile{"claude": {}}}
	f, _ := Render(doc, "claude", Meta{ContentHash: "sha256:aa", Commit: "c1"})
	moved, _ := Render(doc, "claude", Meta{ContentHash: "sha256:aa", Commit: "c2"})
	other, _ := Render(doc, "claude", Meta{ContentHash: "sha256:bb", Commit: "c2"})
	tests := []struct {
		disk string
		want State
	}{
		{f.Content, Current},
		{moved.Content, Current}, // a new commit with the same rules is not stale
		{other.Content, Stale},
		{f.Content + "extra\n", Edited},
		{"# my own file\n", Edited},
	}
	for i, tt := range tests {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte(tt.disk), 0o644)
		fs, err := Check(dir, []File{f})
		if err != nil {
			t.Fatal(err)
		}
		if len(fs) != 1 || fs[0].State != tt.want {
			t.Errorf("case %d: %+v, want %s", i, fs, tt.want)
		}
	}
}

func TestWriteIsAtomicAndIdempotent(t *testing.T) {
	dir := t.TempDir()
	files := []File{{Agent: "kimi", Path: "agents/kimi/AGENTS.md", Content: "x\n"}}
	if _, err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "agents", "kimi", "AGENTS.md")
	st1, _ := os.Stat(p)
	if _, err := Write(dir, files); err != nil {
		t.Fatal(err)
	}
	st2, _ := os.Stat(p)
	if !st1.ModTime().Equal(st2.ModTime()) {
		t.Error("an unchanged file was rewritten")
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

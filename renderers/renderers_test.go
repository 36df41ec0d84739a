package renderers

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/internal/mdsafe/mdtest"
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

// hostileText is text meant to break out of its place in a render. The
// schema refuses most of it; the renderers must keep the structure anyway,
// for documents that never passed validation.
var hostileText = []string{
	"```", "~~~", "   ```go", "# Injected", "###### Injected", "Injected\n===", "Injected\n---", "Injected\n-", "***", "- - -", "___",
	"<h1>Injected</h1>", "<!--", "<!-- hidden -->", "<script>", "<style>", "<div>", "<?php", "<![CDATA[", "<!DOCTYPE html>",
	"[x]: https://evil.example", "> ```", "- ```", "1. ```", "text\r## Injected", "a\u2028## Injected", "x\n\n```\n# Injected",
	"<textarea>", "a `` b", "```\n```\n```",
}

// TestHostileTextKeepsSections puts each hostile text into every free-text
// field and checks, reading each render as GitHub does, that every section
// after it is still a section: the outline equals that of a plain document.
func TestHostileTextKeepsSections(t *testing.T) {
	doc := func(s string) *schema.Document {
		return &schema.Document{
			Project: schema.Project{ID: "p", Name: "P", Overview: "Intro.\n\n" + s, Stack: []string{s},
				Commands:    []schema.Command{{Name: s, Run: s}, {Name: "test", Run: s}},
				Conventions: []schema.Convention{{ID: "c", Statement: s, Rationale: s}}},
			Guardrails: []schema.Guardrail{
				{ID: "e", Statement: s, Rationale: s, Severity: schema.Enforcement},
				{ID: "r", Statement: s, Rationale: s, Severity: schema.HardInstruction, ScopeApproval: true},
				{ID: "g", Statement: s, Rationale: s, Severity: schema.Guidance},
			},
			Patterns: schema.Patterns{Standard: []string{s, s}, Custom: []schema.CustomPattern{{Name: "pat", Description: s,
				ExampleRepos: []schema.ExampleRepo{{URL: s, Ref: s, ReferenceTag: "t", Paths: []string{s}}}}}},
			AgentProfiles: map[string]schema.AgentProfile{"claude": {}, "codex": {}, "kimi": {DisplayName: "Kimi"}},
		}
	}
	plain := doc("plain text")
	for _, agent := range []string{"claude", "codex", "kimi"} {
		base, _ := Render(plain, agent, Meta{})
		want := mdtest.Parse(base.Content)
		if len(want.Headings) < 5 {
			t.Fatalf("%s: the plain render has only %q", agent, want.Headings)
		}
		for _, s := range hostileText {
			f, _ := Render(doc(s), agent, Meta{})
			got := mdtest.Parse(f.Content)
			if !slices.Equal(got.Headings, want.Headings) || !slices.Equal(got.Blocks, want.Blocks) {
				t.Errorf("%s, text %q:\nheadings %q\nwant     %q\nblocks %q, want %q", agent, s, got.Headings, want.Headings, got.Blocks, want.Blocks)
			}
			if again, _ := Render(doc(s), agent, Meta{}); again.Content != f.Content {
				t.Errorf("%s, text %q: two renders differ", agent, s)
			}
		}
	}
}

func TestCode(t *testing.T) {
	for s, want := range map[string]string{
		"go test":      "`go test`",
		"a `b` c":      "`` a `b` c ``",
		"a `` b":       "``` a `` b ```",
		"x\ny":         "`x y`",
		"```":          "```` ``` ````",
		"<!-- x -->":   "`<!-- x -->`",
		"a\u202eb":     "`a\ufffdb`",
		"# not a head": "`# not a head`",
	} {
		if got := code(s); got != want {
			t.Errorf("code(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestWriteStaysInside: no write, and no read for --check, leaves the output
// directory — not through a linked subdirectory, a linked file, "..", or an
// absolute path.
func TestWriteStaysInside(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, out, outside string)
		path  string
	}{
		{"linked subdirectory", func(t *testing.T, out, outside string) {
			os.MkdirAll(filepath.Join(out, "agents"), 0o755)
			if err := os.Symlink(outside, filepath.Join(out, "agents", "kimi")); err != nil {
				t.Fatal(err)
			}
		}, "agents/kimi/AGENTS.md"},
		{"linked top directory", func(t *testing.T, out, outside string) {
			os.Symlink(outside, filepath.Join(out, "agents"))
		}, "agents/kimi/AGENTS.md"},
		{"linked file", func(t *testing.T, out, outside string) {
			os.WriteFile(filepath.Join(outside, "target"), []byte("secret\n"), 0o644)
			os.Symlink(filepath.Join(outside, "target"), filepath.Join(out, "CLAUDE.md"))
		}, "CLAUDE.md"},
		{"link inside the directory", func(t *testing.T, out, outside string) {
			os.MkdirAll(filepath.Join(out, "real"), 0o755)
			os.Symlink("real", filepath.Join(out, "agents"))
		}, "agents/AGENTS.md"},
		{"dot-dot", func(t *testing.T, out, outside string) {}, "../outside/AGENTS.md"},
		{"absolute", func(t *testing.T, out, outside string) {}, "/tmp/AGENTS.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			out, outside := filepath.Join(base, "out"), filepath.Join(base, "outside")
			os.MkdirAll(out, 0o755)
			os.MkdirAll(outside, 0o755)
			tt.setup(t, out, outside)
			before := listing(t, outside)
			files := []File{{Agent: "b", Path: "BEFORE.md", Content: "x\n"}, {Agent: "a", Path: tt.path, Content: HeaderStart + "\nrendered\n"}}
			if _, err := Write(out, files); !errors.Is(err, ErrUnsafePath) {
				t.Errorf("Write: %v, want ErrUnsafePath", err)
			}
			if _, err := os.Stat(filepath.Join(out, "BEFORE.md")); err == nil {
				t.Error("Write wrote a file before refusing another")
			}
			if _, err := Check(out, files); !errors.Is(err, ErrUnsafePath) {
				t.Errorf("Check: %v, want ErrUnsafePath", err)
			}
			if after := listing(t, outside); after != before {
				t.Errorf("outside the output directory changed:\n%s\nwas\n%s", after, before)
			}
		})
	}
}

// listing describes every file under dir and its content.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			b.WriteString(p + ": " + string(data) + "\n")
		}
		return nil
	})
	return b.String()
}

// TestApprovalTextIsInert: provenance and unapproved-change notices carry
// text from documents that may never have been validated; none of it can
// open a comment or a raw-text element in the render.
func TestApprovalTextIsInert(t *testing.T) {
	hostile := "x <!-- hide --> <script>alert(1)</script>\n# Heading"
	got := Origin(schema.Provenance{Source: schema.SourceAgent, Agent: hostile, AgentSession: hostile, Unapproved: hostile})
	got += UnapprovedNotice([]schema.Unapproved{{Subject: "guardrail:`x`", Change: "changed", Reason: hostile, Approved: hostile}})
	for _, bad := range []*regexp.Regexp{regexp.MustCompile(`(^|[^\\])<!--`), regexp.MustCompile(`(^|[^\\])<script`), regexp.MustCompile(`\n#`)} {
		if bad.MatchString(got) {
			t.Errorf("%s survives:\n%s", bad, got)
		}
	}
}

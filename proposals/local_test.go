package proposals

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/internal/identity"
	"github.com/bridle-dev/bridle/schema"
)

// rulesRepo makes a git repository whose main holds the example rules.
func rulesRepo(t *testing.T) (dir string, repo *git.Repository) {
	t.Helper()
	dir = t.TempDir()
	repo, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: "refs/heads/main"}})
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("../examples/runic-gateway/bridle.yaml")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "bridle.yaml"), src, 0o644)
	wt, _ := repo.Worktree()
	wt.Add("bridle.yaml")
	if _, err := wt.Commit("rules", &git.CommitOptions{Author: &object.Signature{Name: "Mira", Email: "m@example.com", When: time.Now()}}); err != nil {
		t.Fatal(err)
	}
	return dir, repo
}

func agentOrigin() Origin {
	return Origin{Source: schema.SourceAgent, Agent: "claude", Session: "s-123"}
}

func guardrail(id string) Change {
	return Change{Kind: KindGuardrail, Rationale: "Because " + id + " matters.", Guardrail: &schema.Guardrail{
		ID: id, Statement: "Rule " + id + ".", Severity: schema.Guidance,
		// An agent trying to forge approval: must be ignored.
		Provenance: schema.Provenance{Source: schema.SourceUser, ApprovedBy: "mira.okafor", ApprovedAt: "2026-01-01T00:00:00Z"},
	}}
}

func TestLocalProposeAndApprove(t *testing.T) {
	dir, repo := rulesRepo(t)
	l, err := OpenLocal(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	svc := Service{Backend: l}
	ctx := context.Background()
	before, mainBefore, _ := l.Main(ctx)

	pr, err := svc.Propose(ctx, Draft{Change: guardrail("pin-go-version"), Origin: agentOrigin()})
	if err != nil {
		t.Fatal(err)
	}
	if pr.Number != 1 || pr.State != Open || pr.Branch != "bridle/agent/claude/guardrail-pin-go-version" || !pr.Mergeable {
		t.Errorf("proposal = %+v", pr)
	}
	if after, commit, _ := l.Main(ctx); commit != mainBefore || string(after) != string(before) {
		t.Fatal("proposing changed main")
	}
	head, _ := repo.CommitObject(plumbing.NewHash(pr.Head))
	for _, trailer := range []string{"Bridle-Source: agent", "Bridle-Agent: claude", "Bridle-Session: s-123", "Bridle-Kind: guardrail", "Bridle-Subject: guardrail:pin-go-version"} {
		if !strings.Contains(head.Message, trailer) {
			t.Errorf("commit lacks %q:\n%s", trailer, head.Message)
		}
	}
	got, _ := l.Get(ctx, 1)
	for _, want := range []string{"## Rationale", "Because pin-go-version matters.", "```yaml", "id: pin-go-version", "### `CLAUDE.md` (`claude`)", "+- **pin-go-version** — Rule pin-go-version.", "Agent `claude`, session `s-123`"} {
		if !strings.Contains(got.Body, want) {
			t.Errorf("body lacks %q:\n%s", want, got.Body)
		}
	}
	branchRules, _ := l.fileAt(plumbing.NewHash(pr.Head))
	f, diags := schema.Load("bridle.yaml", branchRules)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	g := f.Doc.Guardrails[len(f.Doc.Guardrails)-1]
	if g.Provenance.Source != schema.SourceAgent || g.Provenance.Agent != "claude" || g.Provenance.AgentSession != "s-123" || g.Provenance.ApprovedBy != "" || g.Provenance.ApprovedAt != "" {
		t.Errorf("forged provenance survived: %+v", g.Provenance)
	}
	if !strings.Contains(string(branchRules), "# enforcement: Bridle itself gates these actions.") {
		t.Error("comments in bridle.yaml were lost")
	}

	merged, err := l.Merge(ctx, 1, "Mira Okafor", "")
	if err != nil {
		t.Fatal(err)
	}
	if merged.State != Merged || merged.MergedBy != "Mira Okafor" || merged.MergedAt == nil {
		t.Errorf("merged = %+v", merged)
	}
	mc, _ := repo.CommitObject(plumbing.NewHash(merged.MergeCommit))
	if len(mc.ParentHashes) != 2 || mc.ParentHashes[0].String() != mainBefore || mc.ParentHashes[1].String() != pr.Head || mc.Author.Name != "Mira Okafor" {
		t.Errorf("merge commit: parents %v author %s", mc.ParentHashes, mc.Author.Name)
	}
	onDisk, _ := os.ReadFile(filepath.Join(dir, "bridle.yaml"))
	if !strings.Contains(string(onDisk), "pin-go-version") {
		t.Error("the checked-out work tree was not brought up to date")
	}
	// The merged branch is deleted (its commit stays, the merge's second
	// parent); the record keeps its name and head.
	if _, err := repo.Reference(plumbing.NewBranchReferenceName(pr.Branch), false); !errors.Is(err, plumbing.ErrReferenceNotFound) {
		t.Errorf("the merged branch %s is left behind: %v", pr.Branch, err)
	}
	if got, err := l.Get(ctx, 1); err != nil || got.Branch != pr.Branch || got.Head != pr.Head {
		t.Errorf("record after the merge: %+v, %v", got, err)
	}
	if _, err := l.Merge(ctx, 1, "x", ""); !errors.Is(err, ErrState) {
		t.Errorf("merging twice: %v", err)
	}

	// Provenance comes from history: the trailers and the merge, not the YAML.
	snap, diags, err := compiler.Compile(compiler.Options{Rules: dir, Ref: "main", BridleVersion: "test"})
	if err != nil || snap == nil {
		t.Fatalf("compile main: %v %s", err, diags.Error())
	}
	var pv schema.Provenance
	for _, g := range snap.Document.Guardrails {
		if g.ID == "pin-go-version" {
			pv = g.Provenance
		}
	}
	if !pv.Verified || pv.Source != schema.SourceAgent || pv.Agent != "claude" || pv.AgentSession != "s-123" ||
		pv.ApprovedBy != "Mira Okafor" || pv.PullRequest != "1" || pv.MergeCommit != merged.MergeCommit || pv.ApprovedAt == "" {
		t.Errorf("provenance = %+v", pv)
	}
	r, _ := snap.Render("claude")
	if !strings.Contains(r.Content, "proposed by agent claude (session s-123), via proposal #1; approved by Mira Okafor on") {
		t.Error("render does not carry the resolved origin")
	}
}

func TestLocalInvalidProposalCreatesNothing(t *testing.T) {
	dir, repo := rulesRepo(t)
	l, _ := OpenLocal(dir, "test")
	bad := guardrail("multi-line")
	bad.Guardrail.Statement = "line one\nline two"
	_, err := Service{Backend: l}.Propose(context.Background(), Draft{Change: bad, Origin: agentOrigin()})
	var inv *InvalidError
	if !errors.As(err, &inv) || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "must be one line") {
		t.Fatalf("err = %v", err)
	}
	refs, _ := repo.References()
	refs.ForEach(func(r *plumbing.Reference) error {
		if strings.HasPrefix(r.Name().Short(), "bridle/") {
			t.Errorf("branch %s left behind", r.Name())
		}
		return nil
	})
	if list, _ := l.List(context.Background(), All); len(list) != 0 {
		t.Errorf("records left behind: %+v", list)
	}
	for _, c := range []Change{
		{Kind: "delete-everything"},
		{Kind: KindRules, Section: "permissions", Value: "x"},
		{Kind: KindGuardrail},
	} {
		if _, err := (Service{Backend: l}).Propose(context.Background(), Draft{Change: c, Origin: agentOrigin()}); !errors.Is(err, ErrBadInput) {
			t.Errorf("%+v: err = %v", c, err)
		}
	}
}

// TestLocalCollisions: two proposals open at once. After one merges, the
// other is re-applied at the document level, or reported as a conflict.
func TestLocalCollisions(t *testing.T) {
	dir, _ := rulesRepo(t)
	l, _ := OpenLocal(dir, "test")
	svc := Service{Backend: l}
	ctx := context.Background()
	a, _ := svc.Propose(ctx, Draft{Change: guardrail("rule-a"), Origin: agentOrigin()})
	b, _ := svc.Propose(ctx, Draft{Change: guardrail("rule-b"), Origin: agentOrigin()})
	dup, _ := svc.Propose(ctx, Draft{Change: guardrail("rule-a"), Origin: Origin{Source: schema.SourceUser, Author: "jonas"}})
	ov1, _ := svc.Propose(ctx, Draft{Change: Change{Kind: KindRules, Section: "project.overview", Value: "First rewrite."}, Origin: agentOrigin()})
	ov2, err := svc.Propose(ctx, Draft{Change: Change{Kind: KindRules, Section: "project.overview", Value: "Second rewrite."}, Origin: agentOrigin()})
	if err != nil || dup.Branch == a.Branch {
		t.Fatalf("setup: %v, branches %s %s", err, a.Branch, dup.Branch)
	}
	if _, err := l.Merge(ctx, a.Number, "mira", ""); err != nil {
		t.Fatal(err)
	}
	list, _ := l.List(ctx, Open)
	state := map[int]Proposal{}
	for _, p := range list {
		state[p.Number] = p
	}
	if !state[b.Number].Mergeable {
		t.Errorf("#%d should still apply: %+v", b.Number, state[b.Number])
	}
	if state[dup.Number].Mergeable || !strings.Contains(state[dup.Number].Conflict, `guardrail "rule-a" already exists on main`) {
		t.Errorf("#%d should conflict: %+v", dup.Number, state[dup.Number])
	}
	rb, err := svc.Rebase(ctx, b.Number)
	if err != nil || rb.Base == b.Base {
		t.Fatalf("rebase: %v %+v", err, rb)
	}
	if _, err := l.Merge(ctx, b.Number, "mira", ""); err != nil {
		t.Fatal(err)
	}
	rules, _, _ := l.Main(ctx)
	if !strings.Contains(string(rules), "rule-a") || !strings.Contains(string(rules), "rule-b") {
		t.Error("main lacks one of the two guardrails")
	}
	if _, err := svc.Rebase(ctx, dup.Number); !errors.Is(err, ErrConflict) {
		t.Errorf("rebase of a duplicate: %v", err)
	}
	if _, err := l.Merge(ctx, ov1.Number, "mira", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Merge(ctx, ov2.Number, "mira", ""); !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "project.overview was changed on main") {
		t.Errorf("second overview rewrite must conflict, got %v", err)
	}
	closed, err := l.Close(ctx, dup.Number, "jonas", "duplicate")
	if err != nil || closed.State != Closed {
		t.Errorf("close: %v %+v", err, closed)
	}
	if _, err := l.Merge(ctx, dup.Number, "mira", ""); !errors.Is(err, ErrState) {
		t.Errorf("merging a closed proposal: %v", err)
	}
}

func TestSanitising(t *testing.T) {
	o := Origin{Source: schema.SourceAgent, Agent: "../../Evil Agent\n;rm -rf", Session: "s\n1"}
	c := guardrail("ok")
	if b := Branch(o, c); b != "bridle/agent/evil-agent-rm-rf/guardrail-ok" {
		t.Errorf("branch = %q", b)
	}
	msg := message(c.Title(), Draft{Change: c, Origin: o})
	for _, line := range strings.Split(msg, "\n") {
		if strings.HasPrefix(line, ";rm") || strings.HasPrefix(line, "1") {
			t.Errorf("agent text forged a line: %q", msg)
		}
	}
	if got := OneLine("a\x1b[31mb\u2028c", 100); got != "a[31mb c" {
		t.Errorf("OneLine = %q", got)
	}
	if got := OneLine(strings.Repeat("é", 100), 51); strings.ToValidUTF8(got, "?") != got || len(got) > 51 {
		t.Errorf("truncation broke UTF-8: %q", got)
	}
}

func TestPromoteVendorSuggestion(t *testing.T) {
	src, _ := os.ReadFile("../examples/runic-gateway/bridle.yaml")
	out, err := Apply(src, Change{Kind: KindPromote, Promote: &Promotion{Agent: "claude", Suggestion: "read-before-edit"}}, Origin{Source: schema.SourceUser, Author: "mira"})
	if err != nil {
		t.Fatal(err)
	}
	f, diags := schema.Load("bridle.yaml", out)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	g := f.Doc.Guardrails[len(f.Doc.Guardrails)-1]
	if g.ID != "read-before-edit" || g.Provenance.Source != schema.SourceVendor || g.Provenance.Vendor != "Anthropic" || g.AppliesTo[0] != "claude" {
		t.Errorf("promoted = %+v", g)
	}
	if _, err := Apply(src, Change{Kind: KindPromote, Promote: &Promotion{Agent: "claude", Suggestion: "nope"}}, Origin{}); !errors.Is(err, ErrBadInput) {
		t.Errorf("unknown suggestion: %v", err)
	}
}

func TestDraftRoundTripsThroughBody(t *testing.T) {
	src, _ := os.ReadFile("../examples/runic-gateway/bridle.yaml")
	d := Draft{Change: guardrail("x-rule"), Origin: agentOrigin()}
	p, err := Prepare(src, "abc", d, "test")
	if err != nil {
		t.Fatal(err)
	}
	got, ok := DraftFromBody(p.Body)
	if !ok || got.Change.Guardrail.ID != "x-rule" || got.Origin.Session != "s-123" {
		t.Errorf("draft = %+v %v", got, ok)
	}
	if _, ok := DraftFromBody("no marker"); ok {
		t.Error("found a draft in a body without one")
	}
	desc := Description(p.Body)
	if strings.Contains(desc, changeMarker) || !strings.HasSuffix(desc, "Merging this pull request approves the change.\n") {
		t.Errorf("description keeps the encoded draft:\n%s", desc)
	}
	if Description("no marker") != "no marker" {
		t.Error("a body without a draft changed")
	}
}

// FuzzApply: hostile rules documents and changes never panic Apply, and
// what it returns parses.
func FuzzApply(f *testing.F) {
	src, _ := os.ReadFile("../examples/runic-gateway/bridle.yaml")
	f.Add(src, "guardrail", "x", "statement")
	f.Add([]byte("a: &a [*a]"), "rules", "project.overview", "v")
	f.Add([]byte("guardrails: 7\n"), "guardrail", "g", "s")
	f.Add([]byte("patterns: {custom: {}}\n"), "pattern", "p", "d")
	hand, _ := os.ReadFile("testdata/splice/hand.yaml")
	f.Add(hand, "guardrail", "x", "statement")
	f.Add(hand, "rules", "project.stack", "v")
	f.Add(hand, "pattern", "table-tests", "d")
	f.Add([]byte("guardrails:\n- id: a\n  statement: s\n  severity: guidance\n# end"), "guardrail", "b", "s")
	f.Add([]byte("guardrails:\n  -\n    id: a\n"), "guardrail", "b", "s")
	f.Fuzz(func(t *testing.T, doc []byte, kind, id, text string) {
		c := Change{Kind: Kind(kind), Section: id, Value: text,
			Guardrail: &schema.Guardrail{ID: id, Statement: text, Severity: schema.Guidance},
			Pattern:   &schema.CustomPattern{Name: id, Description: text},
			Promote:   &Promotion{Agent: id, Suggestion: text}}
		out, err := Apply(doc, c, agentOrigin())
		if err == nil {
			var v any
			if yamlErr := yamlUnmarshal(out, &v); yamlErr != nil {
				t.Fatalf("Apply returned unparsable YAML: %v", yamlErr)
			}
		}
	})
}

// FuzzDraftFromBody: a pull request body is text anyone with write access
// can edit; reading a draft from it never panics.
func FuzzDraftFromBody(f *testing.F) {
	f.Add("<!-- bridle-draft eyJjaGFuZ2UiOnt9fQ== -->")
	f.Add("<!-- bridle-draft !!! -->")
	f.Add("nothing")
	f.Fuzz(func(t *testing.T, body string) { DraftFromBody(body) })
}

// TestLocalIdentity: whoever proposes, approves or rejects without a name
// given is git's identity (package identity); without one, nothing is
// recorded under a made-up name.
func TestLocalIdentity(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	for _, v := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"} {
		t.Setenv(v, "")
	}
	dir, repo := rulesRepo(t)
	l, _ := OpenLocal(dir, "test")
	svc := Service{Backend: l}
	ctx := context.Background()
	if _, err := svc.Propose(ctx, Draft{Change: guardrail("no-name"), Origin: Origin{Source: schema.SourceUser}}); !errors.Is(err, identity.ErrUnknown) {
		t.Errorf("propose without a name: %v, want identity.ErrUnknown", err)
	}
	pr, err := svc.Propose(ctx, Draft{Change: guardrail("rule-a"), Origin: agentOrigin()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Approve(ctx, pr.Number, Principal{}); !errors.Is(err, identity.ErrUnknown) {
		t.Errorf("approve without a name: %v, want identity.ErrUnknown", err)
	}
	if _, err := svc.Reject(ctx, pr.Number, "", ""); !errors.Is(err, identity.ErrUnknown) {
		t.Errorf("reject without a name: %v, want identity.ErrUnknown", err)
	}
	t.Setenv("GIT_COMMITTER_NAME", "Mira Okafor")
	t.Setenv("GIT_COMMITTER_EMAIL", "mira@example.com")
	merged, err := svc.Approve(ctx, pr.Number, Principal{})
	if err != nil || merged.MergedBy != "Mira Okafor" {
		t.Fatalf("approve as git's committer: %v, %+v", err, merged)
	}
	mc, _ := repo.CommitObject(plumbing.NewHash(merged.MergeCommit))
	if mc.Author.Name != "Mira Okafor" || mc.Author.Email != "mira@example.com" {
		t.Errorf("merge commit author = %s <%s>", mc.Author.Name, mc.Author.Email)
	}
}

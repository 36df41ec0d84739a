package proposals

import (
	"context"
	"errors"
	"github.com/bridle-dev/bridle/actor"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/schema"
)

// TestEditGrantsOnceApproved: a maintainer's edit of the whole document (a
// permission here, which no other kind can change) is a proposal like any
// other; approved by another human it is the approved state, and the
// checked-out work tree is left clean.
func TestEditGrantsOnceApproved(t *testing.T) {
	dir, repo := rulesRepo(t)
	l, _ := OpenLocal(dir, "test")
	svc := Service{Backend: l}
	ctx := context.Background()
	src, _ := os.ReadFile(filepath.Join(dir, "bridle.yaml"))
	edited := strings.Replace(string(src), "rules: {propose: true, approve: false}\n    secrets: {read: false}\n    memory: {read: true, write: true, forget: false}\n  codex:",
		"rules: {propose: true, approve: false}\n    secrets: {read: false}\n    memory: {read: true, write: true, forget: true}\n  codex:", 1)
	if edited == string(src) {
		t.Fatal("the test's edit did not apply")
	}
	os.WriteFile(filepath.Join(dir, "bridle.yaml"), []byte(edited), 0o644) // as the maintainer edits it
	user := Origin{Source: schema.SourceUser, Author: "jonas"}
	p, err := svc.Propose(ctx, Draft{Change: Change{Kind: KindEdit, Document: edited, Rationale: "let claude forget"}, Origin: user})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.Title, "Edit the rules") || !strings.Contains(p.Body, "+    memory: {read: true, write: true, forget: true}") {
		t.Errorf("title %q, body:\n%s", p.Title, p.Body)
	}
	if _, err := svc.Approve(ctx, p.Number, Principal{Actor: actor.Git("jonas", "")}); !errors.Is(err, ErrSelfApproval) {
		t.Errorf("self-approval of an edit: %v", err)
	}
	if _, err := svc.Approve(ctx, p.Number, Principal{Actor: actor.Git("mira", "")}); err != nil {
		t.Fatal(err)
	}
	snap, diags, err := compiler.Compile(compiler.Options{Rules: dir, Ref: "main", BridleVersion: "test"})
	if err != nil || snap == nil {
		t.Fatalf("compile: %v %s", err, diags.Error())
	}
	if len(snap.Approval.Unapproved) != 0 || !snap.Document.Permissions["claude"].Allows("memory.forget") {
		t.Errorf("the approved edit is not in force: unapproved %+v", snap.Approval.Unapproved)
	}
	wt, _ := repo.Worktree()
	if st, _ := wt.Status(); !st.IsClean() {
		t.Errorf("work tree after approving the edit:\n%s", st)
	}
}

// TestEditMadeFromAnOldMain: an edit applies only to the main it was made
// from; one that would revert what merged since is a conflict.
func TestEditMadeFromAnOldMain(t *testing.T) {
	dir, _ := rulesRepo(t)
	l, _ := OpenLocal(dir, "test")
	svc := Service{Backend: l}
	ctx := context.Background()
	src, _ := os.ReadFile(filepath.Join(dir, "bridle.yaml"))
	edit, err := svc.Propose(ctx, Draft{Change: Change{Kind: KindEdit, Document: strings.Replace(string(src), "Runic Gateway", "Runic Gateway 2", 1)},
		Origin: Origin{Source: schema.SourceUser, Author: "jonas"}})
	if err != nil {
		t.Fatal(err)
	}
	other, err := svc.Propose(ctx, Draft{Change: guardrail("meanwhile"), Origin: agentOrigin()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Approve(ctx, other.Number, Principal{Actor: actor.Git("mira", "")}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Approve(ctx, edit.Number, Principal{Actor: actor.Git("mira", "")}); !errors.Is(err, ErrConflict) {
		t.Errorf("approving an edit of an old main: %v", err)
	}
}

func TestEditBadInput(t *testing.T) {
	dir, _ := rulesRepo(t)
	l, _ := OpenLocal(dir, "test")
	svc := Service{Backend: l}
	src, _ := os.ReadFile(filepath.Join(dir, "bridle.yaml"))
	user := Origin{Source: schema.SourceUser, Author: "jonas"}
	for name, c := range map[string]struct {
		doc  string
		want error
	}{
		"empty":     {"  \n", ErrBadInput},
		"oversized": {strings.Repeat("#", MaxDocument+1), ErrBadInput},
		"unchanged": {string(src), ErrNoChange},
		"invalid":   {strings.Replace(string(src), "severity: guidance", "severity: sometimes", 1), ErrInvalid},
		"not yaml":  {"schema_version: [1\n", ErrInvalid},
	} {
		if _, err := svc.Propose(context.Background(), Draft{Change: Change{Kind: KindEdit, Document: c.doc}, Origin: user}); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", name, err, c.want)
		}
	}
}

// TestApproveRefusesADirtyCheckout: approving into a checked-out main whose
// files the merge changes hold edits of their own is refused, and main does
// not move; committed or stashed, it merges.
func TestApproveRefusesADirtyCheckout(t *testing.T) {
	dir, repo := rulesRepo(t)
	l, _ := OpenLocal(dir, "test")
	svc := Service{Backend: l}
	ctx := context.Background()
	p, err := svc.Propose(ctx, Draft{Change: guardrail("dirty-checkout"), Origin: agentOrigin()})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "bridle.yaml")
	clean, _ := os.ReadFile(path)
	os.WriteFile(path, append(append([]byte(nil), clean...), "# my notes\n"...), 0o644)
	before, _ := repo.Head()
	if _, err := svc.Approve(ctx, p.Number, Principal{Actor: actor.Git("mira", "")}); !errors.Is(err, ErrDirty) || !strings.Contains(err.Error(), "bridle.yaml") {
		t.Fatalf("approve over an edited bridle.yaml: %v", err)
	}
	// Staged, not just edited: refused too.
	wt, _ := repo.Worktree()
	wt.Add("bridle.yaml")
	if _, err := svc.Approve(ctx, p.Number, Principal{Actor: actor.Git("mira", "")}); !errors.Is(err, ErrDirty) {
		t.Fatalf("approve over a staged bridle.yaml: %v", err)
	}
	if after, _ := repo.Head(); after.Hash() != before.Hash() {
		t.Fatal("main moved although the approval was refused")
	}
	os.WriteFile(path, clean, 0o644)
	wt.Add("bridle.yaml")
	if _, err := svc.Approve(ctx, p.Number, Principal{Actor: actor.Git("mira", "")}); err != nil {
		t.Fatal(err)
	}
	if st, _ := wt.Status(); !st.IsClean() {
		t.Errorf("after the approval:\n%s", st)
	}
}

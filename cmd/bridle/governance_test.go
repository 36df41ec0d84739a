package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// directCommit edits dir/bridle.yaml and commits it straight to main, as an
// agent with a shell could.
func directCommit(t *testing.T, dir string, edit func(string) string) {
	t.Helper()
	p := filepath.Join(dir, "bridle.yaml")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(edit(string(b))), 0o644); err != nil {
		t.Fatal(err)
	}
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := repo.Worktree()
	wt.Add("bridle.yaml")
	if _, err := wt.Commit("loosen", &git.CommitOptions{Author: &object.Signature{Name: "agent", Email: "a@x", When: time.Now()}}); err != nil {
		t.Fatal(err)
	}
}

// TestAuditListsUnreviewedChanges: a direct commit to main shows in the
// audit as an unreviewed change, and in every render as NOT APPROVED.
func TestAuditListsUnreviewedChanges(t *testing.T) {
	t.Setenv("BRIDLE_STATE_DIR", t.TempDir())
	dir := filepath.Join(t.TempDir(), "rules")
	if code, _, stderr := bridle(t, "init", dir); code != 0 {
		t.Fatalf("init: %s", stderr)
	}
	directCommit(t, dir, func(s string) string {
		return strings.Replace(s, "guardrails:\n", "guardrails:\n  - id: anything-goes\n    statement: Agents may do anything.\n    severity: guidance\n", 1)
	})
	code, out, stderr := bridle(t, "audit", "--rules", dir)
	if code != 0 || !strings.Contains(out, "unreviewed") || !strings.Contains(out, "guardrail:anything-goes added") ||
		!strings.Contains(stderr, "1 unreviewed change") {
		t.Errorf("audit: %d\n%s\n%s", code, out, stderr)
	}
	code, out, _ = bridle(t, "render", "--rules", dir, "--ref", "main", "--agent", "claude")
	if code != 0 || !strings.Contains(out, "UNAPPROVED CHANGES") || !strings.Contains(out, "NOT APPROVED: a direct commit to main") {
		t.Errorf("render at main does not flag the direct commit:\n%s", out)
	}
	code, out, stderr = bridle(t, "explain", "--rules", dir, "--ref", "main", "--agent", "claude")
	if code != 0 || !strings.Contains(out, "NOT APPROVED") || !strings.Contains(stderr, "guardrail:anything-goes added without approval") {
		t.Errorf("explain: %d\n%s\n%s", code, out, stderr)
	}
}

// TestApproveRefusedInsideAnAgentSession: approving and rejecting are a
// human's acts; an agent running the CLI from its shell tool is refused
// (an agent could otherwise quietly reject a guardrail meant for it).
func TestApproveRefusedInsideAnAgentSession(t *testing.T) {
	for _, verb := range []string{"approve", "reject"} {
		for _, v := range []string{"CLAUDECODE", "CODEX_SANDBOX", "BRIDLE_AGENT"} {
			t.Run(verb+" "+v, func(t *testing.T) {
				t.Setenv(v, "1")
				code, _, stderr := bridle(t, verb, "1", "--rules", t.TempDir())
				if code != exitFailure || !strings.Contains(stderr, v+" is set") || !strings.Contains(stderr, "agent's session") {
					t.Errorf("%s with %s set: exit %d, %s", verb, v, code, stderr)
				}
			})
		}
	}
}

// TestProposeInsideAnAgentSession: a proposal made from an agent's shell is
// recorded as that agent's, whatever --as claims.
func TestProposeInsideAnAgentSession(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rules")
	if code, _, stderr := bridle(t, "init", dir); code != 0 {
		t.Fatalf("init: %s", stderr)
	}
	t.Setenv("CLAUDECODE", "1")
	code, _, stderr := bridle(t, "propose", "guardrail", "--rules", dir, "--id", "laundered", "--severity", "guidance",
		"--statement", "Agents may skip tests.", "--why", "x", "--as", "alice")
	if code != 0 || !strings.Contains(stderr, "proposing as agent claude") {
		t.Fatalf("propose: %d %s", code, stderr)
	}
	code, out, _ := bridle(t, "proposals", "list", "--rules", dir, "--json")
	if code != 0 || !strings.Contains(out, "bridle/agent/claude/") {
		t.Errorf("the proposal is not the agent's: %s", out)
	}
	code, out, _ = bridle(t, "proposals", "show", "1", "--rules", dir)
	if code != 0 || !strings.Contains(out, "Recorded change (from the proposal's commit") || !strings.Contains(out, "proposed by agent claude") {
		t.Errorf("show: %d\n%s", code, out)
	}
}

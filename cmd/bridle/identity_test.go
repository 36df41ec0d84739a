package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/proposals"
)

// noIdentity leaves the test with no git identity at all: an empty home
// (no global config) and none of git's identity variables, and returns the
// home directory.
func noIdentity(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	for _, v := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL", "BRIDLE_AGENT", "CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CODEX_SANDBOX", "CODEX_SANDBOX_NETWORK_DISABLED", "CODEX_THREAD_ID"} {
		t.Setenv(v, "")
	}
	return home
}

// asPerson makes name the user's global git identity, as
// git config --global user.name would.
func asPerson(t *testing.T, name string) {
	t.Helper()
	home := noIdentity(t)
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = "+name+"\n\temail = "+strings.ToLower(strings.Fields(name)[0])+"@example.com\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// rulesInit makes a local rules repository with bridle init.
// rulesInit makes a rules repository for the project "acme" (a rules
// directory named rules takes its parent's name).
func rulesInit(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "acme", "rules")
	if code, _, stderr := bridle(t, "init", dir); code != 0 {
		t.Fatalf("init: %s", stderr)
	}
	return dir
}

func proposeGuardrail(t *testing.T, dir, id string, extra ...string) (int, proposals.Proposal, string) {
	t.Helper()
	args := append([]string{"propose", "guardrail", "--rules", dir, "--id", id, "--severity", "guidance",
		"--statement", "Rule " + id + ".", "--why", "Because.", "--json"}, extra...)
	code, out, stderr := bridle(t, args...)
	var p proposals.Proposal
	if code == 0 {
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatalf("propose --json: %v\n%s", err, out)
		}
	}
	return code, p, stderr
}

// TestIdentityRule: every verb that records a human names them by git's
// rule (GIT_AUTHOR_* / GIT_COMMITTER_*, then git config), and refuses
// without a name instead of making one up.
func TestIdentityRule(t *testing.T) {
	const howTo = `git config --global user.name "Your Name"`
	t.Run("no identity", func(t *testing.T) {
		noIdentity(t)
		if code, _, stderr := bridle(t, "init", filepath.Join(t.TempDir(), "x")); code == 0 || !strings.Contains(stderr, howTo) {
			t.Errorf("init without a name: exit %d, %s", code, stderr)
		}
		t.Setenv("GIT_COMMITTER_NAME", "Init Person")
		dir := rulesInit(t)
		os.Unsetenv("GIT_COMMITTER_NAME")
		code, _, stderr := proposeGuardrail(t, dir, "no-name")
		if code == 0 || !strings.Contains(stderr, howTo) || !strings.Contains(stderr, "GIT_AUTHOR_NAME") {
			t.Errorf("propose without a name: exit %d, %s", code, stderr)
		}
		if _, out, _ := bridle(t, "proposals", "list", "--rules", dir, "--json"); strings.TrimSpace(out) != "[]" {
			t.Errorf("a proposal was created anyway: %s", out)
		}
		if code, _, stderr := proposeGuardrail(t, dir, "named", "--as", "alice"); code != 0 {
			t.Fatalf("propose --as: %s", stderr)
		}
		for _, verb := range []string{"approve", "reject"} {
			code, _, stderr := bridle(t, verb, "1", "--rules", dir)
			if code == 0 || !strings.Contains(stderr, howTo) || !strings.Contains(stderr, "GIT_COMMITTER_NAME") {
				t.Errorf("%s without a name: exit %d, %s", verb, code, stderr)
			}
		}
		code, out, stderr := bridle(t, "approve", "1", "--rules", dir, "--as", "bob", "--json")
		var p proposals.Proposal
		json.Unmarshal([]byte(out), &p)
		if code != 0 || p.MergedBy != "bob" {
			t.Errorf("approve --as bob: exit %d, merged by %q; %s", code, p.MergedBy, stderr)
		}
	})
	t.Run("environment", func(t *testing.T) {
		asPerson(t, "Mira Okafor")
		dir := rulesInit(t)
		t.Setenv("GIT_AUTHOR_NAME", "Ann Author")
		t.Setenv("GIT_AUTHOR_EMAIL", "ann@example.org") // one e-mail is one person: Ann and Carl are two
		code, p, stderr := proposeGuardrail(t, dir, "from-env")
		if code != 0 || p.Author != "Ann Author" || p.Branch != "bridle/user/ann-author/guardrail-from-env" {
			t.Fatalf("propose with GIT_AUTHOR_NAME: exit %d, %+v; %s", code, p, stderr)
		}
		// The committer variables name the approver; the author's do not.
		t.Setenv("GIT_COMMITTER_NAME", "Carl Committer")
		t.Setenv("GIT_COMMITTER_EMAIL", "carl@example.org")
		code, out, stderr := bridle(t, "approve", "1", "--rules", dir, "--json")
		json.Unmarshal([]byte(out), &p)
		if code != 0 || p.MergedBy != "Carl Committer" {
			t.Fatalf("approve with GIT_COMMITTER_NAME: exit %d, merged by %q; %s", code, p.MergedBy, stderr)
		}
		_, out, _ = bridle(t, "render", "--rules", dir, "--ref", "main", "--agent", "claude")
		if !strings.Contains(out, "approved by Carl Committer") {
			t.Errorf("the render does not name the approver:\n%s", out)
		}
		if code, _, stderr := proposeGuardrail(t, dir, "to-reject"); code != 0 {
			t.Fatalf("propose to-reject: %s", stderr)
		}
		code, out, stderr = bridle(t, "reject", "2", "--rules", dir, "--json")
		json.Unmarshal([]byte(out), &p)
		if code != 0 || p.ClosedBy != "Carl Committer" {
			t.Errorf("reject: exit %d, closed by %q; %s", code, p.ClosedBy, stderr)
		}
	})
	t.Run("git config, one person", func(t *testing.T) {
		// Proposer and approver are resolved by the same rule, so the same
		// person is recognised: approving one's own proposal needs --self.
		asPerson(t, "Mira Okafor")
		dir := rulesInit(t)
		if code, p, stderr := proposeGuardrail(t, dir, "mine"); code != 0 || p.Author != "Mira Okafor" {
			t.Fatalf("propose: exit %d, author %q; %s", code, p.Author, stderr)
		}
		if code, _, stderr := bridle(t, "approve", "1", "--rules", dir); code == 0 || !strings.Contains(stderr, "Mira Okafor proposed it") {
			t.Errorf("approving one's own proposal: exit %d, %s", code, stderr)
		}
		code, out, stderr := bridle(t, "approve", "1", "--rules", dir, "--self", "--json")
		var p proposals.Proposal
		json.Unmarshal([]byte(out), &p)
		if code != 0 || p.MergedBy != "Mira Okafor" {
			t.Errorf("approve --self: exit %d, merged by %q; %s", code, p.MergedBy, stderr)
		}
	})
}

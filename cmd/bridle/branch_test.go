package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/mcp"
)

// TestAnyBranchName: the rules' branch is the repository's own, whatever it
// is called. init commits on it and records it; install, propose, approve,
// the sidecar, the hook and the review follow it; a ref the repository does
// not have names the branches it has and what to do.
func TestAnyBranchName(t *testing.T) {
	tests := []struct {
		name    string
		gitInit []string // "": no repository; bridle init makes one
		global  string   // added to the global git configuration
		args    []string // more bridle init flags
		branch  string
	}{
		{name: "git init (master)", gitInit: []string{"init", "-q"}, branch: "master"},
		{name: "git init -b trunk", gitInit: []string{"init", "-q", "-b", "trunk"}, branch: "trunk"},
		{name: "git init -b main", gitInit: []string{"init", "-q", "-b", "main"}, branch: "main"},
		{name: "new repository, init.defaultBranch", global: "[init]\n\tdefaultBranch = trunk\n", branch: "trunk"},
		{name: "new repository, --branch", args: []string{"--branch", "develop"}, branch: "develop"},
		{name: "new repository", branch: "main"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			withIdentity(t)
			t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			if tt.global != "" {
				f, _ := os.OpenFile(filepath.Join(os.Getenv("HOME"), ".gitconfig"), os.O_APPEND|os.O_WRONLY, 0)
				f.WriteString(tt.global)
				f.Close()
			}
			project := filepath.Join(t.TempDir(), "my-project")
			rules := filepath.Join(project, "rules")
			if tt.gitInit != nil {
				os.MkdirAll(project, 0o755)
				for _, args := range [][]string{tt.gitInit, {"commit", "-q", "--allow-empty", "-m", "the project"}} {
					cmd := exec.Command("git", args...)
					cmd.Dir = project
					if out, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("git %v: %v\n%s", args, err, out)
					}
				}
			} else {
				rules = project // a rules repository of its own
			}
			stderr := mustRun(t, append([]string{"init", rules}, tt.args...)...)
			if !strings.Contains(stderr, "on "+tt.branch+" as ") {
				t.Fatalf("init did not commit on %s:\n%s", tt.branch, stderr)
			}
			if got := compiler.Branch(rules); got != tt.branch {
				t.Fatalf("compiler.Branch = %q, want %q", got, tt.branch)
			}
			mustRun(t, "install", "claude", "--project", project, "--rules", rules)
			cfg, _ := os.ReadFile(filepath.Join(project, ".mcp.json"))
			if !strings.Contains(string(cfg), `"--ref",`) || !strings.Contains(string(cfg), `"`+tt.branch+`"`) {
				t.Errorf(".mcp.json does not serve %s:\n%s", tt.branch, cfg)
			}
			mustRun(t, "propose", "guardrail", "--rules", rules, "--id", "no-force-push", "--severity", "hard-instruction",
				"--statement", "Never force-push to shared branches.", "--why", "We lost work twice.")
			mustRun(t, "approve", "1", "--rules", rules, "--self")
			snap, st, err := mcp.Load(mcp.Options{Rules: rules, Version: "test", CacheDir: "-"})
			if err != nil || snap == nil {
				t.Fatalf("the sidecar's rules: %v", err)
			}
			if g := snap.Document.Guardrails; len(g) == 0 || g[len(g)-1].ID != "no-force-push" || st.Stale || snap.Approval == nil || len(snap.Approval.Unapproved) > 0 {
				t.Errorf("the sidecar serves %d guardrails, approval %+v (status %+v)", len(g), snap.Approval, st)
			}
			if tt.branch != "main" {
				code, _, stderr := bridle(t, "validate", "--rules", rules, "--ref", "main")
				if code != exitFailure || !strings.Contains(stderr, tt.branch) || !strings.Contains(stderr, "--ref") {
					t.Errorf("an unknown ref: exit %d, and the message does not say what to do:\n%s", code, stderr)
				}
			}
		})
	}
}

// TestRulesNotOnTheirBranch: rules written while HEAD was on another branch
// are not committed; propose then says how to commit them, instead of a
// bare "file not found".
func TestRulesNotOnTheirBranch(t *testing.T) {
	withIdentity(t)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	project := filepath.Join(t.TempDir(), "p")
	os.MkdirAll(project, 0o755)
	for _, args := range [][]string{{"init", "-q", "-b", "master"}, {"commit", "-q", "--allow-empty", "-m", "p"}, {"switch", "-q", "-c", "feature"}, {"config", "bridle.branch", "master"}} {
		if out, err := exec.Command("git", append([]string{"-C", project}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	rules := filepath.Join(project, "rules")
	stderr := mustRun(t, "init", rules)
	if !strings.Contains(stderr, "not committed") || !strings.Contains(stderr, "git switch master") {
		t.Fatalf("init on another branch:\n%s", stderr)
	}
	code, _, stderr := bridle(t, "propose", "guardrail", "--rules", rules, "--id", "x", "--statement", "X.", "--why", "y")
	if code == 0 || !strings.Contains(stderr, "not committed on the rules' branch master") || !strings.Contains(stderr, "git switch master") {
		t.Errorf("propose with the rules not on their branch: exit %d\n%s", code, stderr)
	}
}

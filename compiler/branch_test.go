package compiler

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBranch: every reader finds the rules' branch from the rules path
// alone — recorded, else main, else origin's default, else HEAD's — and a
// ref the repository lacks names the branches it has.
func TestBranch(t *testing.T) {
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(cmd.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=M", "GIT_AUTHOR_EMAIL=m@x", "GIT_COMMITTER_NAME=M", "GIT_COMMITTER_EMAIL=m@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	repo := func(branch string, setup ...[]string) string {
		dir := t.TempDir()
		git(dir, "init", "-q", "-b", branch)
		git(dir, "commit", "-q", "--allow-empty", "-m", "first")
		for _, args := range setup {
			git(dir, args...)
		}
		return dir
	}
	clone := func(branch string) string {
		src := repo(branch)
		dst := filepath.Join(t.TempDir(), "clone")
		git(t.TempDir(), "clone", "-q", src, dst)
		git(dst, "switch", "-q", "-c", "feature")
		return dst
	}
	tests := []struct {
		name, dir, want string
	}{
		{"no repository", t.TempDir(), "main"},
		{"HEAD on master", repo("master"), "master"},
		{"HEAD on trunk, rules below", filepath.Join(repo("trunk"), "rules", "bridle.yaml"), "trunk"},
		{"main exists, HEAD elsewhere", repo("main", []string{"switch", "-q", "-c", "feature"}), "main"},
		{"recorded", repo("main", []string{"branch", "rules"}, []string{"config", BranchKey, "rules"}), "rules"},
		{"a clone: origin's default", clone("master"), "master"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Branch(tt.dir); got != tt.want {
				t.Errorf("Branch = %q, want %q", got, tt.want)
			}
		})
	}
	dir := repo("master", []string{"branch", "topic"})
	_, err := Head(Options{Rules: dir, Ref: "main"})
	if !errors.Is(err, ErrBadRef) || !strings.Contains(err.Error(), "branches: master, topic") || !strings.Contains(err.Error(), "--ref") {
		t.Errorf("an unknown ref: %v", err)
	}
	if err := RecordBranch(dir, "topic"); err != nil || Branch(dir) != "topic" {
		t.Errorf("RecordBranch: %v, Branch = %q", err, Branch(dir))
	}
	if err := RecordBranch(dir, "bad..name"); err == nil {
		t.Error("RecordBranch took a bad name")
	}
}

package compiler

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestFileInsideABareRepository: rules that are not at the root of a
// repository with no work tree (a Gitea mirror) are read by Options.File.
func TestFileInsideABareRepository(t *testing.T) {
	work := t.TempDir()
	repo, err := git.PlainInitWithOptions(work, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: "refs/heads/main"}})
	if err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile("../examples/runic-gateway/bridle.yaml")
	os.MkdirAll(filepath.Join(work, "policy"), 0o755)
	os.WriteFile(filepath.Join(work, "policy", "bridle.yaml"), src, 0o644)
	wt, _ := repo.Worktree()
	wt.Add("policy/bridle.yaml")
	if _, err := wt.Commit("rules", &git.CommitOptions{Author: &object.Signature{Name: "M", Email: "m@x", When: time.Now()}}); err != nil {
		t.Fatal(err)
	}
	bare := filepath.Join(t.TempDir(), "mirror.git")
	if _, err := git.PlainClone(bare, true, &git.CloneOptions{URL: work}); err != nil {
		t.Fatal(err)
	}
	snap, diags, err := Compile(Options{Rules: bare, Ref: "main", File: "policy/bridle.yaml", BridleVersion: "test"})
	if err != nil || snap == nil {
		t.Fatalf("compile: %v %s", err, diags.Error())
	}
	if snap.Source.Path != "policy/bridle.yaml" || snap.Document.Project.ID != "runic-gateway" {
		t.Errorf("source %+v, project %q", snap.Source, snap.Document.Project.ID)
	}
	if _, diags, _ := Read(Options{Rules: bare, Ref: "main"}); !diags.HasErrors() {
		t.Error("without File the root's bridle.yaml (absent) was found")
	}
	if _, _, err := Read(Options{Rules: bare, Ref: "main", File: "../etc/passwd"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("File outside the repository: %v", err)
	}
}

package mcp

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// commitRules writes data as dir/bridle.yaml and commits it on main (the
// ref a sidecar serves), making dir a git repository first if it is not.
// It returns dir.
func commitRules(t testing.TB, dir string, data []byte) string {
	t.Helper()
	repo, err := git.PlainOpen(dir)
	if err != nil {
		repo, err = git.PlainInitWithOptions(dir, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: "refs/heads/main"}})
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bridle.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add("bridle.yaml"); err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Commit("rules", &git.CommitOptions{AllowEmptyCommits: true,
		Author: &object.Signature{Name: "Mira", Email: "m@x", When: time.Now()}}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// exampleRepo is a fresh rules repository holding the example, committed.
func exampleRepo(t testing.TB, dir string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(example, "bridle.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return commitRules(t, dir, src)
}

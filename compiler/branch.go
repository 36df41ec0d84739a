package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// DefaultBranch is the rules' branch when nothing says otherwise: a
// repository that does not exist yet, or one with no branch at all.
const DefaultBranch = "main"

// BranchKey is the git configuration key (in the rules repository's own
// .git/config) where bridle init records the rules' branch.
const BranchKey = "bridle.branch"

// Branch is the branch the rules at rules (a directory or file in a git
// repository) are served from and proposals merge into — the "main" of the
// sidecar, the hook, the review, proposals, approve and install. Every
// reader finds it from the rules path alone, in this order:
//
//  1. the repository's git configuration bridle.branch, which bridle init
//     records (git config bridle.branch NAME changes it);
//  2. main, when the repository has that branch (rules made before the
//     branch was recorded);
//  3. the branch the remote origin's HEAD names (a clone);
//  4. the branch HEAD is on, even unborn;
//  5. DefaultBranch.
func Branch(rules string) string {
	repo := repoAt(rules)
	if repo == nil {
		return DefaultBranch
	}
	return branchOf(repo)
}

func branchOf(repo *git.Repository) string {
	if cfg, err := repo.Config(); err == nil {
		if b := strings.TrimSpace(cfg.Raw.Section("bridle").Option("branch")); b != "" && plumbing.NewBranchReferenceName(b).Validate() == nil {
			return b
		}
	}
	if _, err := repo.Reference(plumbing.NewBranchReferenceName(DefaultBranch), false); err == nil {
		return DefaultBranch
	}
	if r, err := repo.Reference(plumbing.NewRemoteHEADReferenceName("origin"), false); err == nil && r.Type() == plumbing.SymbolicReference {
		if t := r.Target().String(); strings.HasPrefix(t, "refs/remotes/origin/") {
			return strings.TrimPrefix(t, "refs/remotes/origin/")
		}
	}
	if head, err := repo.Storer.Reference(plumbing.HEAD); err == nil && head.Type() == plumbing.SymbolicReference && head.Target().IsBranch() {
		return head.Target().Short()
	}
	return DefaultBranch
}

// RecordBranch records branch as the rules' branch of the git repository
// holding dir (BranchKey), for Branch to find.
func RecordBranch(dir, branch string) error {
	if err := plumbing.NewBranchReferenceName(branch).Validate(); err != nil || branch == "" {
		return fmt.Errorf("record branch %q: not a branch name", branch)
	}
	repo := repoAt(dir)
	if repo == nil {
		return fmt.Errorf("record branch %s: %w", dir, ErrNotRepo)
	}
	cfg, err := repo.Config()
	if err != nil {
		return fmt.Errorf("record branch %s: %w", dir, err)
	}
	cfg.Raw.Section("bridle").SetOption("branch", branch)
	if err := repo.SetConfig(cfg); err != nil {
		return fmt.Errorf("record branch %s: %w", dir, err)
	}
	return nil
}

// repoAt opens the git repository holding p (a directory or a file), or nil.
func repoAt(p string) *git.Repository {
	if p == "" {
		p = "."
	}
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		p = filepath.Dir(p)
	}
	for {
		if _, err := os.Stat(p); err == nil || filepath.Dir(p) == p {
			break
		}
		p = filepath.Dir(p) // a rules directory not created yet
	}
	repo, _, err := openRepo(p)
	if err != nil {
		return nil
	}
	return repo
}

// branches lists the repository's branches, sorted, for a message.
func branches(repo *git.Repository) []string {
	var names []string
	iter, err := repo.Storer.IterReferences()
	if err != nil {
		return nil
	}
	_ = iter.ForEach(func(r *plumbing.Reference) error {
		if r.Name().IsBranch() {
			names = append(names, r.Name().Short())
		}
		if len(names) > 50 {
			return storer.ErrStop
		}
		return nil
	})
	slices.Sort(names)
	return names
}

// refHint says, for a ref the repository does not have, which branches it
// has and which is the rules' branch.
func refHint(repo *git.Repository) string {
	names := branches(repo)
	if len(names) == 0 {
		return fmt.Sprintf("the repository has no commit yet; commit the rules on %s (bridle init commits them)", branchOf(repo))
	}
	return fmt.Sprintf("the repository's branches: %s; the rules' branch is %s (git config %s); pass --ref BRANCH, or commit the rules there (bridle init commits them)",
		strings.Join(names, ", "), branchOf(repo), BranchKey)
}

// Package mirror keeps a local bare mirror of a rules repository on Gitea,
// so that the sidecar can compile main's rules (with provenance from their
// history) while Gitea is slow or down.
//
// Promises: Sync first asks the Gitea API for main's commit (one small
// request) and fetches only when it changed; a failed sync leaves the mirror
// as it was; the token is sent as HTTP basic auth and never appears in
// errors.
package mirror

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/proposals"
)

// Mirror is a bare local copy of one Gitea repository.
type Mirror struct {
	g      *proposals.Gitea
	o      proposals.GiteaOptions
	dir    string
	mu     sync.Mutex
	merged map[string]compiler.PR // merged pull requests by merge commit; nil until read
	last   string                 // main's commit at the last sync
}

// New returns a mirror of the repository o names, kept under cacheDir.
func New(o proposals.GiteaOptions, cacheDir string) (*Mirror, error) {
	g, err := proposals.NewGitea(o)
	if err != nil {
		return nil, err
	}
	if o.Main == "" {
		o.Main = "main"
	}
	host := strings.NewReplacer("https://", "", "http://", "", "/", "_", ":", "_").Replace(o.URL)
	dir := filepath.Join(cacheDir, "mirrors", host, o.Owner, o.Repo+".git")
	return &Mirror{g: g, o: o, dir: dir}, nil
}

// Dir is the bare repository's path: compile with Rules: Dir(), Ref: "main".
func (m *Mirror) Dir() string { return m.dir }

func (m *Mirror) scrub(err error) error {
	if err == nil || m.o.Token == "" {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), m.o.Token, "[REDACTED]"))
}

// Sync brings the mirror up to date with Gitea's main and returns its commit.
func (m *Mirror) Sync(ctx context.Context) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	br, _, err := m.g.Client(ctx).GetRepoBranch(m.o.Owner, m.o.Repo, m.o.Main)
	if err != nil {
		return "", fmt.Errorf("gitea read branch %s: %w", m.o.Main, m.scrub(err))
	}
	head := br.Commit.ID
	repo, err := git.PlainOpen(m.dir)
	if err == nil {
		if ref, rerr := repo.Reference(plumbing.NewBranchReferenceName(m.o.Main), true); rerr == nil && ref.Hash().String() == head {
			m.last = head
			return head, nil
		}
	}
	auth := &githttp.BasicAuth{Username: "bridle", Password: m.o.Token}
	url := strings.TrimSuffix(m.o.URL, "/") + "/" + m.o.Owner + "/" + m.o.Repo + ".git"
	if errors.Is(err, git.ErrRepositoryNotExists) {
		tmp := m.dir + ".tmp"
		os.RemoveAll(tmp)
		if err := os.MkdirAll(filepath.Dir(m.dir), 0o700); err != nil {
			return "", err
		}
		if _, err := git.PlainCloneContext(ctx, tmp, true, &git.CloneOptions{URL: url, Auth: auth, Mirror: true}); err != nil {
			os.RemoveAll(tmp)
			return "", fmt.Errorf("clone %s/%s: %w", m.o.Owner, m.o.Repo, m.scrub(err))
		}
		if err := os.Rename(tmp, m.dir); err != nil {
			return "", err
		}
		m.last = head
		return head, nil
	}
	if err != nil {
		return "", fmt.Errorf("open mirror: %w", err)
	}
	err = repo.FetchContext(ctx, &git.FetchOptions{Auth: auth, Force: true,
		RefSpecs: []gitconfig.RefSpec{"+refs/heads/*:refs/heads/*"}})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return "", fmt.Errorf("fetch %s/%s: %w", m.o.Owner, m.o.Repo, m.scrub(err))
	}
	m.last = head
	return head, nil
}

// PRLookup answers which merged pull request produced a commit on main,
// matched by the pull request's own merge commit as Gitea records it (never
// by text in a commit message). The merged pull requests are listed once,
// and again when a commit is not among them (a merge newer than the list),
// at most once per returned lookup.
func (m *Mirror) PRLookup(ctx context.Context) compiler.PRLookup {
	relisted := false
	return func(commit string) (compiler.PR, bool, error) {
		m.mu.Lock()
		pr, ok := m.merged[commit]
		have := m.merged != nil
		m.mu.Unlock()
		if ok || (have && relisted) {
			return pr, ok, nil
		}
		relisted = true
		prs, err := m.g.List(ctx, proposals.Merged)
		if err != nil {
			return compiler.PR{}, false, fmt.Errorf("list merged pull requests: %w", err)
		}
		merged := make(map[string]compiler.PR, len(prs))
		for _, p := range prs {
			if p.MergeCommit == "" {
				continue
			}
			info := compiler.PR{Number: p.Number, MergedBy: p.MergedBy}
			if p.MergedAt != nil {
				info.MergedAt = *p.MergedAt
			}
			merged[p.MergeCommit] = info
		}
		m.mu.Lock()
		m.merged = merged
		m.mu.Unlock()
		pr, ok = merged[commit]
		return pr, ok, nil
	}
}

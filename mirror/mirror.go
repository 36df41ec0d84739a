// Package mirror keeps a local bare mirror of a rules repository on Gitea,
// so that the sidecar can compile main's rules (with provenance from their
// history) while Gitea is slow or down.
//
// Promises: Sync first asks the Gitea API for main's commit (one small
// request) and fetches only when it changed; a failed sync leaves the mirror
// as it was; the token is sent as HTTP basic auth and never appears in
// errors. Its PRLookup names who merged and who opened each merged pull
// request; Bot names the proposals bot (its token's user, read from Gitea
// once), whose merges the history review never counts as approvals.
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
	"github.com/google/renameio/v2"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/gitea"
)

// Options name the repository to mirror.
type Options struct {
	Gitea gitea.Options
	Owner string
	Repo  string
	Main  string // default main
	// Path is the rules file inside the repository (default bridle.yaml);
	// the mirror keeps the whole repository, its users read this file.
	Path string
	// Bot says the token is the proposals bot's (the agents' sidecars and
	// the gateway hold it): Bot then reads its user from Gitea and
	// records it beside the mirror, for the mirror's other users (bridle
	// audit, with a person's token) to know.
	Bot bool
}

// Main is the branch the mirror follows.
func (m *Mirror) Main() string { return m.o.Main }

// Path is the rules file inside the repository.
func (m *Mirror) Path() string { return m.o.Path }

// Mirror is a bare local copy of one Gitea repository.
type Mirror struct {
	repo   gitea.Repo
	o      Options
	dir    string
	mu     sync.Mutex
	merged map[string]compiler.PR // merged pull requests by merge commit; nil until read
	last   string                 // main's commit at the last sync
	bot    *string                // the bot's user, once read from Gitea
}

// New returns a mirror of the repository o names, kept under cacheDir.
func New(o Options, cacheDir string) (*Mirror, error) {
	c, err := gitea.New(o.Gitea)
	if err != nil {
		return nil, err
	}
	if o.Owner == "" || o.Repo == "" {
		return nil, fmt.Errorf("%w: the mirror needs an OWNER/NAME repository", gitea.ErrBadOptions)
	}
	if o.Main == "" {
		o.Main = "main"
	}
	if o.Path == "" {
		o.Path = "bridle.yaml"
	}
	host := strings.NewReplacer("https://", "", "http://", "", "/", "_", ":", "_").Replace(c.URL())
	dir := filepath.Join(cacheDir, "mirrors", host, o.Owner, o.Repo+".git")
	return &Mirror{repo: c.Repo(o.Owner, o.Repo), o: o, dir: dir}, nil
}

// Dir is the bare repository's path: compile with Rules: Dir(), Ref: "main".
func (m *Mirror) Dir() string { return m.dir }

// Sync brings the mirror up to date with Gitea's main and returns its
// commit. Its errors are the gitea package's, so that a revoked token
// (gitea.ErrUnauthorized) and Gitea being down (gitea.ErrUnavailable) are
// told apart.
func (m *Mirror) Sync(ctx context.Context) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.repo.Client()
	head, err := m.repo.Branch(ctx, m.o.Main)
	if err != nil {
		return "", err
	}
	repo, err := git.PlainOpen(m.dir)
	if err == nil {
		if ref, rerr := repo.Reference(plumbing.NewBranchReferenceName(m.o.Main), true); rerr == nil && ref.Hash().String() == head {
			m.last = head
			return head, nil
		}
	}
	auth := c.GitAuth()
	url := c.RepoURL(m.o.Owner, m.o.Repo)
	if errors.Is(err, git.ErrRepositoryNotExists) {
		tmp := m.dir + ".tmp"
		os.RemoveAll(tmp)
		if err := os.MkdirAll(filepath.Dir(m.dir), 0o700); err != nil {
			return "", err
		}
		if _, err := git.PlainCloneContext(ctx, tmp, true, &git.CloneOptions{URL: url, Auth: auth, Mirror: true}); err != nil {
			os.RemoveAll(tmp)
			return "", c.ClassifyGit(fmt.Sprintf("clone %s/%s", m.o.Owner, m.o.Repo), err)
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
		return "", c.ClassifyGit(fmt.Sprintf("fetch %s/%s", m.o.Owner, m.o.Repo), err)
	}
	m.last = head
	return head, nil
}

// PRLookup answers which merged pull request produced a commit on main,
// matched by the pull request's own merge commit as Gitea records it (never
// by text in a commit message), with who merged and who opened it. The
// merged pull requests are listed once, and again when a commit is not
// among them (a merge newer than the list), at most once per returned
// lookup.
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
		m.mu.Lock()
		known := make(map[string]gitea.Merged, len(m.merged))
		for c, p := range m.merged {
			known[c] = gitea.Merged{Number: p.Number, MergeCommit: c, MergedBy: p.MergedBy}
		}
		m.mu.Unlock()
		prs, err := m.repo.MergedPullRequests(ctx, known)
		if err != nil {
			return compiler.PR{}, false, fmt.Errorf("list merged pull requests: %w", err)
		}
		merged := make(map[string]compiler.PR, len(prs))
		for _, p := range prs {
			merged[p.MergeCommit] = compiler.PR{Number: p.Number, MergedBy: p.MergedBy, MergedAt: p.MergedAt, Poster: p.Poster}
		}
		m.mu.Lock()
		m.merged = merged
		m.mu.Unlock()
		pr, ok = merged[commit]
		return pr, ok, nil
	}
}

// botFile, beside the bare repository, records the bot's user.
func (m *Mirror) botFile() string { return m.dir + ".bot" }

// Bot is the proposals bot's Gitea user, for compiler.Options.Bot: with
// Options.Bot, the token's user, read from Gitea the first time it is asked
// (until Gitea answers it is an error: nothing is approved meanwhile) and
// recorded beside the mirror; without, what a mirror holding the bot's
// token recorded there, "" when none did.
func (m *Mirror) Bot(ctx context.Context) (string, error) {
	if !m.o.Bot {
		b, err := os.ReadFile(m.botFile())
		if err != nil {
			return "", nil
		}
		return strings.TrimSpace(string(b)), nil
	}
	m.mu.Lock()
	bot := m.bot
	m.mu.Unlock()
	if bot != nil {
		return *bot, nil
	}
	var name string
	if c := m.repo.Client(); c.HasToken() {
		var err error
		if name, err = c.User(ctx); err != nil {
			return "", fmt.Errorf("read the bot's Gitea user: %w", err)
		}
	}
	if os.MkdirAll(filepath.Dir(m.dir), 0o700) == nil {
		renameio.WriteFile(m.botFile(), []byte(name+"\n"), 0o600)
	}
	m.mu.Lock()
	m.bot = &name
	m.mu.Unlock()
	return name, nil
}

package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/kanboard"
	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/memory"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/upstream"
	"github.com/bridle-dev/bridle/vault"
)

// Project is one served project: its own MCP server (rules source,
// toolsets, audit log, memory namespace) and its own MCP HTTP handler, so
// that no session, cache or store is shared with another project.
type Project struct {
	ID     string
	Config ProjectConfig

	mcp       *mcp.Server
	handler   *sdk.StreamableHTTPHandler
	proposals func() (proposals.Backend, error) // the bot's backend, opened once
	memory    func() (memory.Store, memory.Embedder, error)
	gitea     *proposals.GiteaOptions // nil for a local project
	audit     *audit.Log

	vault     *vault.Scope         // the rules repository's secrets.enc.yaml, then the server's
	kanboard  *kanboard.Client     // pinged for /readyz; nil without Kanboard
	upstreams []*upstream.Upstream // started with the server
}

// Source says where the project's rules come from, for people.
func (p *Project) Source() string {
	if g := p.Config.Gitea; g != nil {
		return strings.TrimRight(g.URL, "/") + "/" + g.Repo
	}
	return p.Config.Rules
}

func (s *Server) newProject(id string, pc ProjectConfig) (*Project, error) {
	p := &Project{ID: id, Config: pc, audit: audit.Open(s.cfg.StateDir, id, s.red)}
	log := s.log.With("project", id)
	mo := mcp.Options{
		Project: id, TokenIdentity: true, Version: s.opts.Version, Redactor: s.red, Logger: log,
		CacheDir: s.cfg.CacheDir, StateDir: s.cfg.StateDir, Refresh: s.opts.Refresh, Now: s.opts.Now,
		Observe:  func(o mcp.Observation) { s.observe(id, o) },
		Prefetch: true,
	}
	var cfg proposals.Config
	vaultDir := ""
	if pc.Gitea == nil {
		rules, err := filepath.Abs(pc.Rules)
		if err != nil {
			return nil, fmt.Errorf("%w: project %s: %w", ErrConfig, id, err)
		}
		vaultDir = dirOf(rules)
	}
	p.vault = vault.Open(s.ctx, s.vaultOptions(id, vaultDir, p.audit, s.vault))
	if err := p.vault.Err(); err != nil {
		s.log.Error("the project's SOPS file cannot be opened; its secrets fail until it can", "project", id, "err", err)
	}
	cr := Credentials{Vault: p.vault, Redactor: s.red}
	mo.Secrets = p.vault.List
	if g := pc.Gitea; g != nil {
		token := ""
		var source func() string
		if g.Token != "" {
			read, name, err := cr.reader("gitea", g.Token, "")
			if err != nil {
				return nil, fmt.Errorf("project %s: %w", id, err)
			}
			if token, err = read(); err != nil {
				return nil, fmt.Errorf("%w: project %s: gitea token: %w", ErrConfig, id, err)
			}
			// Read per request: a rotation reaches the proposals backend
			// and the mirror with no restart; a revocation sends no token
			// (Gitea refuses) and is logged naming the secret.
			var logged sync.Map
			source = func() string {
				v, err := read()
				if err != nil {
					if _, seen := logged.LoadOrStore(err.Error(), true); !seen {
						log.Error("the Gitea token cannot be read", "secret", name, "err", err)
					}
					return ""
				}
				return v
			}
		} else if g.TokenFile != "" {
			var err error
			// An empty file is no token (Compose mounts every secret).
			if token, err = readSecret(g.TokenFile, s.red); err != nil {
				return nil, fmt.Errorf("%w: project %s: gitea token: %w", ErrConfig, id, err)
			}
		}
		owner, name, err := proposals.Split(g.Repo)
		if err != nil {
			return nil, fmt.Errorf("%w: project %s: %w", ErrConfig, id, err)
		}
		p.gitea = &proposals.GiteaOptions{URL: g.URL, Token: token, TokenSource: source, Owner: owner, Repo: name, Path: g.Path, Main: g.Branch}
		mo.Gitea = p.gitea
		cfg = proposals.Config{GiteaURL: g.URL, GiteaRepo: g.Repo, Token: token, TokenSource: source, Path: g.Path, Branch: g.Branch, Version: s.opts.Version}
	} else {
		rules, err := filepath.Abs(pc.Rules)
		if err != nil {
			return nil, fmt.Errorf("%w: project %s: %w", ErrConfig, id, err)
		}
		if _, err := os.Stat(rules); err != nil {
			return nil, fmt.Errorf("%w: project %s: rules: %w", ErrConfig, id, err)
		}
		p.Config.Rules = rules
		mo.Rules, mo.Ref = rules, compiler.Branch(rules)
		cfg = proposals.Config{Rules: rules, Version: s.opts.Version}
	}
	p.proposals = sync.OnceValues(func() (proposals.Backend, error) { return proposals.OpenBackend(cfg) })
	mc := s.opts.Memory
	p.memory = onceMemory(func() (memory.Store, memory.Embedder, error) {
		// The project's one store, the sidecar's and the CLI's too (one
		// Qdrant: a namespace per project); one kept where this gateway
		// used to keep it seeds it.
		c := mc
		if c.DataDir == "" {
			c.DataDir = filepath.Join(s.cfg.StateDir, "memory")
		}
		return memory.OpenProject(c, id, filepath.Join(s.cfg.StateDir, "memory", id, "memory.db"))
	})
	mo.Proposals, mo.Memory = p.proposals, p.memory
	mo.Examples = s.opts.Examples
	if kc := pc.Kanboard; kc != nil {
		kb, status, err := Kanboard(*kc, cr)
		if err != nil {
			return nil, fmt.Errorf("project %s: %w", id, err)
		}
		mo.Kanboard, p.kanboard = kb, status
	}
	p.mcp = mcp.New(mo)
	if err := p.mcp.Err(); err != nil {
		return nil, fmt.Errorf("%w: project %s: %w", ErrConfig, id, err)
	}
	if len(pc.Upstreams) > 0 {
		ups, err := StartUpstreams(s.ctx, pc.Upstreams, p.mcp, cr, log)
		if err != nil {
			return nil, fmt.Errorf("project %s: %w", id, err)
		}
		p.upstreams = ups
	}
	p.handler = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return p.mcp.SDK() }, &sdk.StreamableHTTPOptions{
		Logger:              slog.New(slog.DiscardHandler),
		MaxRequestBodyBytes: s.cfg.MaxBodyBytes,
		SessionTimeout:      s.opts.SessionTimeout,
	})
	return p, nil
}

// history is the project's rules history as audit events: its merges and
// its unreviewed changes (what the sidecar's bridle audit adds to the log).
// A history that cannot be read is logged and left out.
func (p *Project) history(ctx context.Context, log *slog.Logger) []audit.Event {
	merges, err := p.mcp.History(ctx)
	if err != nil {
		log.Warn("audit: the rules' history could not be read", "project", p.ID, "err", err)
	}
	out := audit.FromMerges(p.ID, merges)
	if snap, _, _ := p.mcp.Rules(); snap != nil && snap.Approval != nil {
		out = append(out, audit.FromUnapproved(p.ID, snap.Approval.Unapproved)...)
	}
	return out
}

// Status is the project's rules status, now.
func (p *Project) Status(now time.Time) ProjectStatus {
	snap, st, err := p.mcp.Rules()
	ps := ProjectStatus{ID: p.ID, Source: p.Source(), Backend: "local", Stale: st.Stale, Reason: st.Reason, Commit: st.Commit, ContentHash: st.ContentHash}
	if p.gitea != nil {
		ps.Backend = "gitea"
	}
	if !st.CompiledAt.IsZero() {
		ps.CompiledAt = st.CompiledAt
		ps.AgeSeconds = now.Sub(st.CompiledAt).Seconds()
	}
	if err != nil {
		ps.Error = err.Error()
	}
	ps.Loaded = snap != nil
	if snap != nil {
		a := snap.Approval
		ps.Approved = a != nil && !a.Truncated && !a.Incomplete && len(a.Unapproved) == 0
	}
	return ps
}

// ProjectStatus is a project as the admin API and /readyz show it.
type ProjectStatus struct {
	ID          string    `json:"id"`
	Source      string    `json:"source"`
	Backend     string    `json:"backend"` // local or gitea
	Loaded      bool      `json:"loaded"`
	Approved    bool      `json:"approved"`
	Stale       bool      `json:"stale"`
	Reason      string    `json:"reason,omitempty"`
	Error       string    `json:"error,omitempty"`
	Commit      string    `json:"commit,omitempty"`
	ContentHash string    `json:"content_hash,omitempty"`
	CompiledAt  time.Time `json:"compiled_at,omitzero"`
	AgeSeconds  float64   `json:"age_seconds"`
	Agents      int       `json:"agents"`
	Sessions    int       `json:"sessions"`
}

// onceMemory opens the store once, on first use.
func onceMemory(open func() (memory.Store, memory.Embedder, error)) func() (memory.Store, memory.Embedder, error) {
	var (
		once sync.Once
		st   memory.Store
		emb  memory.Embedder
		err  error
	)
	return func() (memory.Store, memory.Embedder, error) {
		once.Do(func() { st, emb, err = open() })
		return st, emb, err
	}
}

// liveSessions is how many MCP sessions of the project are open.
func (p *Project) liveSessions() int {
	n := 0
	for range p.mcp.SDK().Sessions() {
		n++
	}
	return n
}

// dirOf is the directory a rules path names: itself, or a file's directory
// (secrets.enc.yaml lives beside bridle.yaml).
func dirOf(p string) string {
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return filepath.Dir(p)
	}
	return p
}

package mcp

import (
	"cmp"
	"context"

	"github.com/bridle-dev/bridle/compiler"
	bgitea "github.com/bridle-dev/bridle/gitea"
	"github.com/bridle-dev/bridle/live"
	"github.com/bridle-dev/bridle/mirror"
)

// Status says how fresh the snapshot being served is (live.Status).
type Status = live.Status

// ErrMovedBack: the served ref moved to a commit that does not descend from
// the one served before (live.ErrMovedBack).
var ErrMovedBack = live.ErrMovedBack

// liveOptions are the live rules source options a server's options name.
func liveOptions(opts Options) live.Options {
	o := live.Options{Rules: opts.Rules, Ref: opts.Ref, Worktree: opts.Worktree, Snapshot: opts.Snapshot,
		Version: opts.Version, CacheDir: opts.CacheDir, Refresh: opts.Refresh, Log: opts.Logger, Now: opts.Now}
	if g := opts.Gitea; g != nil {
		o.Gitea = &mirror.Options{Gitea: bgitea.Options{URL: g.URL, Token: g.Token, TokenSource: g.TokenSource, HTTP: g.HTTP, Retry: g.Retry},
			Owner: g.Owner, Repo: g.Repo, Main: g.Main, Path: g.Path, Bot: true} // the sidecar's and the gateway's token is the proposals bot's
	}
	return o
}

// Load loads the rules once, exactly as a local sidecar with opts serves
// them (live.Load).
func Load(opts Options) (*compiler.Snapshot, Status, error) {
	return live.Load(liveOptions(opts))
}

// History is the merges into the branch the server serves, from its
// history (compiler.Timeline), as bridle audit reads them: on Gitea from
// the mirror, with its pull requests and its bot. A server of a snapshot
// file has none.
func (s *Server) History(ctx context.Context) ([]compiler.Merge, error) {
	if s.src == nil {
		return nil, s.srcErr
	}
	if s.opts.Snapshot != "" {
		return nil, nil
	}
	opts := compiler.Options{Rules: s.opts.Rules, Ref: cmp.Or(s.opts.Ref, compiler.Branch(s.opts.Rules))}
	if m := s.src.Mirror(); m != nil {
		bot, err := m.Bot(ctx)
		if err != nil {
			return nil, err
		}
		opts = compiler.Options{Rules: m.Dir(), Ref: m.Main(), File: m.Path(), PRLookup: m.PRLookup(ctx), Bot: bot}
	}
	return compiler.Timeline(opts)
}

package gateway

import (
	"context"
	"errors"
	"fmt"
	"github.com/bridle-dev/bridle/actor"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/renameio/v2"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/schema"
	"github.com/bridle-dev/bridle/vendorsync"
)

// syncVendors is bridle vendor sync on project p's main rules: one proposal
// per vendor with what is new (never merged). Its fetch state is kept in the
// state directory, so unchanged documents open nothing.
func (s *Server) syncVendors(ctx context.Context, p *Project, agent string, origin proposals.Origin) ([]vendorsync.Result, error) {
	svc, err := s.service(p)
	if err != nil {
		return nil, err
	}
	results, diags, err := vendorsync.Sync(ctx, vendorsync.Options{Service: svc, Origin: origin, Agent: agent,
		State: vendorsync.Dir(s.vendorDir(p)), Version: s.opts.Version})
	switch {
	case err != nil:
		return nil, err
	case diags != nil:
		return nil, fmt.Errorf("%w: main's rules are invalid: %s", errBadRequest, diags.Error())
	}
	return results, nil
}

func (s *Server) vendorDir(p *Project) string { return filepath.Join(s.cfg.StateDir, "vendor", p.ID) }

func opened(results []vendorsync.Result) int {
	n := 0
	for _, r := range results {
		if r.Proposal != nil {
			n++
		}
	}
	return n
}

// lastSyncFile remembers when a project's vendor sources were last synced
// on schedule (or first served, before its first sync).
const lastSyncFile = "last-sync"

// lastVendorSync is when p was last synced on schedule; the first time a
// project is served it is now, so the first sync is one interval later.
func (s *Server) lastVendorSync(p *Project) time.Time {
	path := filepath.Join(s.vendorDir(p), lastSyncFile)
	if b, err := os.ReadFile(path); err == nil {
		if t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(b))); err == nil {
			return t
		}
	}
	now := s.now()
	s.markVendorSync(p, now)
	return now
}

func (s *Server) markVendorSync(p *Project, t time.Time) {
	dir := s.vendorDir(p)
	if err := os.MkdirAll(dir, 0o700); err == nil {
		err = renameio.WriteFile(filepath.Join(dir, lastSyncFile), []byte(t.UTC().Format(time.RFC3339Nano)+"\n"), 0o600)
		if err == nil {
			return
		}
	}
	s.log.Warn("vendor sync: the time of the last sync was not saved (the next start syncs one interval later)", "project", p.ID)
}

// vendorLoop syncs every project's vendor sources each interval until ctx
// is done. A project is synced when an interval has passed since its last
// scheduled sync, which survives restarts; each sync is an audit event of
// source vendor, and a source that cannot be fetched is logged and tried
// again next time.
func (s *Server) vendorLoop(ctx context.Context, interval time.Duration) {
	for {
		next := time.Time{}
		for _, id := range s.ids {
			p := s.projects[id]
			due := s.lastVendorSync(p).Add(interval)
			if !s.now().Before(due) {
				s.scheduledVendorSync(ctx, p)
				due = s.now().Add(interval)
			}
			if next.IsZero() || due.Before(next) {
				next = due
			}
		}
		if next.IsZero() {
			return
		}
		t := time.NewTimer(max(next.Sub(s.now()), 0))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

func (s *Server) scheduledVendorSync(ctx context.Context, p *Project) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	results, err := s.syncVendors(ctx, p, "", proposals.Origin{Source: schema.SourceUser, Author: "bridle serve (scheduled vendor sync)"})
	if errors.Is(err, context.Canceled) {
		return
	}
	s.markVendorSync(p, s.now())
	if err != nil {
		s.log.Warn("scheduled vendor sync failed; it runs again next interval", "project", p.ID, "err", s.red.Error(err))
		return
	}
	var failures []string
	for _, r := range results {
		for _, e := range r.Errors {
			failures = append(failures, r.Agent+": "+e)
		}
	}
	if len(failures) > 0 {
		s.log.Warn("scheduled vendor sync: some sources could not be read; they are tried again next interval", "project", p.ID, "errors", s.red.Redact(strings.Join(failures, "; ")))
	}
	if len(results) == 0 {
		return
	}
	s.log.Info("scheduled vendor sync", "project", p.ID, "proposals", opened(results))
	self := actor.Self("bridle serve")
	e := audit.Event{Kind: audit.KindAdmin, Actor: &self, Source: string(schema.SourceVendor), Project: p.ID,
		Summary: fmt.Sprintf("scheduled sync of the vendors' guidance: %d proposals", opened(results))}
	if err := p.audit.Append(e); err != nil {
		s.log.Warn("audit event not written", "project", p.ID, "err", err)
	}
}

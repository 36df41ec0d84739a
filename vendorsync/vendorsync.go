// Package vendorsync is bridle vendor sync: it reads each agent profile's
// vendor_sources with package feed and proposes what changed.
//
// Promises:
//   - One proposal per vendor (profile) per sync, of kind vendor: the new
//     suggestions, each with its evidence (section, quoted excerpt,
//     document URL and hash), and the earlier ones whose text left the
//     document (withdrawn). Nothing is merged: a human approves. The
//     proposal is the vendor's (its origin); who ran the sync is recorded
//     as having started it (Origin.TriggeredBy), never as its author.
//   - Suggestions that duplicate a guardrail or an earlier suggestion
//     (dismissed ones included) are not proposed again; a document that did
//     not change opens nothing.
//   - A source's fetch state is saved only once its proposal exists (or when
//     there is nothing to propose), so a failed proposal is retried.
//   - A source that cannot be fetched is reported in the result and leaves
//     that source's earlier suggestions as they are.
package vendorsync

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/renameio/v2"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/feed"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/schema"
)

// Result is what one profile's sync found and did.
type Result struct {
	Agent     string   `json:"agent"`
	Sources   []string `json:"sources"`
	Read      int      `json:"read"`      // how many of Sources answered (a document, or not modified)
	New       []string `json:"new"`       // suggestion ids
	Withdrawn []string `json:"withdrawn"` // suggestion ids
	Unchanged bool     `json:"unchanged,omitempty"`
	Errors    []string `json:"errors,omitempty"`
	Proposal  *int     `json:"proposal,omitempty"`
}

// State remembers each source's last fetch, for conditional requests.
type State interface {
	Load(url string) feed.Previous
	Save(url string, p feed.Previous)
}

// Dir is a State kept as one small file per source in a directory ("" for
// none: every sync reads whole documents).
type Dir string

func (d Dir) path(url string) string {
	h := sha256.Sum256([]byte(url))
	return filepath.Join(string(d), hex.EncodeToString(h[:12])+".json")
}

// Load is the source's last fetch, empty when unknown.
func (d Dir) Load(url string) feed.Previous {
	var p feed.Previous
	if d == "" {
		return p
	}
	if b, err := os.ReadFile(d.path(url)); err == nil {
		var st struct {
			ETag         string `json:"etag,omitempty"`
			LastModified string `json:"last_modified,omitempty"`
			Hash         string `json:"hash,omitempty"`
		}
		if json.Unmarshal(b, &st) == nil {
			p = feed.Previous{ETag: st.ETag, LastModified: st.LastModified, Hash: st.Hash}
		}
	}
	return p
}

// Save remembers a fetch; failing to is harmless (the next sync reads the
// whole document).
func (d Dir) Save(url string, p feed.Previous) {
	if d == "" {
		return
	}
	b, _ := json.Marshal(map[string]string{"etag": p.ETag, "last_modified": p.LastModified, "hash": p.Hash})
	if err := os.MkdirAll(string(d), 0o700); err == nil {
		renameio.WriteFile(d.path(url), append(b, '\n'), 0o600)
	}
}

// Options are a sync's dependencies.
type Options struct {
	Service proposals.Service
	// Origin is who runs the sync. The proposals are the vendor's (source
	// vendor, agent the profile); who ran it is recorded as
	// Origin.TriggeredBy, not as their author, so the human who started a
	// sync approves the vendor's text as anyone else's.
	Origin  proposals.Origin
	Agent   string // one profile; "" for every profile with sources
	State   State
	Fetch   feed.Options
	Version string
}

// ErrNoProfile is returned for an Agent the rules have no profile for.
var ErrNoProfile = fmt.Errorf("%w: no such agent profile", proposals.ErrBadInput)

// Sync syncs the profiles of main's rules. The rules must be valid; a
// returned *compiler diagnostics error says why they are not.
func Sync(ctx context.Context, o Options) ([]Result, schema.Diagnostics, error) {
	rules, _, err := o.Service.Backend.Main(ctx)
	if err != nil {
		return nil, nil, err
	}
	snap, diags := compiler.CompileBytes(compiler.Input{Name: "bridle.yaml (main)", Data: rules}, o.Version)
	if snap == nil {
		return nil, diags, nil
	}
	doc := snap.Document
	agents := slices.Sorted(maps.Keys(doc.AgentProfiles))
	if o.Agent != "" {
		if _, ok := doc.AgentProfiles[o.Agent]; !ok {
			return nil, nil, fmt.Errorf("%w %q; profiles: %s", ErrNoProfile, o.Agent, strings.Join(agents, ", "))
		}
		agents = []string{o.Agent}
	}
	st := o.State
	if st == nil {
		st = Dir("")
	}
	results := []Result{}
	for _, a := range agents {
		prof := doc.AgentProfiles[a]
		if len(prof.VendorSources) == 0 {
			continue
		}
		r, ch, states := syncProfile(ctx, st, o.Fetch, doc, a, prof)
		if ch != nil {
			origin := proposals.Origin{Source: schema.SourceVendor, Agent: a, TriggeredBy: trigger(o.Origin)}
			p, err := o.Service.Propose(ctx, proposals.Draft{Change: *ch, Origin: origin})
			if err != nil {
				r.Errors = append(r.Errors, err.Error())
				states = nil // the next sync tries again
			} else {
				r.Proposal = &p.Number
			}
		}
		for url, p := range states {
			st.Save(url, p)
		}
		results = append(results, r)
	}
	return results, nil, nil
}

// trigger names who runs a sync: the human, or the agent and its session
// (a sync run from an agent's shell).
func trigger(o proposals.Origin) string {
	if o.Source == schema.SourceAgent && o.Agent != "" {
		s := "agent " + o.Agent
		if o.Session != "" {
			s += " (session " + o.Session + ")"
		}
		return s
	}
	return o.Author
}

// syncProfile fetches a profile's sources and says what to propose (nil:
// nothing). Fetch errors are reported in the result and leave that
// source's earlier suggestions as they are.
func syncProfile(ctx context.Context, st State, opts feed.Options, doc schema.Document, agent string, prof schema.AgentProfile) (Result, *proposals.Change, map[string]feed.Previous) {
	r := Result{Agent: agent, New: []string{}, Withdrawn: []string{}}
	states := map[string]feed.Previous{}
	var existing []string
	ids := map[string]bool{}
	for _, g := range doc.Guardrails {
		existing = append(existing, g.Statement)
		ids[g.ID] = true
	}
	for _, s := range prof.VendorGuardrailSuggestions {
		existing = append(existing, s.Statement)
		ids[s.ID] = true
	}
	up := &proposals.VendorUpdate{Agent: agent}
	unchanged := true
	for _, src := range prof.VendorSources {
		r.Sources = append(r.Sources, src.URL)
		prev := st.Load(src.URL)
		d, err := feed.Fetch(ctx, feed.Source{URL: src.URL, Format: feed.Format(src.Format), Selector: src.Selector}, prev, opts)
		if err != nil {
			r.Errors = append(r.Errors, err.Error())
			continue
		}
		r.Read++
		if d.NotModified || prev.Hash != "" && d.Hash == prev.Hash {
			// The document read last time, whose suggestions were proposed
			// then (and are approved, pending or declined): nothing new.
			continue
		}
		unchanged = false
		var earlier []string
		var earlierIDs []string
		for _, s := range prof.VendorGuardrailSuggestions {
			if s.Source == src.URL && (s.Status == "" || s.Status == schema.SuggestionPending) {
				earlier, earlierIDs = append(earlier, s.Statement), append(earlierIDs, s.ID)
			}
		}
		for _, i := range feed.Withdrawn(earlier, d) {
			up.Withdraw = append(up.Withdraw, earlierIDs[i])
			r.Withdrawn = append(r.Withdrawn, earlierIDs[i])
		}
		for _, c := range feed.Dedupe(feed.Extract(d.Blocks), existing) {
			id := c.ID
			for n := 2; ids[id]; n++ {
				id = fmt.Sprintf("%s-%d", c.ID, n)
			}
			ids[id] = true
			existing = append(existing, c.Statement)
			up.Add = append(up.Add, schema.VendorSuggestion{ID: id, Statement: c.Statement, Severity: c.Severity,
				Source: src.URL, DocumentHash: d.Hash, Section: strings.Join(c.HeadingPath, " > "), Excerpt: c.Excerpt})
			r.New = append(r.New, id)
		}
		states[src.URL] = feed.Previous{ETag: d.ETag, LastModified: d.LastModified, Hash: d.Hash}
	}
	r.Unchanged = unchanged && len(r.Errors) == 0
	if len(up.Add) == 0 && len(up.Withdraw) == 0 {
		return r, nil, states
	}
	if len(up.Add) > proposals.MaxVendorAdd {
		up.Add, r.New = up.Add[:proposals.MaxVendorAdd], r.New[:proposals.MaxVendorAdd]
	}
	return r, &proposals.Change{Kind: proposals.KindVendor, Vendor: up,
		Rationale: fmt.Sprintf("bridle vendor sync of %s's published guidance: %s", agent, strings.Join(r.Sources, ", "))}, states
}

package main

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
	"github.com/spf13/cobra"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/feed"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/schema"
)

func newVendorCmd(io *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "vendor",
		Short: "Turn vendors' published guidance into suggestions to review",
		Long: `Vendor reads the guidance each agent's vendor publishes (the profile's
vendor_sources) and turns the rules it states into suggestions — profile data
a human reviews, never policy by itself. A sync opens one proposal per vendor
with the new suggestions (each with its evidence: the section and a quoted
excerpt of the document, its URL and hash) and the earlier ones whose text
left the document (withdrawn); approving it adds them to the profile's
vendor_guardrail_suggestions. A suggestion becomes a guardrail only through
a promotion a human approves; a dismissed one is not brought back.

Fetched documents are data: nothing in them is followed as an instruction,
and their text is quoted wherever it is shown.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	cmd.AddCommand(newVendorSyncCmd(io), newVendorPromoteCmd(io), newVendorDismissCmd(io))
	return cmd
}

// SyncResult is what one profile's sync found and did.
type SyncResult struct {
	Agent     string   `json:"agent"`
	Sources   []string `json:"sources"`
	New       []string `json:"new"`       // suggestion ids
	Withdrawn []string `json:"withdrawn"` // suggestion ids
	Unchanged bool     `json:"unchanged,omitempty"`
	Errors    []string `json:"errors,omitempty"`
	Proposal  *int     `json:"proposal,omitempty"`
}

// fetchState is what a sync remembers of a document, for a conditional
// request next time.
type fetchState struct {
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	Hash         string `json:"hash,omitempty"`
}

func newVendorSyncCmd(io *streams) *cobra.Command {
	var b backendFlags
	var agent, as string
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Fetch the vendors' documents and propose their new suggestions",
		Long: `Sync fetches each profile's vendor_sources (https only, or http on a loopback
address; conditional requests; at most 2 MiB each; 20 s; 3 redirects),
extracts the imperative rules they state, drops those that duplicate a
guardrail or an earlier suggestion (dismissed ones included), and opens one
proposal per vendor with the rest and with the earlier suggestions whose text
is gone (withdrawn). A document that did not change opens nothing. Nothing
is ever merged by sync.`,
		Example: `  bridle vendor sync --rules .
  bridle vendor sync --rules . --agent claude --json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			svc, err := b.service(io.f)
			if err != nil {
				return err
			}
			ctx, cancel := ctx30()
			defer cancel()
			rules, _, err := svc.Backend.Main(ctx)
			if err != nil {
				return err
			}
			snap, diags := compiler.CompileBytes(compiler.Input{Name: "bridle.yaml (main)", Data: rules}, version())
			if snap == nil {
				printDiagnostics(io, diags)
				return &exitError{exitInvalid, errReported}
			}
			doc := snap.Document
			agents := slices.Sorted(maps.Keys(doc.AgentProfiles))
			if agent != "" {
				if _, ok := doc.AgentProfiles[agent]; !ok {
					return usageErr("no agent profile %q; profiles: %s", agent, strings.Join(agents, ", "))
				}
				agents = []string{agent}
			}
			origin, err := cliOrigin(io, as, b.rules)
			if err != nil {
				return err
			}
			var results []SyncResult
			for _, a := range agents {
				prof := doc.AgentProfiles[a]
				if len(prof.VendorSources) == 0 {
					continue
				}
				r, ch, states := syncProfile(ctx, io, doc, a, prof)
				if ch != nil {
					o := origin
					o.Source, o.Agent = schema.SourceVendor, a
					p, err := svc.Propose(ctx, proposals.Draft{Change: *ch, Origin: o})
					if err != nil {
						r.Errors = append(r.Errors, err.Error())
						states = nil // the next sync tries again
					} else {
						r.Proposal = &p.Number
					}
				}
				for url, st := range states {
					saveState(io, url, st)
				}
				results = append(results, r)
			}
			if b.json {
				if results == nil {
					results = []SyncResult{}
				}
				return writeJSON(io, results)
			}
			if len(results) == 0 {
				none(io, "no profile has vendor_sources", "add one under agent_profiles.NAME.vendor_sources: [{url: https://…}]")
				return nil
			}
			failed := false
			for _, r := range results {
				switch {
				case r.Proposal != nil:
					fmt.Fprintf(io.errOut, "%s: %d new, %d withdrawn: proposal #%d (review and approve it like any other)\n", r.Agent, len(r.New), len(r.Withdrawn), *r.Proposal)
				case len(r.Errors) == 0:
					fmt.Fprintf(io.errOut, "%s: nothing new\n", r.Agent)
				}
				for _, e := range r.Errors {
					failed = true
					fmt.Fprintf(io.errOut, "%s: %s\n", r.Agent, e)
				}
			}
			if failed {
				return &exitError{exitFailure, errReported}
			}
			return nil
		},
	}
	b.register(cmd, "print what each profile's sync found and did as a JSON array on stdout")
	cmd.Flags().StringVar(&agent, "agent", "", "sync only this `profile`")
	cmd.Flags().StringVar(&as, "as", "", "your `name` (default: git's author identity)")
	return cmd
}

// syncProfile fetches a profile's sources and says what to propose (nil:
// nothing). Fetch errors are reported in the result and leave that
// source's earlier suggestions as they are.
func syncProfile(ctx context.Context, io *streams, doc schema.Document, agent string, prof schema.AgentProfile) (SyncResult, *proposals.Change, map[string]fetchState) {
	r := SyncResult{Agent: agent, New: []string{}, Withdrawn: []string{}}
	states := map[string]fetchState{}
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
		prev := loadState(io, src.URL)
		d, err := feed.Fetch(ctx, feed.Source{URL: src.URL, Format: feed.Format(src.Format), Selector: src.Selector}, prev, feed.Options{})
		if err != nil {
			r.Errors = append(r.Errors, err.Error())
			continue
		}
		if d.NotModified && d.Text == "" { // a 304: nothing to read
			continue
		}
		if d.Hash != prev.Hash {
			unchanged = false
		}
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
		states[src.URL] = fetchState{ETag: d.ETag, LastModified: d.LastModified, Hash: d.Hash}
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

// statePath is where a source's fetch state lives ("" when caching is off).
func statePath(io *streams, url string) string {
	root := io.f.CacheRoot()
	if root == "" {
		return ""
	}
	h := sha256.Sum256([]byte(url))
	return filepath.Join(root, "vendor", hex.EncodeToString(h[:12])+".json")
}

func loadState(io *streams, url string) feed.Previous {
	var st fetchState
	if p := statePath(io, url); p != "" {
		if b, err := os.ReadFile(p); err == nil {
			json.Unmarshal(b, &st)
		}
	}
	return feed.Previous{ETag: st.ETag, LastModified: st.LastModified, Hash: st.Hash}
}

// saveState remembers a source's fetch, for the next sync's conditional
// request; failing to is harmless (the next sync reads the whole document).
func saveState(io *streams, url string, st fetchState) {
	p := statePath(io, url)
	if p == "" {
		return
	}
	b, _ := json.Marshal(st)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err == nil {
		renameio.WriteFile(p, append(b, '\n'), 0o600)
	}
}

func newVendorPromoteCmd(io *streams) *cobra.Command {
	var o proposeOptions
	var severity string
	var appliesTo []string
	c := &cobra.Command{
		Use:   "promote AGENT SUGGESTION",
		Short: "Propose a vendor suggestion as a guardrail of the project",
		Long: `Promote opens a proposal that turns one of AGENT's vendor suggestions into a
guardrail. Once a human approves it, renders show it as suggested by the
vendor and approved by that human, with the vendor's document and its hash
in its provenance. A dismissed suggestion cannot be promoted.`,
		Example: `  bridle vendor promote claude ask-before-large-changes --severity hard-instruction --why "We want this"`,
	}
	c.Flags().StringVar(&severity, "severity", "", "the guardrail's `tier`: guidance, hard-instruction or enforcement (default: the vendor's)")
	c.Flags().StringSliceVar(&appliesTo, "applies-to", nil, "the `agents` it applies to (default: AGENT)")
	var args []string
	c.PreRunE = func(_ *cobra.Command, a []string) error { args = a; return nil }
	c = proposeCmd(io, c, &o, func() (proposals.Change, error) {
		if severity != "" && !slices.Contains(schema.Severities, schema.Severity(severity)) {
			return proposals.Change{}, usageErr("--severity %q: guidance, hard-instruction or enforcement", severity)
		}
		return proposals.Change{Kind: proposals.KindPromote, Promote: &proposals.Promotion{Agent: args[0], Suggestion: args[1],
			AppliesTo: appliesTo, Severity: schema.Severity(severity)}}, nil
	})
	c.Args = cobra.ExactArgs(2)
	return c
}

func newVendorDismissCmd(io *streams) *cobra.Command {
	var o proposeOptions
	c := &cobra.Command{
		Use:   "dismiss AGENT SUGGESTION...",
		Short: "Propose to dismiss vendor suggestions (later syncs skip them)",
		Long: `Dismiss opens a proposal marking AGENT's suggestions dismissed: once
approved, later syncs do not bring them back and they cannot be promoted.`,
		Example: `  bridle vendor dismiss claude keep-tests-green --why "Our CI does this"`,
	}
	var args []string
	c.PreRunE = func(_ *cobra.Command, a []string) error { args = a; return nil }
	c = proposeCmd(io, c, &o, func() (proposals.Change, error) {
		return proposals.Change{Kind: proposals.KindVendor, Vendor: &proposals.VendorUpdate{Agent: args[0], Dismiss: args[1:]}}, nil
	})
	c.Args = cobra.MinimumNArgs(2)
	return c
}

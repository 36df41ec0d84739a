package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/gitea"
	"github.com/bridle-dev/bridle/live"
	"github.com/bridle-dev/bridle/mirror"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/schema"
)

type auditOptions struct {
	rules   rulesFlags
	backend backendFlags
	project string
	agent   string
	kind    string
	source  string
	since   string
}

func newAuditCmd(io *streams) *cobra.Command {
	var o auditOptions
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Show one timeline of approvals, unreviewed changes and events",
		Long: `Audit prints one timeline of the project's rules:

  merge           a proposal merged into main, from the rules repository's history:
                  who proposed it (source, agent, session) and who approved it
  unreviewed      a change on main that no approved merge produced (a direct
                  commit, a fast-forward, a merge beyond its proposal): served as
                  NOT APPROVED, granting nothing, until a proposal approves it
  write           a sidecar tool changed something (e.g. opened a proposal)
  refusal         a call refused for a missing permission
  scope_request   an agent asked the human through elicitation
  scope_pending   no elicitation: the agent was told to ask in chat
  scope_decision  the human's answer

The history comes from --rules (a local rules repository; --ref picks the
branch) or, with --gitea/--repo, from the Gitea repository; the events come
from the sidecars' log in the user state directory ($BRIDLE_STATE_DIR
overrides). Events are oldest first; merges, which git records to the
second, come after the events of the same second. The text output has a
TIME, KIND, AGENT and SUMMARY column; a merge's summary names who proposed
it and who approved it.`,
		Example: `  bridle audit --rules .
  bridle audit --gitea https://gitea.example.com --repo acme/rules --agent codex --since 168h --json
  bridle audit --rules . --source vendor`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			var since time.Time
			if o.since != "" {
				if d, err := time.ParseDuration(o.since); err == nil {
					since = time.Now().Add(-d)
				} else if t, err := time.Parse(time.RFC3339, o.since); err == nil {
					since = t
				} else if t, err := time.Parse(time.DateOnly, o.since); err == nil {
					since = t
				} else {
					return usageErr("--since %q: use a duration (24h) or a date (2026-11-01 or RFC 3339)", o.since)
				}
			}
			merges, unreviewed, project, err := o.history(io)
			if err != nil {
				fmt.Fprintf(io.errOut, "warning: no rules history: %v\n", err)
			}
			if o.project != "" {
				project = o.project
			}
			if project == "" {
				return usageErr("audit needs --project ID, or --rules / --gitea pointing at readable rules")
			}
			dir, err := io.f.StateDir()
			if err != nil {
				return err
			}
			f := audit.Filter{Agent: o.agent, Kind: o.kind, Source: o.source, Since: since}
			events, bad, err := audit.Open(dir, project, nil).Read(audit.Filter{})
			if err != nil {
				return err
			}
			if bad > 0 {
				fmt.Fprintf(io.errOut, "warning: skipped %s that could not be read\n", count(bad, "damaged line", "damaged lines"))
			}
			all := audit.Combine(f, events, audit.FromMerges(project, merges), audit.FromUnapproved(project, unreviewed))
			if len(unreviewed) > 0 && !o.rules.json {
				fmt.Fprintf(io.errOut, "warning: %s on main that no approved merge produced (kind unreviewed below); they grant nothing until a proposal approves them\n",
					count(len(unreviewed), "unreviewed change", "unreviewed changes"))
			}
			if o.rules.json {
				if all == nil {
					all = []audit.Event{}
				}
				return writeJSON(io, all)
			}
			if len(all) == 0 {
				if f != (audit.Filter{}) {
					none(io, "no events match the filters for project "+project, "drop --agent, --kind, --source or --since to see them all")
				} else {
					none(io, "no events yet for project "+project, "bridle approve records merges, and bridle mcp what agents do")
				}
				return nil
			}
			w := table(io.out, "TIME", "KIND", "AGENT", "SUMMARY")
			for _, e := range all {
				line := e.Summary
				if e.Permission != "" {
					line += " (needs " + e.Permission + ")"
				}
				if e.Kind != audit.KindMerge && e.ID != "" {
					line += " [" + e.ID + "]"
				}
				if a, ok := e.Detail["action"].(string); ok {
					line += ": " + a
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", e.Time.UTC().Format(time.RFC3339), cell(e.Kind), cell(e.Agent), cell(line))
			}
			return w.Flush()
		},
	}
	o.rules.register(cmd, "print the events, oldest first, as a JSON array on stdout", false)
	giteaFlags(cmd, &o.backend.gitea, &o.backend.repo, nil, "read the history of the rules repository")
	cmd.Flags().StringVar(&o.project, "project", "", "project `id` (default: from the rules)")
	cmd.Flags().StringVar(&o.agent, "agent", "", "only events of this `agent` (for merges: the proposing agent)")
	cmd.Flags().StringVar(&o.kind, "kind", "", "only events of this `kind`: merge, unreviewed, write, refusal, scope_request, scope_pending or scope_decision")
	cmd.Flags().StringVar(&o.source, "source", "", "only events whose origin is this `source`: user, agent or vendor")
	cmd.Flags().StringVar(&o.since, "since", "", "only events since a `duration` ago (24h) or a date")
	return cmd
}

// history reads the merges, the unreviewed changes and the project id from
// the rules repository (main, unless --ref says otherwise).
func (o *auditOptions) history(io *streams) ([]compiler.Merge, []schema.Unapproved, string, error) {
	cfg, err := io.f.Proposals(proposals.Config{Rules: o.rules.rules, GiteaURL: o.backend.gitea, GiteaRepo: o.backend.repo})
	if err != nil {
		return nil, nil, "", err
	}
	ref := o.rules.ref
	if ref == "" {
		ref = compiler.Branch(o.rules.rules) // what the sidecars serve
	}
	opts := compiler.Options{Rules: o.rules.rules, Ref: ref}
	if cfg.GiteaURL != "" && cfg.GiteaRepo != "" {
		owner, name, err := proposals.Split(cfg.GiteaRepo)
		if err != nil {
			return nil, nil, "", err
		}
		// The rules the sidecars serve, from the same source and cache.
		r, err := live.Open(live.Options{Gitea: &mirror.Options{Gitea: gitea.Options{URL: cfg.GiteaURL, Token: cfg.Token}, Owner: owner, Repo: name, Main: cfg.Branch},
			CacheDir: io.f.CacheDir(), Version: version()})
		if err != nil {
			return nil, nil, "", err
		}
		if _, st, err := r.Current(); err != nil {
			return nil, nil, "", err
		} else if st.Stale {
			return nil, nil, "", fmt.Errorf("the history on Gitea cannot be read: %s", st.Reason)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		bot, err := r.Mirror().Bot(ctx) // as a sidecar on this cache recorded it: this token may be a person's
		if err != nil {
			return nil, nil, "", err
		}
		opts = compiler.Options{Rules: r.Mirror().Dir(), Ref: r.Mirror().Main(), File: r.Mirror().Path(), PRLookup: r.Mirror().PRLookup(ctx), Bot: bot}
	}
	project := ""
	// The project id names the event log; the work tree's will do when the
	// ref cannot be read (the events are still worth showing).
	for _, ref := range []string{opts.Ref, ""} {
		if in, diags, err := compiler.Read(compiler.Options{Rules: opts.Rules, Ref: ref, File: opts.File, NoHistory: true}); err == nil && !diags.HasErrors() {
			project = schema.ProjectID(in.Data)
			break
		}
	}
	merges, err := compiler.Timeline(opts)
	if err != nil {
		return nil, nil, project, err
	}
	var unreviewed []schema.Unapproved
	snap, diags, err := compiler.Compile(opts)
	switch {
	case err != nil:
		return merges, nil, project, fmt.Errorf("unreviewed changes: %w", err)
	case snap == nil && noRulesAt(opts.Rules):
		return merges, nil, project, fmt.Errorf("unreviewed changes: no %s in %s (point --rules at the rules, e.g. --rules rules)", compiler.FileName, opts.Rules)
	case snap == nil:
		return merges, nil, project, fmt.Errorf("unreviewed changes: the rules at %s are invalid (%s; bridle validate --ref %s)", opts.Ref, count(len(diags), "problem", "problems"), opts.Ref)
	case snap.Approval != nil:
		unreviewed = snap.Approval.Unapproved
	}
	return merges, unreviewed, project, nil
}

// noRulesAt reports a rules path that is a directory without a bridle.yaml
// (audit run in a project without --rules).
func noRulesAt(p string) bool {
	st, err := os.Stat(p)
	if err != nil || !st.IsDir() {
		return false
	}
	_, err = os.Stat(filepath.Join(p, compiler.FileName))
	return errors.Is(err, fs.ErrNotExist)
}

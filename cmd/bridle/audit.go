package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/schema"
)

type auditOptions struct {
	rules   rulesFlags
	project string
	agent   string
	kind    string
	since   string
}

func newAuditCmd(io *streams) *cobra.Command {
	var o auditOptions
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Show the sidecars' event log: writes, refusals, scope requests and decisions",
		Long: `Audit prints the per-project event log the MCP sidecars append to: every
write, every refused call (with the missing permission), and every scope
approval request and decision. The project is read from the rules
(--rules), or named with --project.`,
		Example: `  bridle audit --rules .
  bridle audit --project runic-gateway --agent codex --since 24h --json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			project := o.project
			if project == "" {
				in, diags, err := compiler.Read(o.rules.options())
				if err != nil || diags.HasErrors() {
					return usageErr("audit needs --project ID, or --rules pointing at readable rules")
				}
				project = schema.ProjectID(in.Data)
			}
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
			dir, err := audit.DefaultDir()
			if err != nil {
				return err
			}
			events, bad, err := audit.Open(dir, project, nil).Read(audit.Filter{Agent: o.agent, Kind: o.kind, Since: since})
			if err != nil {
				return err
			}
			sort.SliceStable(events, func(i, j int) bool { return events[i].Time.Before(events[j].Time) })
			if bad > 0 {
				fmt.Fprintf(io.errOut, "warning: skipped %s that could not be read\n", plural(bad, "damaged line"))
			}
			if o.rules.json {
				if events == nil {
					events = []audit.Event{}
				}
				enc := json.NewEncoder(io.out)
				enc.SetIndent("", "  ")
				return enc.Encode(events)
			}
			if len(events) == 0 {
				fmt.Fprintf(io.errOut, "no events for project %s\n", project)
				return nil
			}
			for _, e := range events {
				line := fmt.Sprintf("%s  %-14s %-9s %s", e.Time.UTC().Format(time.RFC3339), e.Kind, e.Agent, e.Summary)
				if e.Permission != "" {
					line += " (needs " + e.Permission + ")"
				}
				if e.ID != "" {
					line += " [" + e.ID + "]"
				}
				if a, ok := e.Detail["action"].(string); ok {
					line += ": " + strings.ReplaceAll(a, "\n", " ")
				}
				fmt.Fprintln(io.out, line)
			}
			return nil
		},
	}
	o.rules.register(cmd, true)
	cmd.Flags().StringVar(&o.project, "project", "", "project `id` (default: from the rules)")
	cmd.Flags().StringVar(&o.agent, "agent", "", "only events of this `agent`")
	cmd.Flags().StringVar(&o.kind, "kind", "", "only events of this `kind`: write, refusal, scope_request, scope_pending, scope_decision")
	cmd.Flags().StringVar(&o.since, "since", "", "only events since a `duration` ago (24h) or a date")
	return cmd
}

package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"

	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/schema"
	"github.com/bridle-dev/bridle/vendorsync"
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
is ever merged by sync. The exit status is 1 when a source could not be read
(with --json too: the errors are in each result's "errors").`,
		Example: `  bridle vendor sync --rules .
  bridle vendor sync --rules . --agent claude --json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			svc, err := b.service(io.f)
			if err != nil {
				return err
			}
			origin, err := cliOrigin(io, as, b.rules)
			if err != nil {
				return err
			}
			ctx, cancel := ctx30()
			defer cancel()
			state := vendorsync.Dir("")
			if root := io.f.CacheRoot(); root != "" {
				state = vendorsync.Dir(filepath.Join(root, "vendor"))
			}
			results, diags, err := vendorsync.Sync(ctx, vendorsync.Options{Service: svc, Origin: origin, Agent: agent, State: state, Version: version()})
			switch {
			case errors.Is(err, vendorsync.ErrNoProfile):
				return usageErr("%w", err)
			case err != nil:
				return err
			case diags != nil:
				printDiagnostics(io, diags)
				return &exitError{exitInvalid, errReported}
			}
			if b.json {
				if err := writeJSON(io, results); err != nil {
					return err
				}
				for _, r := range results {
					if len(r.Errors) > 0 {
						// The errors are in the document; the exit status says so too.
						return &exitError{exitFailure, errReported}
					}
				}
				return nil
			}
			if len(results) == 0 {
				hint := "add one under agent_profiles.NAME.vendor_sources: [{url: https://…}]"
				if a, ok := agents.Lookup("claude"); ok && len(a.VendorSources) > 0 {
					hint = fmt.Sprintf("add one under agent_profiles.NAME.vendor_sources, e.g. Claude Code's: [{url: %s, format: %s}] (bridle init writes each known vendor's)", a.VendorSources[0].URL, a.VendorSources[0].Format)
				}
				none(io, "no profile has vendor_sources", hint)
				return nil
			}
			failed := false
			read, sources := 0, 0
			for _, r := range results {
				read, sources = read+r.Read, sources+len(r.Sources)
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
			fmt.Fprintf(io.errOut, "%d of %s read\n", read, count(sources, "source", "sources"))
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

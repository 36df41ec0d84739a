package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bridle-dev/bridle/renderers"
	"github.com/bridle-dev/bridle/schema"
)

type explainOptions struct {
	rules rulesFlags
	agent string
}

func newExplainCmd(io *streams) *cobra.Command {
	var o explainOptions
	cmd := &cobra.Command{
		Use:   "explain",
		Short: "Show what an agent receives: sections, guardrails, size",
		Long: `Explain shows what one agent receives from the rules: its renderer and
instruction file, the file's size in bytes and tokens, its MCP clients and
permissions, its guardrails per tier (and those not applied to it, or not
approved), what its harness enforces, and the sections of its file. Without
--agent it lists every agent of the rules, one line each (--json: every
agent's explanation). Changes served without approval are listed on stderr.`,
		Example: `  bridle explain --rules .
  bridle explain --rules . --agent kimi
  bridle explain --rules . --agent claude --json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			snap, err := o.rules.compileData(io)
			if err != nil {
				return err
			}
			agents := []string{o.agent}
			if o.agent == "" {
				agents = snap.Document.Agents()
			}
			var all []renderers.Explanation
			for _, a := range agents {
				f, ok := snap.Render(a)
				if !ok {
					return usageErr("no agent profile %q in the rules; agents: %s", a, strings.Join(snap.Document.Agents(), ", "))
				}
				e, err := renderers.ExplainAll(&snap.Document, f)
				if err != nil {
					return err
				}
				all = append(all, e)
			}
			if snap.Approval != nil {
				for _, u := range snap.Approval.Unapproved {
					fmt.Fprintf(io.errOut, "warning: %s %s without approval: %s\n", u.Subject, u.Change, u.Reason)
				}
			}
			switch {
			case o.agent != "" && o.rules.json:
				return writeJSON(io, all[0])
			case o.agent != "":
				printExplanation(io, all[0])
			case o.rules.json:
				if all == nil {
					all = []renderers.Explanation{}
				}
				return writeJSON(io, all)
			case len(all) == 0:
				none(io, "no agent profiles in the rules", "add one under agent_profiles: in bridle.yaml")
			default:
				printExplanations(io, all)
			}
			return nil
		},
	}
	o.rules.register(cmd, "print the explanation as one JSON object on stdout (invalid rules: the diagnostics instead)", true)
	cmd.Flags().StringVar(&o.agent, "agent", "", "the `agent` to explain (default: list every agent)")
	return cmd
}

func printExplanation(io *streams, e renderers.Explanation) {
	w := io.out
	fmt.Fprintf(w, "agent:        %s (%s)\n", e.Agent, e.DisplayName)
	fmt.Fprintf(w, "renderer:     %s (%s, %s style)\n", e.Renderer, e.Instructions, e.Style)
	fmt.Fprintf(w, "file:         %s\n", e.Path)
	fmt.Fprintf(w, "size:         %d bytes, about %d tokens\n", e.Bytes, e.Tokens)
	if e.Harness != "" {
		fmt.Fprintf(w, "harness:      %s\n", e.Harness)
	}
	for _, r := range e.Reads {
		switch {
		case r.Own:
			fmt.Fprintf(w, "reads:        %s (this render)\n", r.Path)
		case r.Agent != "":
			fmt.Fprintf(w, "reads:        %s, rendered for %s: it reads that profile's rules too\n", r.Path, r.Agent)
		}
	}
	if len(e.MCPClients) > 0 {
		fmt.Fprintf(w, "mcp clients:  %s\n", strings.Join(e.MCPClients, ", "))
	}
	perms := "none (least privilege)"
	if len(e.Permissions) > 0 {
		perms = strings.Join(e.Permissions, ", ")
	}
	fmt.Fprintf(w, "permissions:  %s\n\nguardrails:\n", perms)
	for _, t := range schema.Severities {
		ids := e.Tiers[string(t)]
		fmt.Fprintf(w, "  %-17s %2d  %s\n", t, len(ids), strings.Join(ids, ", "))
	}
	if len(e.NotApplied) > 0 {
		fmt.Fprintf(w, "  %-17s %2d  %s\n", "not applied", len(e.NotApplied), strings.Join(e.NotApplied, ", "))
	}
	if len(e.Unapproved) > 0 {
		fmt.Fprintf(w, "  %-17s %2d  %s\n", "NOT APPROVED", len(e.Unapproved), strings.Join(e.Unapproved, ", "))
	}
	if len(e.Enforcement) > 0 {
		fmt.Fprintf(w, "\nenforcement (%s):\n", e.Enforcement[0].Target)
		for _, t := range e.Enforcement {
			fmt.Fprintf(w, "  %-11s %s (%s)\n", t.Mechanism, t.Entry, t.Guardrail)
			if len(t.Rules) > 0 {
				fmt.Fprintf(w, "              as %s\n", strings.Join(t.Rules, ", "))
			}
			fmt.Fprintf(w, "              %s\n", t.Why)
		}
	}
	fmt.Fprintf(w, "\nsections:\n")
	for _, s := range e.Sections {
		fmt.Fprintf(w, "  %6d B  %s%s\n", s.Bytes, strings.Repeat("  ", s.Level-1), s.Heading)
	}
}

// printExplanations is one line per agent: its file, size and guardrails.
func printExplanations(io *streams, all []renderers.Explanation) {
	w := table(io.out, "AGENT", "FILE", "BYTES", "TOKENS", "GUARDRAILS", "PERMISSIONS")
	for _, e := range all {
		var tiers []string
		for _, t := range schema.Severities {
			if n := len(e.Tiers[string(t)]); n > 0 {
				tiers = append(tiers, fmt.Sprintf("%d %s", n, t))
			}
		}
		if len(e.Unapproved) > 0 {
			tiers = append(tiers, fmt.Sprintf("%d NOT APPROVED", len(e.Unapproved)))
		}
		fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%s\t%d\n", cell(e.Agent), cell(e.Path), e.Bytes, e.Tokens, cell(strings.Join(tiers, ", ")), len(e.Permissions))
	}
	w.Flush()
	fmt.Fprintln(io.errOut, "bridle explain --agent NAME shows one in full")
}

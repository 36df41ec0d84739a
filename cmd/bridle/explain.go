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
approved), what its harness enforces, and the sections of its file. Changes
served without approval are listed on stderr.`,
		Example: `  bridle explain --rules . --agent kimi
  bridle explain --rules . --agent claude --json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if o.agent == "" {
				return usageErr("explain needs --agent NAME")
			}
			snap, err := o.rules.compileData(io)
			if err != nil {
				return err
			}
			f, ok := snap.Render(o.agent)
			if !ok {
				return usageErr("no agent profile %q in the rules; agents: %s", o.agent, strings.Join(snap.Document.Agents(), ", "))
			}
			e, err := renderers.ExplainAll(&snap.Document, f)
			if err != nil {
				return err
			}
			if snap.Approval != nil {
				for _, u := range snap.Approval.Unapproved {
					fmt.Fprintf(io.errOut, "warning: %s %s without approval: %s\n", u.Subject, u.Change, u.Reason)
				}
			}
			if o.rules.json {
				return writeJSON(io, e)
			}
			printExplanation(io, e)
			return nil
		},
	}
	o.rules.register(cmd, "print the explanation as one JSON object on stdout (invalid rules: the diagnostics instead)", true)
	cmd.Flags().StringVar(&o.agent, "agent", "", "the `agent` to explain")
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

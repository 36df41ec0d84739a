package main

import (
	"encoding/json"
	"fmt"
	"github.com/bridle-dev/bridle/redact"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/renameio/v2"
	"github.com/spf13/cobra"

	"github.com/bridle-dev/bridle/renderers"
	"github.com/bridle-dev/bridle/scaffold"
	"github.com/bridle-dev/bridle/schema"
)

type renderOptions struct {
	rules rulesFlags
	agent string
	all   bool
	out   string
	check bool
	prune bool
	// rulesPath is the rules path the Claude hook passes to
	// bridle hook claude, relative to --out (the project root).
	rulesPath string
}

func newRenderCmd(io *streams) *cobra.Command {
	var o renderOptions
	cmd := &cobra.Command{
		Use:   "render",
		Short: "Render the rules into agent instruction files",
		Long: `Render turns the rules into each agent's instruction file.

With --agent, the file for that agent goes to stdout. With --all --out DIR,
every agent's file is written under DIR, atomically:

  CLAUDE.md                 agents in CLAUDE.md format (claude)
  AGENTS.md                 agents in AGENTS.md format and reference style (codex)
  agents/<agent>/AGENTS.md  agents in stepwise style (kimi, deepseek)

A profile's output key overrides its path; two agents can never write the
same file (validation refuses it).

When guardrails have enforce blocks, the agents' own enforcement files go
beside them (DIR is then the project root):

  .codex/rules/bridle.rules  the agent writing the root AGENTS.md in reference
                             style (codex): its command entries, as Codex rules
  .claude/settings.json      the agent writing the root CLAUDE.md (claude):
                             Bridle's permissions.deny/ask entries and, when
                             they need it, a PreToolUse hook running
                             bridle hook claude --rules "$CLAUDE_PROJECT_DIR"/RULES,
                             merged with the user's own settings
  .claude/bridle.json        what Bridle owns in settings.json

RULES is --rules-path, or --rules relative to DIR. A native file Bridle wrote
that nothing renders any more is removed (unless edited by hand), and
Bridle's entries are taken out of settings.json. A Bridle-generated markdown
file that no agent renders any more is an orphan: --prune removes it.

With --check nothing is written: render compares DIR with a fresh render,
prints a unified diff of every stale, missing, hand-edited or orphaned file,
exits 4 if there is any, and prints the command that makes DIR current.

Without --ref the rules are rendered as bridle.yaml states them: that is
what a committed render holds (a proposal's renders cannot know their own
approval), so write and check committed files without --ref. With --ref the
approvals are resolved from the repository's history (published renders).
Files under DIR that belong to another rules directory (one holding a
bridle.yaml) are never counted.`,
		Example: `  # the agents' files at the root of a project whose rules are in rules/
  bridle render --rules rules --all --out .
  bridle render --rules rules --all --out . --check     # in CI
  bridle render --rules . --agent claude > CLAUDE.md`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			switch {
			case o.all == (o.agent != ""):
				return usageErr("render needs exactly one of --agent NAME or --all")
			case o.all && o.out == "":
				return usageErr("render --all needs --out DIR")
			case o.check && !o.all:
				return usageErr("--check works with --all --out DIR")
			case o.prune && (!o.all || o.check):
				return usageErr("--prune works with --all --out DIR, without --check")
			}
			return runRender(io, &o)
		},
	}
	o.rules.register(cmd, "", true)
	cmd.Flags().StringVar(&o.agent, "agent", "", "render for this `agent` only, to stdout")
	cmd.Flags().BoolVar(&o.all, "all", false, "render every agent's file")
	cmd.Flags().StringVarP(&o.out, "out", "o", "", "with --all, write the files under this `dir`")
	cmd.Flags().StringVar(&o.rulesPath, "rules-path", "", "the rules `path` the Claude hook reads, relative to --out (default: --rules relative to --out)")
	cmd.Flags().BoolVar(&o.check, "check", false, "do not write; exit 4 if any file under --out is not current")
	cmd.Flags().BoolVar(&o.prune, "prune", false, "also remove Bridle-generated markdown files under --out that no agent renders any more")
	cmd.Flags().BoolVar(&o.rules.json, "json", false, "with --check, print one JSON object on stdout: {valid, diagnostics, current, fix, files: [{path, agent, state, diff}]}")
	return cmd
}

func runRender(io *streams, o *renderOptions) error {
	if o.rules.json && !o.check {
		return usageErr("--json works with --check (render writes files, or the render to stdout)")
	}
	snap, diags, err := o.rules.load(io)
	if err != nil {
		return err
	}
	if !o.all {
		r, ok := snap.Render(o.agent)
		if !ok {
			d := snap.Document
			return usageErr("no agent profile %q in the rules; agents: %s", o.agent, strings.Join(d.Agents(), ", "))
		}
		_, err := io.out.Write([]byte(r.Content))
		return err
	}
	files := snap.Renders
	if o.rules.ref == "" {
		// Committed renders: byte for byte what a proposal commits, whose
		// header names the commit that holds the file, not a commit id
		// (which would change every file on every commit).
		files = scaffold.Renders(snap, version())
	}
	native, err := renderers.RenderNative(o.out, &snap.Document, renderers.NativeOptions{RulesPath: o.hookRulesPath()})
	if err != nil {
		return err
	}
	if o.check {
		return runCheck(io, o, diags, files, native)
	}
	written, err := renderers.Write(o.out, files)
	if err != nil {
		return err
	}
	nativeWritten, err := renderers.Write(o.out, native.Files)
	if err != nil {
		return err
	}
	removed, err := renderers.RemoveOrphans(o.out, native.Orphans)
	if err != nil {
		return err
	}
	mdOrphans, err := renderers.Orphans(o.out, files)
	if err != nil {
		return err
	}
	if o.prune {
		pruned, err := renderers.Prune(o.out, mdOrphans)
		removed = append(removed, pruned...)
		if err != nil {
			return err
		}
		mdOrphans = nil
	}
	fmt.Fprintf(io.errOut, "rendered %s for %s into %s:\n", count(len(written)+len(nativeWritten), "file", "files"), count(len(snap.Renders), "agent", "agents"), o.out)
	width := 0
	for _, w := range append(append([]string(nil), written...), nativeWritten...) {
		width = max(width, len(w))
	}
	for i, r := range files {
		fmt.Fprintf(io.errOut, "  %-*s  %s (%s)\n", width, written[i], r.Agent, r.Renderer)
	}
	for i, f := range native.Files {
		fmt.Fprintf(io.errOut, "  %-*s  %s (%s)\n", width, nativeWritten[i], agentOrNone(f.Agent), f.Renderer)
	}
	for _, p := range removed {
		fmt.Fprintf(io.errOut, "  %-*s  removed (no agent renders it any more)\n", width, p)
	}
	for _, orphan := range native.Orphans {
		if !orphan.Intact {
			fmt.Fprintf(io.errOut, "  %s  not removed: Bridle no longer renders it, but it was edited by hand\n", filepath.Join(o.out, filepath.FromSlash(orphan.Path)))
		}
	}
	for _, f := range mdOrphans {
		fmt.Fprintf(io.errOut, "  %s  orphaned: no agent renders it any more (remove it, or run: %s)\n", f.Path, o.command(false, true))
	}
	return nil
}

// command is the render command these options stand for, as a user would
// type it: every flag that decides what is rendered is repeated, so the
// command a hint names produces exactly what the check compares with.
func (o *renderOptions) command(check, prune bool) string {
	args := []string{"bridle", "render", "--rules", shellWord(o.rules.rules)}
	if o.rules.ref != "" {
		args = append(args, "--ref", shellWord(o.rules.ref))
		if o.rules.noHistory {
			args = append(args, "--no-history")
		}
	}
	args = append(args, "--all", "--out", shellWord(o.out))
	if o.rulesPath != "" {
		args = append(args, "--rules-path", shellWord(o.rulesPath))
	}
	if check {
		args = append(args, "--check")
	}
	if prune {
		args = append(args, "--prune")
	}
	return strings.Join(args, " ")
}

func agentOrNone(a string) string {
	if a == "" {
		return "no agent"
	}
	return a
}

// hookRulesPath is --rules-path, or --rules relative to --out; an absolute
// path when there is no relative one, which RenderNative refuses when the
// hook is needed.
func (o *renderOptions) hookRulesPath() string {
	if o.rulesPath != "" {
		return o.rulesPath
	}
	rules, err := filepath.Abs(o.rules.rules)
	if err != nil {
		return o.rules.rules
	}
	out, err := filepath.Abs(o.out)
	if err != nil {
		return rules
	}
	rel, err := filepath.Rel(out, rules)
	if err != nil {
		return rules
	}
	return filepath.ToSlash(rel)
}

func runCheck(io *streams, o *renderOptions, diags schema.Diagnostics, files []renderers.File, native renderers.Native) error {
	findings, err := renderers.Check(o.out, files)
	if err != nil {
		return err
	}
	more, err := renderers.CheckNative(o.out, native)
	if err != nil {
		return err
	}
	findings = append(findings, more...)
	// A diff shows what is on disk, which a person may have filled with a
	// credential no environment variable holds (a token in
	// .claude/settings.json's env): output masks the ones it can tell.
	for i := range findings {
		findings[i].Diff, _ = redact.MaskCredentials(findings[i].Diff)
	}
	slices.SortFunc(findings, func(a, b renderers.Finding) int { return strings.Compare(a.Path, b.Path) })
	bad, orphaned := 0, false
	for _, f := range findings {
		if f.State != renderers.Current {
			bad++
		}
		orphaned = orphaned || f.State == renderers.Orphaned
	}
	if o.rules.json {
		if findings == nil {
			findings = []renderers.Finding{}
		}
		enc := json.NewEncoder(io.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Valid       bool                `json:"valid"`
			Diagnostics schema.Diagnostics  `json:"diagnostics"`
			Current     bool                `json:"current"`
			Fix         string              `json:"fix,omitempty"`
			Files       []renderers.Finding `json:"files"`
		}{true, diags, bad == 0, fixFor(o, bad, orphaned), findings}); err != nil {
			return err
		}
	} else {
		for _, f := range findings {
			if f.State == renderers.Current {
				continue
			}
			fmt.Fprint(io.out, f.Diff)
		}
		width := 0
		for _, f := range findings {
			width = max(width, len(f.Path))
		}
		for _, f := range findings {
			fmt.Fprintf(io.errOut, "%-*s  %s\n", width, f.Path, f.State)
		}
	}
	if bad > 0 {
		if !o.rules.json {
			fmt.Fprintf(io.errOut, "%s not current; run: %s\n", count(bad, "file", "files"), fixFor(o, bad, orphaned))
		}
		return &exitError{exitOutdated, errReported}
	}
	if !o.rules.json {
		fmt.Fprintf(io.errOut, "all %s current\n", count(len(findings), "file", "files"))
	}
	return nil
}

// fixFor is the command that makes the checked directory current.
func fixFor(o *renderOptions, bad int, orphaned bool) string {
	if bad == 0 {
		return ""
	}
	return o.command(false, orphaned)
}

type compileOptions struct {
	rules  rulesFlags
	output string
}

func newCompileCmd(io *streams) *cobra.Command {
	var o compileOptions
	cmd := &cobra.Command{
		Use:   "compile",
		Short: "Compile the rules into a snapshot (JSON)",
		Long: `Compile validates the rules and writes one snapshot: the normalised document,
every agent's rendered files, a sha256 content hash, the source (path, or
repository and commit) and the bridle and schema versions. The same rules
always give a byte-identical snapshot. bridle mcp serves snapshots.`,
		Example: `  bridle compile --rules . -o snapshot.json
  bridle compile --rules . --ref main -o -`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			snap, diags, err := o.rules.load(io)
			if err != nil {
				return err
			}
			if o.rules.json && o.output != "-" {
				// The snapshot goes to a file: stdout holds the one
				// diagnostics document.
				if err := o.rules.report(io, diags); err != nil {
					return err
				}
			}
			b, err := snap.JSON()
			if err != nil {
				return err
			}
			if o.output == "-" {
				_, err = io.out.Write(b)
				return err
			}
			if err := os.MkdirAll(filepath.Dir(o.output), 0o755); err != nil {
				return fmt.Errorf("write snapshot: %w", err)
			}
			if err := renameio.WriteFile(o.output, b, 0o644); err != nil {
				return fmt.Errorf("write snapshot: %w", err)
			}
			fmt.Fprintf(io.errOut, "wrote %s (%s, %s)\n", filepath.Clean(o.output), snap.ContentHash[:19], count(len(snap.Renders), "agent", "agents"))
			return nil
		},
	}
	o.rules.register(cmd, "print the diagnostics as one JSON object on stdout (with -o -: the snapshot is the one document)", true)
	cmd.Flags().StringVarP(&o.output, "output", "o", "-", "write the snapshot to this `file` (- for stdout)")
	return cmd
}

func newSchemaCmd(io *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of bridle.yaml",
		Long: `Schema prints the JSON Schema of the rules document. Editors that use
yaml-language-server validate bridle.yaml against it when the file starts with:

  # yaml-language-server: $schema=<path or URL of bridle.schema.json>`,
		Example: `  bridle schema > bridle.schema.json`,
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := io.out.Write(schema.JSON())
			return err
		},
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
	"github.com/spf13/cobra"

	"github.com/bridle-dev/bridle/renderers"
	"github.com/bridle-dev/bridle/schema"
)

type renderOptions struct {
	rules rulesFlags
	agent string
	all   bool
	out   string
	check bool
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
same file (validation refuses it). With --check nothing is written: render
compares DIR with a fresh render, prints a unified diff of every stale,
missing, hand-edited or orphaned file and exits 4 if there is any.`,
		Example: `  bridle render --rules . --agent claude > CLAUDE.md
  bridle render --rules rules --all --out .
  bridle render --rules rules --ref main --all --out . --check`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			switch {
			case o.all == (o.agent != ""):
				return usageErr("render needs exactly one of --agent NAME or --all")
			case o.all && o.out == "":
				return usageErr("render --all needs --out DIR")
			case o.check && !o.all:
				return usageErr("--check works with --all --out DIR")
			}
			return runRender(io, &o)
		},
	}
	o.rules.register(cmd, false)
	cmd.Flags().StringVar(&o.agent, "agent", "", "render for this `agent` only, to stdout")
	cmd.Flags().BoolVar(&o.all, "all", false, "render every agent's file")
	cmd.Flags().StringVarP(&o.out, "out", "o", "", "with --all, write the files under this `dir`")
	cmd.Flags().BoolVar(&o.check, "check", false, "do not write; exit 4 if any file under --out is not current")
	cmd.Flags().BoolVar(&o.rules.json, "json", false, "print diagnostics and --check findings as JSON on stdout")
	return cmd
}

func runRender(io *streams, o *renderOptions) error {
	snap, err := o.rules.compile(io)
	if err != nil {
		return err
	}
	if !o.all {
		r, ok := snap.Render(o.agent)
		if !ok {
			d := snap.Document
			return usageErr("no agent profile %q in the rules; agents: %v", o.agent, d.Agents())
		}
		_, err := io.out.Write([]byte(r.Content))
		return err
	}
	if o.check {
		return runCheck(io, o, snap.Renders)
	}
	written, err := renderers.Write(o.out, snap.Renders)
	if err != nil {
		return err
	}
	fmt.Fprintf(io.errOut, "rendered %s for %s into %s:\n", plural(len(written), "file"), plural(len(snap.Renders), "agent"), o.out)
	width := 0
	for _, w := range written {
		width = max(width, len(w))
	}
	for i, r := range snap.Renders {
		fmt.Fprintf(io.errOut, "  %-*s  %s (%s)\n", width, written[i], r.Agent, r.Renderer)
	}
	return nil
}

func runCheck(io *streams, o *renderOptions, files []renderers.File) error {
	findings, err := renderers.Check(o.out, files)
	if err != nil {
		return err
	}
	bad := 0
	for _, f := range findings {
		if f.State != renderers.Current {
			bad++
		}
	}
	if o.rules.json {
		enc := json.NewEncoder(io.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(findings); err != nil {
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
			fmt.Fprintf(io.errOut, "%s not current; run: bridle render --rules %s --all --out %s\n", plural(bad, "file"), o.rules.rules, o.out)
		}
		return &exitError{exitOutdated, errReported}
	}
	if !o.rules.json {
		fmt.Fprintf(io.errOut, "all %s current\n", plural(len(findings), "file"))
	}
	return nil
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
			snap, err := o.rules.compile(io)
			if err != nil {
				return err
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
			fmt.Fprintf(io.errOut, "wrote %s (%s, %s)\n", filepath.Clean(o.output), snap.ContentHash[:19], plural(len(snap.Renders), "agent"))
			return nil
		},
	}
	o.rules.register(cmd, true)
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

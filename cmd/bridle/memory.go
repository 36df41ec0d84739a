package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/internal/identity"
	"github.com/bridle-dev/bridle/memory"
	"github.com/bridle-dev/bridle/redact"
	"github.com/bridle-dev/bridle/schema"
)

type memoryFlags struct {
	rules   rulesFlags
	project string
	kind    string
	tags    []string
	agent   string
}

// register adds the memory flags; the rules only name the project, so
// --no-history, which changes nothing here, is not offered.
func (f *memoryFlags) register(cmd *cobra.Command, filters bool, jsonUsage string) {
	f.rules.register(cmd, jsonUsage, false)
	cmd.Flags().StringVar(&f.project, "project", "", "project `id` (default: from the rules)")
	if filters {
		cmd.Flags().StringVar(&f.kind, "kind", "", "only this `kind`: decision, context, history or note")
		cmd.Flags().StringSliceVar(&f.tags, "tag", nil, "only memories with this `tag` (repeatable: all must match)")
		cmd.Flags().StringVar(&f.agent, "agent", "", "only memories this `agent` stored")
	}
}

// open returns the project's memory.
func (f *memoryFlags) open(fac *factory) (*memory.Memory, func(), error) {
	project := f.project
	if project == "" {
		in, diags, err := compiler.Read(compiler.Options{Rules: f.rules.rules, Ref: f.rules.ref, NoHistory: true})
		if err != nil || diags.HasErrors() {
			return nil, nil, usageErr("memory needs --project ID, or --rules pointing at readable rules")
		}
		project = schema.ProjectID(in.Data)
	}
	st, emb, err := fac.ProjectMemory(project)
	if err != nil {
		return nil, nil, err
	}
	// What the CLI prints from the store is masked too: memories written
	// before masking at write time existed, or by a sidecar that knew other
	// secrets, may still hold one.
	return &memory.Memory{Store: st, Embedder: emb, Project: project, Redactor: fac.Redactor()}, func() { st.Close() }, nil
}

func newMemoryCmd(io *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "Search, list, add, forget and purge the project's session memory",
		Long: `Memory works on the shared session memory agents fill with the remember tool.
The store is the project's: one embedded file per project in the user data
directory (projects/ID/memory.db; $BRIDLE_DATA_DIR overrides the directory),
the same one bridle mcp and bridle serve use for that project, or Qdrant
when QDRANT_URL is set; embeddings are offline unless
EMBEDDINGS_URL and EMBEDDINGS_MODEL name an OpenAI-compatible server.`,
	}
	var search memoryFlags
	var k int
	var mode string
	searchCmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search memories, best first",
		Long: `Search finds the project's memories closest to QUERY (all the words after
search), best first, with their score (higher is closer). --mode hybrid, the
default, ranks by meaning (vector) and by words (keyword) at once; vector
and keyword use one alone. --kind, --tag and --agent narrow the search.`,
		Example: `  bridle memory search queue retries --rules .
  bridle memory search "why sqlite" --project runic-gateway --kind decision -k 3 --json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			m, done, err := search.open(io.f)
			if err != nil {
				return err
			}
			defer done()
			hits, err := m.Recall(context.Background(), memory.RecallQuery{Text: strings.Join(args, " "), K: k, Kind: search.kind, Tags: search.tags, Agent: search.agent, Mode: memory.Mode(mode)})
			if err != nil {
				return memoryErr(err)
			}
			if search.rules.json {
				if hits == nil {
					hits = []memory.Hit{}
				}
				return writeJSON(io, hits)
			}
			if len(hits) == 0 {
				none(io, "no memories match", rememberHint)
				return nil
			}
			w := table(io.out, "ID", "SCORE", "CREATED", "KIND", "AGENT", "TEXT")
			for _, h := range hits {
				fmt.Fprintf(w, "%s\t%.3f\t%s\n", h.Record.ID, h.Score, memoryCells(io.f.Redactor(), h.Record))
			}
			return w.Flush()
		},
	}
	search.register(searchCmd, true, "print the matches, best first, as a JSON array on stdout")
	searchCmd.Flags().IntVarP(&k, "k", "k", 5, "how many results, at most")
	searchCmd.Flags().StringVar(&mode, "mode", "hybrid", "how to search: hybrid, vector or keyword")

	var list memoryFlags
	var limit int
	listCmd := &cobra.Command{
		Use:   "list",
		Short: "List memories, newest first",
		Example: `  bridle memory list --rules .
  bridle memory list --project runic-gateway --agent claude --tag db --limit 10`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			m, done, err := list.open(io.f)
			if err != nil {
				return err
			}
			defer done()
			recs, err := m.List(context.Background(), list.kind, list.tags, list.agent, limit)
			if err != nil {
				return memoryErr(err)
			}
			if list.rules.json {
				if recs == nil {
					recs = []memory.Record{}
				}
				return writeJSON(io, recs)
			}
			if len(recs) == 0 {
				if list.kind != "" || len(list.tags) > 0 || list.agent != "" {
					none(io, "no memories match the filters", rememberHint)
				} else {
					none(io, "no memories yet", rememberHint)
				}
				return nil
			}
			w := table(io.out, "ID", "CREATED", "KIND", "AGENT", "TEXT")
			for _, r := range recs {
				fmt.Fprintf(w, "%s\t%s\n", r.ID, memoryCells(io.f.Redactor(), r))
			}
			return w.Flush()
		},
	}
	list.register(listCmd, true, "print the memories as a JSON array on stdout")
	listCmd.Flags().IntVar(&limit, "limit", 50, "how many memories, at most")

	var rem memoryFlags
	remKind := "note"
	rememberCmd := &cobra.Command{
		Use:   "remember TEXT",
		Short: "Add a memory as yourself (agents use the remember tool)",
		Long: `Remember stores TEXT (all the words after remember) in the project's memory,
as the remember tool of bridle mcp does for agents: agents recall it with
recall, and bridle memory search finds it. The memory is recorded as yours
(git's author name, else "user"); a known secret in it is masked before it
is written.`,
		Example: `  bridle memory remember "We chose SQLite: one file, no server." --rules . --kind decision --tag db
  bridle memory remember the payout queue is drained nightly --project runic-gateway`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			m, done, err := rem.open(io.f)
			if err != nil {
				return err
			}
			defer done()
			who := "user"
			if p, err := identity.At(identity.Author, rulesDir(rem.rules.rules)); err == nil {
				who = p.Name
			}
			r, err := m.Remember(context.Background(), memory.Entry{Text: strings.Join(args, " "), Kind: remKind, Tags: rem.tags, Agent: who})
			if err != nil {
				return memoryErr(err)
			}
			if rem.rules.json {
				return writeJSON(io, r)
			}
			fmt.Fprintln(io.out, r.ID)
			fmt.Fprintf(io.errOut, "remembered %s in project %s as %s\n", r.ID, m.Project, who)
			return nil
		},
	}
	rem.register(rememberCmd, false, "print the stored memory as one JSON object on stdout")
	rememberCmd.Flags().StringVar(&remKind, "kind", remKind, "the memory's `kind`: decision, context, history or note")
	rememberCmd.Flags().StringSliceVar(&rem.tags, "tag", nil, "a `tag` for the memory (repeatable)")

	var forget memoryFlags
	forgetCmd := &cobra.Command{
		Use:     "forget ID",
		Short:   "Delete one memory by its id",
		Example: `  bridle memory forget m-3f2a9c0d1e4b5a67 --rules .`,
		Args:    cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			m, done, err := forget.open(io.f)
			if err != nil {
				return err
			}
			defer done()
			if err := m.Forget(context.Background(), args[0]); err != nil {
				return memoryErr(err)
			}
			if forget.rules.json {
				return writeJSON(io, map[string]string{"project": m.Project, "forgot": args[0]})
			}
			fmt.Fprintf(io.errOut, "forgot %s\n", args[0])
			return nil
		},
	}
	forget.register(forgetCmd, false, `print {"project": …, "forgot": ID} on stdout`)

	var purge memoryFlags
	var yes bool
	purgeCmd := &cobra.Command{
		Use:   "purge",
		Short: "Delete every memory of the project that matches the filters",
		Long: `Purge deletes, for good, every memory of the project that matches --kind,
--tag and --agent (all of them, without a filter). It needs --yes.`,
		Example: `  bridle memory purge --rules . --agent kimi --yes
  bridle memory purge --project runic-gateway --kind note --yes`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if !yes {
				return usageErr("purge deletes memories for good; add --yes")
			}
			m, done, err := purge.open(io.f)
			if err != nil {
				return err
			}
			defer done()
			n, err := m.Purge(context.Background(), purge.kind, purge.tags, purge.agent)
			if err != nil {
				return memoryErr(err)
			}
			if purge.rules.json {
				return writeJSON(io, map[string]any{"project": m.Project, "purged": n})
			}
			fmt.Fprintf(io.errOut, "purged %s of project %s\n", count(n, "memory", "memories"), m.Project)
			return nil
		},
	}
	purge.register(purgeCmd, true, `print {"project": …, "purged": N} on stdout`)
	purgeCmd.Flags().BoolVar(&yes, "yes", false, "really delete them")
	cmd.AddCommand(searchCmd, listCmd, rememberCmd, forgetCmd, purgeCmd)
	return cmd
}

func memoryErr(err error) error {
	if errors.Is(err, memory.ErrInput) {
		return &exitError{exitUsage, err}
	}
	return err
}

// rememberHint is how memories are added: there is no CLI command for it.
const rememberHint = "add one with bridle memory remember TEXT; agents add them with the remember tool of bridle mcp"

// memoryCells are a memory's CREATED, KIND, AGENT and TEXT cells (its tags
// after the text), masked like every other output.
func memoryCells(red *redact.Redactor, r memory.Record) string {
	text := cell(r.Text)
	if len(r.Tags) > 0 {
		text += "  #" + strings.Join(r.Tags, " #")
	}
	return red.Redact(strings.Join([]string{r.Created.Format(time.DateOnly), cell(r.Payload["kind"]), cell(r.Payload["agent"]), text}, "\t"))
}

func newPatternsCmd(io *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "patterns",
		Short: "Index and list the example repositories of custom patterns",
		Long: `Patterns works on the example repositories the rules' custom patterns name
(example_repos): index embeds them in the memory store, where agents search
them with the search_pattern_examples tool; list shows what is indexed.`,
	}
	var rf rulesFlags
	indexCmd := &cobra.Command{
		Use:   "index [REFERENCE_TAG]",
		Short: "Clone, chunk and embed pattern examples (all, or one)",
		Long: `Index clones each example repository of the rules' custom patterns (shallow;
a local path or a URL; BRIDLE_EXAMPLES_TOKEN for private https repositories),
walks it (skipping vendored, generated, binary and oversized files), chunks it
(Go by declarations, Markdown by headings, the rest by blocks), embeds the
chunks in batches and replaces the example's previous index at once: searches
see the old set until the new one is complete. A progress bar shows on a
terminal; nothing but the summary when piped.`,
		Example: `  bridle patterns index --rules .
  bridle patterns index outbox-risk-engine --rules .`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			snap, err := rf.compileData(io)
			if err != nil {
				return err
			}
			exOpts, err := io.f.Examples(examplesRoot(rf.rules))
			if err != nil {
				return usageErr("%w", err)
			}
			st, emb, err := io.f.ProjectMemory(snap.Document.Project.ID)
			if err != nil {
				return err
			}
			defer st.Close()
			found := false
			for _, p := range snap.Document.Patterns.Custom {
				for _, ex := range p.ExampleRepos {
					if len(args) == 1 && ex.ReferenceTag != args[0] {
						continue
					}
					found = true
					ix := &memory.Indexer{Store: st, Embedder: emb, Examples: exOpts, Redactor: io.f.Redactor(), Progress: progressBar(io, ex.ReferenceTag)}
					stats, err := ix.Index(context.Background(), p.Name, ex)
					if err != nil {
						return fmt.Errorf("index %s: %w", ex.ReferenceTag, err)
					}
					fmt.Fprintf(io.errOut, "indexed %s: %s, %s in %s\n", ex.ReferenceTag, count(stats.Files, "file", "files"), count(stats.Chunks, "chunk", "chunks"), stats.Duration.Round(time.Millisecond))
				}
			}
			if !found && len(args) == 1 {
				return usageErr("no example with reference_tag %q in the rules", args[0])
			}
			if !found {
				fmt.Fprintln(io.errOut, "nothing to index: no custom pattern has example repositories yet — add one with bridle propose pattern")
			}
			return nil
		},
	}
	rf.register(indexCmd, "", false)

	var lf rulesFlags
	listCmd := &cobra.Command{
		Use:   "list",
		Short: "List the pattern examples, their chunks and last index",
		Example: `  bridle patterns list --rules .
  bridle patterns list --rules . --json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			snap, err := lf.compileData(io)
			if err != nil {
				return err
			}
			st, _, err := io.f.ProjectMemory(snap.Document.Project.ID)
			if err != nil {
				return err
			}
			defer st.Close()
			rows := memory.Statuses(context.Background(), st, snap.Document.Patterns.Custom)
			if lf.json {
				return writeJSON(io, rows)
			}
			if len(rows) == 0 {
				none(io, "no pattern examples yet", "add one with bridle propose pattern --file FILE (a custom pattern with example_repos)")
				return nil
			}
			w := table(io.out, "PATTERN", "REFERENCE TAG", "CHUNKS", "LAST INDEXED", "URL")
			for _, r := range rows {
				when := r.LastIndexed
				if when == "" {
					when = "never"
				}
				fmt.Fprint(w, io.f.Redactor().Redact(fmt.Sprintf("%s\t%s\t%d\t%s\t%s\n", cell(r.Pattern), cell(r.ReferenceTag), r.Chunks, cell(when), cell(r.URL))))
			}
			return w.Flush()
		},
	}
	lf.register(listCmd, "print the examples as a JSON array on stdout (invalid rules: the diagnostics instead)", false)
	cmd.AddCommand(indexCmd, listCmd)
	return cmd
}

// rulesDir is the directory of the rules (a bridle.yaml file or a
// directory), the default root for local pattern examples.
func rulesDir(rules string) string {
	if st, err := os.Stat(rules); err == nil && !st.IsDir() {
		return filepath.Dir(rules)
	}
	return rules
}

// progressBar draws on a terminal and stays quiet when stderr is piped.
func progressBar(io *streams, tag string) memory.Progress {
	w := io.errOut
	if m, ok := w.(maskedWriter); ok {
		w = m.w // the bar shows reference tags and counts, nothing secret
	}
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	var bar *progressbar.ProgressBar
	return func(stage string, done, total int) {
		if stage != "embed" {
			return
		}
		if bar == nil {
			if total == 0 {
				total = -1 // chunks are embedded as the walk finds them: a spinner
			}
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(f), progressbar.OptionSetDescription(tag),
				progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
		}
		bar.Set(done)
	}
}

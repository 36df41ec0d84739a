package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/spf13/cobra"

	"github.com/bridle-dev/bridle/adopt"
	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/renderers"
	"github.com/bridle-dev/bridle/scaffold"
)

type importOptions struct {
	from           []string
	dryRun, asJSON bool
	init           initOptions
}

func newImportCmd(io *streams) *cobra.Command {
	var o importOptions
	cmd := &cobra.Command{
		Use:   "import [DIR]",
		Short: "Make the project's existing agent files its first rules",
		Long: `Import reads the agent files the project already has — CLAUDE.md, AGENTS.md
(nested ones too), GEMINI.md, QWEN.md, .github/copilot-instructions.md and
.github/instructions/, .cursor/rules/ and .cursorrules, .windsurf/rules/,
.clinerules, CONVENTIONS.md — and the rules the harnesses already enforce
(.claude/settings.json permissions, .codex/rules/*.rules, opencode.json
permission), and writes bridle.yaml from them: the project's overview, stack,
commands and conventions; each instruction a guardrail with an id from its
words, its statement as written and a severity from its mood (must, never,
always, do not: hard-instruction; should, prefer, avoid: guidance); a rule
the harness enforces gets its enforce block. The same rule in two files is
one guardrail; two files that disagree are reported as a conflict. Above
each item a comment names the file:line it came from.

Then it commits as bridle init does, on the rules' branch (--branch, else
main when the repository has it, else origin's default, else HEAD's), and
DIR decides the layout the same way (bridle import rules puts the rules in
rules/ and the agents' files at the project root); and the agent files it read that Bridle renders (CLAUDE.md,
AGENTS.md, …) become Bridle's renders, so render --check passes at once.

What bridle.yaml cannot hold is never dropped silently: the loss report
(stderr, or --json) lists each thing not carried over, where it was, why, and
its original text — rules scoped by globs (Bridle gives every agent the whole
document), @ imports, HTML, hooks and grants, MCP servers (by name), skills.
A credential in an instruction file refuses the import, naming its file:line.
The same files always give the same bridle.yaml; no model is used.`,
		Example: `  bridle import rules --dry-run     # print bridle.yaml and the loss report; write nothing
  bridle import rules               # import, commit on the rules' branch, render
  bridle import rules --from CLAUDE.md --from docs/AGENTS.md
  bridle init rules --import        # the same as bridle import rules`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := scaffold.CheckAgents(o.init.agents); err != nil {
				return usageErr("--agents: %w", err)
			}
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			return runImport(io, dir, o)
		},
	}
	cmd.Flags().StringArrayVar(&o.from, "from", nil, "import this `file` only (repeat for more; default: every agent file found in the project)")
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "print bridle.yaml on stdout and the loss report on stderr; write nothing")
	cmd.Flags().BoolVar(&o.asJSON, "json", false, "print one JSON object on stdout: {yaml, agents, files, lost, conflicts, merged, skipped, commit}")
	cmd.Flags().StringSliceVar(&o.init.agents, "agents", nil, "the `agents` to give profiles, comma-separated (default: the harnesses whose files were found; known: "+strings.Join(agents.Names(), ", ")+")")
	cmd.Flags().StringVar(&o.init.branch, "branch", "", "as for bridle init: the rules' `branch` (default main when the repository has it, else origin's default, else HEAD's)")
	cmd.Flags().StringVar(&o.init.server, "server", "", "as for bridle init: the CI workflow downloads bridle from this Bridle gateway `URL`")
	cmd.Flags().StringVar(&o.init.bridleURL, "bridle-url", "", "as for bridle init: the CI workflow downloads bridle from this `URL`")
	cmd.Flags().StringVar(&o.init.bridleModule, "bridle-module", "", "as for bridle init: or installs it with go install `PATH@VERSION`")
	return cmd
}

// importReport is what --json prints.
type importReport struct {
	YAML      string           `json:"yaml"`
	Agents    []string         `json:"agents"`
	Files     []string         `json:"files"`
	Lost      []adopt.Loss     `json:"lost"`
	Conflicts []adopt.Conflict `json:"conflicts"`
	Merged    int              `json:"merged"`
	Skipped   []string         `json:"skipped,omitempty"`
	Commit    string           `json:"commit,omitempty"`
}

func runImport(io *streams, dir string, o importOptions) error {
	root, inGit := projectRoot(dir)
	if !inGit && !o.dryRun {
		return usageErr("import: %s is in no git repository: the import commits the rules and replaces the agent files it reads with their renders (git init the project first, or look with --dry-run)", dir)
	}
	// Reading through the project's root: a symbolic link that leads out of
	// the project is refused, not followed.
	r, err := os.OpenRoot(root)
	if err != nil {
		return usageErr("import: %w", err)
	}
	defer r.Close()
	paths, links, err := importPaths(r, root, o.from)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usageErr("import: no agent files in %s (name them with --from, or start with bridle init)", root)
	}
	files, err := readImport(r, paths)
	if err != nil {
		return err
	}
	names := o.init.agents
	if len(names) == 0 {
		names = adopt.AgentsFor(paths)
	}
	id := scaffold.ProjectID(root)
	base, err := scaffold.Base(id, names)
	if err != nil {
		return err
	}
	res, err := adopt.Import(files, adopt.Options{Base: base, Secret: io.f.Redactor().Check, Links: links})
	switch {
	case errors.Is(err, adopt.ErrSecret), errors.Is(err, adopt.ErrTooLarge), errors.Is(err, adopt.ErrBinary):
		return usageErr("%w", err)
	case err != nil:
		return err
	}
	rep := importReport{YAML: string(res.YAML), Agents: names, Files: res.Files, Lost: res.Lost,
		Conflicts: res.Conflicts, Merged: res.Merged, Skipped: res.Skipped}
	if rep.Lost == nil {
		rep.Lost = []adopt.Loss{}
	}
	if rep.Conflicts == nil {
		rep.Conflicts = []adopt.Conflict{}
	}
	if o.dryRun {
		if o.asJSON {
			return writeJSON(io, rep)
		}
		if _, err := io.out.Write(res.YAML); err != nil {
			return err
		}
		printLoss(io.errOut, res)
		return nil
	}
	status := io.errOut
	if o.asJSON {
		status = discard()
	}
	init := o.init
	init.agents = names
	commit, err := initWith(io, status, dir, init, res.YAML, res.Files)
	if err != nil {
		return err
	}
	rep.Commit = commit
	if o.asJSON {
		return writeJSON(io, rep)
	}
	printLoss(io.errOut, res)
	if abs, _ := filepath.Abs(dir); abs == root {
		fmt.Fprintf(io.errOut, "note: the rules are at the repository's root, so their renders are in %s/ and the agents still read the files at the root: to have them replaced, import into a folder instead (bridle import rules)\n", scaffold.RenderDir)
	}
	var stay []string
	for _, f := range res.Instructions {
		if !rendersTo(f) {
			stay = append(stay, f)
		}
	}
	if len(stay) > 0 {
		fmt.Fprintf(io.errOut, "these files are not Bridle's renders and the agents still read them, so their rules now reach the agents twice; once the import looks right, remove them:\n  git rm %s\n", strings.Join(quoteWords(stay), " "))
	}
	return nil
}

// discard is where status goes when stdout carries one JSON document.
func discard() io.Writer { return io.Discard }

// initWith runs bridle init's Init with the imported rules, replacing the
// agent files they came from with their renders, and says what it did.
func initWith(io *streams, status io.Writer, dir string, o initOptions, rules []byte, read []string) (string, error) {
	author, err := commitIdentity(dir)
	if err != nil {
		return "", err
	}
	res, err := scaffold.Init(dir, scaffold.Options{Version: version(), Author: author, BridleURL: o.bridleURL, BridleModule: o.bridleModule,
		Agents: o.agents, Rules: rules, Replace: read, Branch: o.branch, BridleServer: o.server})
	switch {
	case errors.Is(err, scaffold.ErrExists):
		return "", usageErr("%w; change it with bridle propose, or choose another directory", err)
	case errors.Is(err, scaffold.ErrBadSetting):
		return "", usageErr("%w", err)
	case err != nil:
		return "", err
	}
	for _, f := range res.Files {
		fmt.Fprintf(status, "created %s\n", printable(display(f)))
	}
	for _, k := range res.Kept {
		fmt.Fprintf(status, "kept    %s (it exists; not committed)\n", printable(k))
	}
	out := filepath.Join(res.Root, filepath.FromSlash(res.Layout.Out()))
	native, err := importNative(rules, res, out, author)
	if err != nil {
		return "", err
	}
	for _, f := range native {
		fmt.Fprintf(status, "rendered %s (the rules its harness enforces)\n", printable(display(filepath.Join(out, filepath.FromSlash(f)))))
	}
	if res.Commit == "" {
		fmt.Fprintf(status, "not committed: %s. The agents are served the rules committed on %s: commit these files there (git switch %s, git add them, git commit)\n", res.NotCommitted, printable(res.Branch), shellWord(res.Branch))
	} else {
		fmt.Fprintf(status, "committed %s on %s as %s: the imported rules are the owner's baseline\n", count(len(res.Files), "file", "files"), printable(res.Branch), res.Commit[:12])
	}
	fmt.Fprintf(status, "next: bridle render --rules %s --all --out %s --check   # what CI runs: the agents' files are current\n",
		shellWord(dir), shellWord(display(out)))
	return res.Commit, nil
}

// importNative writes the harnesses' native files (Claude Code's
// settings, Codex's rules, …) for the imported rules into out, as render
// --all does, and commits them after init's commit: render --check then
// passes at once.
func importNative(rules []byte, res scaffold.Result, out string, author *object.Signature) ([]string, error) {
	snap, diags := compiler.CompileBytes(compiler.Input{Name: "bridle.yaml", Data: rules}, version())
	if snap == nil {
		return nil, fmt.Errorf("import: the imported rules do not compile (a bug): %s", diags.Error())
	}
	rulesPath, err := filepath.Rel(out, filepath.Join(res.Root, filepath.FromSlash(res.Layout.Rules)))
	if err != nil {
		return nil, err
	}
	n, err := renderers.RenderNative(out, &snap.Document, renderers.NativeOptions{RulesPath: filepath.ToSlash(rulesPath)})
	if err != nil {
		return nil, err
	}
	written, err := renderers.Write(out, n.Files)
	if err != nil || len(written) == 0 || res.Commit == "" {
		return written, err
	}
	files := map[string][]byte{}
	var paths []string
	for _, f := range n.Files {
		files[f.Path] = []byte(f.Content)
		paths = append(paths, f.Path)
	}
	if _, err := scaffold.CommitIn(out, files, author, "Render the agents' native files from the imported rules\n\nBridle-Source: user\nBridle-Kind: init\n"); err != nil {
		return nil, fmt.Errorf("import: commit the native files: %w", err)
	}
	return paths, nil
}

// rendersTo reports a file some harness's render replaces.
func rendersTo(p string) bool {
	for _, a := range agents.All() {
		if a.Harness != nil && a.Harness.Instructions == p {
			return true
		}
	}
	return p == agents.ClaudeMD || p == agents.AgentsMD
}

func quoteWords(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = shellWord(p)
	}
	return out
}

func printLoss(w io.Writer, res *adopt.Result) {
	fmt.Fprintf(w, "imported %s: %d guardrails, %d conventions, %d commands", count(len(res.Files), "file", "files"),
		len(res.Document.Guardrails), len(res.Document.Project.Conventions), len(res.Document.Project.Commands))
	if res.Merged > 0 {
		fmt.Fprintf(w, " (%d stated again elsewhere, merged)", res.Merged)
	}
	fmt.Fprintln(w)
	for _, s := range res.Skipped {
		fmt.Fprintf(w, "skipped %s: it is already Bridle's render\n", printable(s))
	}
	for _, c := range res.Conflicts {
		fmt.Fprintf(w, "conflict (%s %s): %s says %q, %s says %q — both kept; settle it with bridle propose\n", printable(c.Kind), printable(c.Subject), printable(c.First.String()), c.A, printable(c.Second.String()), c.B)
	}
	if len(res.Lost) == 0 {
		fmt.Fprintln(w, "loss report: everything was carried over")
		return
	}
	fmt.Fprintf(w, "loss report: %s not carried over into bridle.yaml:\n", count(len(res.Lost), "thing", "things"))
	for _, l := range res.Lost {
		fmt.Fprintf(w, "  %s: %s: %s\n", printable(l.At.String()), printable(l.What), printable(l.Why))
		if l.Text != "" {
			for _, line := range strings.Split(strings.TrimRight(l.Text, "\n"), "\n") {
				fmt.Fprintf(w, "      | %s\n", printable(line))
			}
		}
	}
}

// projectRoot is the work tree holding dir (the nearest parent with .git):
// where the agents read their files. Outside git it is dir, or its parent
// when dir is yet to be made (bridle import rules --dry-run in a project).
func projectRoot(dir string) (root string, inGit bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir, false
	}
	for p := abs; ; p = filepath.Dir(p) {
		if _, err := os.Lstat(filepath.Join(p, ".git")); err == nil {
			return p, true
		}
		if filepath.Dir(p) == p {
			break
		}
	}
	if _, err := os.Stat(abs); err != nil {
		return filepath.Dir(abs), false
	}
	return abs, false
}

// importPaths are the files to import, by slash path from root: those
// --from names (which must be inside root), or every agent file found, and
// then the agent files that are links out of the project, not read.
func importPaths(r *os.Root, root string, from []string) (paths, links []string, err error) {
	if len(from) == 0 {
		return adopt.Find(r.FS())
	}
	for _, f := range from {
		abs, err := filepath.Abs(f)
		if err != nil {
			return nil, nil, err
		}
		rel, err := filepath.Rel(root, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, nil, usageErr("--from %s: not in the project %s", f, root)
		}
		paths = append(paths, filepath.ToSlash(rel))
	}
	slices.Sort(paths)
	return slices.Compact(paths), nil, nil
}

// readImport reads the files, each at most adopt.MaxFileSize (+1, so that
// Import refuses a larger one by its size without holding it all).
func readImport(r *os.Root, paths []string) ([]adopt.File, error) {
	var files []adopt.File
	for _, p := range paths {
		f, err := r.Open(filepath.FromSlash(p))
		if err != nil {
			return nil, usageErr("import %s: %w", p, err)
		}
		if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
			f.Close()
			return nil, usageErr("import %s: not a regular file", p)
		}
		b, err := io.ReadAll(io.LimitReader(f, adopt.MaxFileSize+1))
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("import %s: %w", p, err)
		}
		files = append(files, adopt.File{Path: p, Data: b})
	}
	return files, nil
}

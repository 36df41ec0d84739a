// Package scaffold creates new rules: a commented bridle.yaml that validates
// as written, its schema, its renders, a CI workflow, a README and a
// .gitignore, committed on the rules' branch — as a rules repository of its
// own, or as a folder of a project repository (Init says which layout and
// why). The rules' branch is the repository's own (its current branch, or
// the one chosen), recorded in its git configuration for every reader
// (compiler.Branch); nothing assumes it is called main.
//
// It never overwrites: Init refuses a directory that already holds a
// bridle.yaml, and writes nothing when it refuses; the one exception is
// the agent files bridle import read (Options.Replace), whose rules the
// new bridle.yaml holds and which become its renders.
package scaffold

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"text/template"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/google/renameio/v2"
	"go.yaml.in/yaml/v3"

	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/internal/gittree"
	"github.com/bridle-dev/bridle/internal/lazyregexp"
	"github.com/bridle-dev/bridle/renderers"
	"github.com/bridle-dev/bridle/schema"
)

//go:embed bridle.yaml.tmpl
var rulesTemplate string

//go:embed files/workflow.yaml
var workflowTemplate string

// WorkflowPath is where a repository's Bridle CI workflow lives, relative to
// the repository root (Gitea Actions reads workflows only there).
const WorkflowPath = ".gitea/workflows/bridle.yaml"

// SchemaFile is the JSON Schema beside bridle.yaml that the scaffold's
// yaml-language-server comment points at, so editors work offline.
const SchemaFile = "bridle.schema.json"

// RenderDir is where a rules repository of its own keeps its committed
// renders, beside bridle.yaml; proposals update them and CI checks them.
const RenderDir = "rendered"

// The templates are parsed on first use, not at init: every bridle command
// would pay for them before main.
var (
	tmpl = sync.OnceValue(func() *template.Template {
		return template.Must(template.New("bridle.yaml").Funcs(template.FuncMap{"sources": vendorSources}).Parse(rulesTemplate))
	})
	wfTmpl = sync.OnceValue(func() *template.Template {
		return template.Must(template.New("workflow").Delims("[[", "]]").Parse(workflowTemplate))
	})
)

// ErrExists is returned when the directory already holds rules.
var ErrExists = errors.New("already holds a bridle.yaml")

// ErrBadSetting is returned for a workflow setting that cannot be written
// into the workflow as it is.
var ErrBadSetting = errors.New("bad setting")

// RenderDirFor is where the committed renders of the rules in rulesDir (a
// slash path relative to the repository root) live, relative to rulesDir:
// rendered/ beside a rules repository's own bridle.yaml ("."), and the
// repository root for a rules folder inside a project, where the agents
// read them (".." for rules/).
func RenderDirFor(rulesDir string) string {
	rulesDir = path.Clean(rulesDir)
	if rulesDir == "." || rulesDir == "/" {
		return RenderDir
	}
	return strings.TrimSuffix(strings.Repeat("../", strings.Count(rulesDir, "/")+1), "/")
}

// Layout is a new rules directory in its repository.
type Layout struct {
	ID string // the project id
	// Rules is the rules directory, a slash path relative to the
	// repository root: "." for a rules repository of its own, else a
	// folder of a project repository ("rules").
	Rules string
	// BridleServer, BridleURL and BridleModule are how the CI workflow
	// installs Bridle by default (a Bridle gateway that serves its own
	// binary, a binary to download, or a go install argument); the
	// repository variables of the same names override them. Files
	// refuses a server or binary URL over plain http to another machine
	// (ErrPlainHTTP): the CI runs what it downloads.
	BridleServer, BridleURL, BridleModule string
	// Agents are the agents the project uses, each a known agent
	// (agents.Names); nil means DefaultAgents.
	Agents []string
	// RulesYAML, when set, is the bridle.yaml to write instead of the
	// commented template (bridle import's).
	RulesYAML []byte
	// Branch is the rules' branch, the one the CI workflow publishes from;
	// compiler.DefaultBranch when empty.
	Branch string
	// Baseline is the project's stack and commands (Detect); what it
	// lacks is written as placeholders (schema.Placeholder).
	Baseline Baseline
}

// DefaultAgents are the agents a scaffold has profiles for when none are
// chosen and nothing is detected (Init adds the harnesses a project already
// has files of: DetectAgents).
var DefaultAgents = []string{"claude", "codex"}

// ErrUnknownAgent is returned for an agent the registry does not know.
var ErrUnknownAgent = errors.New("unknown agent")

// CheckAgents refuses names the agents registry does not know, and
// duplicates.
func CheckAgents(names []string) error {
	seen := map[string]bool{}
	for _, n := range names {
		if _, ok := agents.Lookup(n); !ok {
			hint := ""
			if s := schema.Suggest(n, agents.Names()); s != "" {
				hint = fmt.Sprintf("did you mean %q? ", s)
			}
			return fmt.Errorf("%w %q (%sknown: %s)", ErrUnknownAgent, n, hint, strings.Join(agents.Names(), ", "))
		}
		if seen[n] {
			return fmt.Errorf("agent %q is listed twice", n)
		}
		seen[n] = true
	}
	return nil
}

// scaffoldAgent is one agent's profile and permissions in the scaffold.
type scaffoldAgent struct{ Name, Sources, Perms string }

// permsFor is an agent's scaffold permissions: harnesses propose and keep
// memory (Kimi, stepwise, reads it only), a model only reads memory.
func permsFor(name string) string {
	a, _ := agents.Lookup(name)
	switch {
	case a.Harness == nil:
		return "    memory: {read: true}"
	case a.Style == agents.Stepwise:
		return "    rules: {propose: true}\n    memory: {read: true}"
	}
	return "    rules: {propose: true}\n    memory: {read: true, write: true}"
}

// Out is where the layout's renders go, relative to the repository root.
func (l Layout) Out() string { return path.Clean(path.Join(l.rules(), RenderDirFor(l.rules()))) }

func (l Layout) branch() string {
	if l.Branch == "" {
		return compiler.DefaultBranch
	}
	return l.Branch
}

func (l Layout) rules() string {
	if l.Rules == "" {
		return "."
	}
	return path.Clean(l.Rules)
}

// Files returns every file of a new rules repository at its root, by slash
// path: the rules, their schema, their renders under rendered/, the CI
// workflow, a README and a .gitignore.
func Files(id, version string) (map[string][]byte, error) {
	return Layout{ID: id, Rules: "."}.Files(version)
}

// FilesFor is Files for the agents the project uses (nil: DefaultAgents)
// and the rules' branch ("": compiler.DefaultBranch).
func FilesFor(id, version string, agentNames []string, branch string) (map[string][]byte, error) {
	return Layout{ID: id, Rules: ".", Agents: agentNames, Branch: branch}.Files(version)
}

// Files returns every file the layout needs, by slash path relative to the
// repository root: bridle.yaml, its schema, a README and a .gitignore in the
// rules directory, the renders where RenderDirFor puts them, and the CI
// workflow.
func (l Layout) Files(version string) (map[string][]byte, error) {
	if err := checkServer(l.BridleServer); err != nil {
		return nil, err
	}
	if err := checkBinaryURL(l.BridleURL); err != nil {
		return nil, err
	}
	for _, v := range []string{l.BridleServer, l.BridleURL, l.BridleModule, l.Branch} {
		if strings.ContainsAny(v, "'\"\n\r\\ \t${}") {
			return nil, fmt.Errorf("workflow setting %q: %w: it may not hold quotes, spaces, $ or braces", v, ErrBadSetting)
		}
	}
	rules := l.rulesFile()
	snap, diags := compiler.CompileBytes(compiler.Input{Name: "bridle.yaml", Data: rules}, version)
	if snap == nil {
		return nil, fmt.Errorf("scaffold does not validate (a bug): %s", diags.Error())
	}
	dir := l.rules()
	files := map[string][]byte{
		path.Join(dir, "bridle.yaml"): rules,
		path.Join(dir, SchemaFile):    schema.JSON(),
		path.Join(dir, ".gitignore"):  []byte("# Local renders for trying things out; the committed ones are written by bridle render --all.\n/tmp-render/\n"),
		path.Join(dir, "README.md"):   []byte(l.readme()),
		WorkflowPath:                  l.workflow(),
	}
	for _, r := range Renders(snap, version) {
		files[path.Join(l.Out(), r.Path)] = []byte(r.Content)
	}
	return files, nil
}

// ErrPlainHTTP is returned for a URL the CI would download Bridle from
// over plain http from another machine: anyone on the path could hand it
// a binary of their own to run (a checksum from the same server does not
// help), so only https, or http to this machine, is accepted.
var ErrPlainHTTP = errors.New("plain http")

// checkServer accepts "" or a Bridle gateway's absolute https URL (http on
// the loopback): a host, maybe a path, no user, query or fragment.
func checkServer(raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Opaque != "" || u.Hostname() == "" ||
		u.User != nil || strings.ContainsAny(raw, "?#") {
		return fmt.Errorf("server %q: %w: not the https URL of a Bridle gateway (https://host[:port][/path], no user, query or fragment)", raw, ErrBadSetting)
	}
	return checkScheme("server", raw, u)
}

// checkBinaryURL accepts "" or a URL the CI downloads a bridle binary
// from, as curl reads it, unless it is plain http to another machine or
// holds a user (the workflow is committed).
func checkBinaryURL(raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("bridle URL %q: %w: %w", raw, ErrBadSetting, err)
	}
	if u.User != nil {
		return fmt.Errorf("bridle URL %q: %w: a user or password would be committed in the workflow; give the runner access another way", raw, ErrBadSetting)
	}
	return checkScheme("bridle URL", raw, u)
}

func checkScheme(what, raw string, u *url.URL) error {
	if u.Scheme != "http" || loopbackHost(u.Hostname()) {
		return nil
	}
	return fmt.Errorf("%s %q: %w: %w: the CI would run a bridle binary that anyone between it and %s could replace; use https (http is accepted only for localhost, 127.0.0.0/8 and ::1)",
		what, raw, ErrBadSetting, ErrPlainHTTP, u.Hostname())
}

// loopbackHost: localhost, 127.0.0.0/8 or ::1, written plainly (no other
// spelling curl might also read as the loopback).
func loopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.Zone() == "" && a.Unmap().IsLoopback()
}

func (l Layout) workflow() []byte {
	var b bytes.Buffer
	_ = wfTmpl().Execute(&b, struct{ Rules, Out, BridleServer, BridleURL, BridleModule, Branch string }{
		l.rules(), l.Out(), strings.TrimSuffix(l.BridleServer, "/"), l.BridleURL, l.BridleModule, l.branch()})
	return b.Bytes()
}

// Renders are snap's renders as they are committed next to the rules they
// come from (renderers.Committed): what init writes and proposals commit.
func Renders(snap *compiler.Snapshot, version string) []renderers.File {
	return renderers.Committed(snap.Renders, version)
}

func (l Layout) readme() string {
	where := "`rendered/` holds"
	if l.rules() != "." {
		where = "The repository root holds"
	}
	return "# " + l.ID + " rules\n\n" +
		"The canonical rules every coding agent on " + l.ID + " works under, kept by [Bridle](https://github.com/bridle-dev/bridle).\n\n" +
		"- `bridle.yaml` is the source of truth. Change it through a proposal (`bridle propose …`, or an agent's\n" +
		"  `propose_guardrail` tool); merging the pull request (`bridle approve`) is the approval. A change committed\n" +
		"  any other way is served to the agents marked NOT APPROVED and grants nothing.\n" +
		"- " + where + " each agent's file (CLAUDE.md, AGENTS.md, agents/<agent>/AGENTS.md). Proposals update\n" +
		"  them; never edit them by hand. CI checks them with `bridle render --rules " + l.rules() + " --all --out " + l.Out() + " --check`.\n" +
		"- `" + SchemaFile + "` is the schema editors check `bridle.yaml` against (`bridle schema` prints it).\n" +
		"- Approvals are not written into bridle.yaml: who merged each proposal, and when, is resolved from\n" +
		"  this repository's history into the published snapshot, `bridle mcp` and `bridle render --ref " + l.branch() + "`.\n"
}

// Rules returns the scaffold bridle.yaml for a project id, for a rules
// repository of its own.
func Rules(id string) []byte { return Layout{ID: id, Rules: "."}.rulesFile() }

func (l Layout) rulesFile() []byte {
	if l.RulesYAML != nil {
		return l.RulesYAML
	}
	var b bytes.Buffer
	names := l.Agents
	if len(names) == 0 {
		names = DefaultAgents
	}
	var as []scaffoldAgent
	for _, n := range names {
		as = append(as, scaffoldAgent{Name: n, Sources: vendorSources(n), Perms: permsFor(n)})
	}
	_ = tmpl().Execute(&b, struct {
		ID, Name, Rules, Out, Baseline string
		Agents                         []scaffoldAgent
	}{l.ID, l.ID, l.rules(), l.Out(), l.Baseline.yaml(), as})
	return b.Bytes()
}

// Base is the document a new rules file for these agents starts from (nil:
// DefaultAgents): the template's project id and name, agent profiles and
// permissions. bridle import fills in the rest.
func Base(id string, agentNames []string) (schema.Document, error) {
	f, diags := schema.Load("bridle.yaml", Layout{ID: id, Rules: ".", Agents: agentNames}.rulesFile())
	if diags.HasErrors() {
		return schema.Document{}, fmt.Errorf("scaffold does not validate (a bug): %s", diags.Error())
	}
	return f.Doc, nil
}

// yaml is the baseline as the scaffold's project.stack, commands and
// conventions, placeholders where it knows nothing.
func (b Baseline) yaml() string {
	q := func(s string) string {
		out, _ := yaml.Marshal(s)
		return strings.TrimSuffix(string(out), "\n")
	}
	var w strings.Builder
	from := "read from " + strings.Join(b.From, ", ")
	if len(b.Stack) == 0 {
		w.WriteString("  # What it is built with: Bridle found no go.mod, package.json, pyproject.toml or Cargo.toml.\n  stack:\n")
		w.WriteString("    - " + q(schema.Placeholder+": the languages and frameworks it is built with") + "\n")
	} else {
		w.WriteString("  # What it is built with (" + from + ").\n  stack:\n")
		for _, s := range b.Stack {
			w.WriteString("    - " + q(s) + "\n")
		}
	}
	if len(b.Commands) == 0 {
		w.WriteString("  # Commands an agent runs; the step-by-step renderer tells agents when.\n  commands:\n")
		w.WriteString("    - name: test\n      run: " + q(schema.Placeholder+": the command that runs the tests") + "\n")
	} else {
		w.WriteString("  # Commands an agent runs (" + from + "); the step-by-step renderer tells agents when.\n  commands:\n")
		for _, c := range b.Commands {
			w.WriteString("    - name: " + q(c.Name) + "\n      run: " + q(c.Run) + "\n")
		}
	}
	if b.Go {
		w.WriteString("  conventions:\n    - id: errors-wrap\n      statement: Wrap errors with context using %w; never discard an error.\n")
	} else {
		w.WriteString("  # Coding conventions the agents follow, each {id, statement}.\n  conventions: []\n")
	}
	return w.String()
}

// vendorSources is a scaffold profile's vendor_sources: the agent
// registry's documented defaults (" {}" for an agent with none).
func vendorSources(agent string) string {
	a, _ := agents.Lookup(agent)
	if len(a.VendorSources) == 0 {
		return " {}"
	}
	var b strings.Builder
	b.WriteString("\n    vendor_sources:")
	for _, s := range a.VendorSources {
		fmt.Fprintf(&b, "\n      - {url: %s, format: %s}", s.URL, s.Format)
	}
	return b.String()
}

var slugRe = lazyregexp.New(`[^a-z0-9._-]+`)

// ProjectID derives a valid project id from a directory name.
func ProjectID(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	id := strings.Trim(slugRe.ReplaceAllString(strings.ToLower(filepath.Base(abs)), "-"), "-._")
	if id == "" {
		id = "my-project"
	}
	if id[0] < 'a' || id[0] > 'z' || slices.Contains([]string{"true", "false", "null", "yes", "no", "on", "off"}, id) {
		id = "project-" + id // a YAML string as written, never a number or a boolean
	}
	if len(id) > 64 {
		id = strings.TrimRight(id[:64], "-._")
	}
	return id
}

// generic are directory names that say where rules live, not whose they
// are: a rules directory named so takes its project's name from its parent.
var generic = []string{"rules", "bridle", "bridle-rules", "agent-rules"}

// Options are Init's settings.
type Options struct {
	Version string // the bridle version, for the renders' headers
	// BridleServer, BridleURL and BridleModule are the CI workflow's
	// defaults (Layout).
	BridleServer, BridleURL, BridleModule string
	// Author signs the commit Init makes. Required.
	Author *object.Signature
	// Agents are the agents the project uses (Layout.Agents); nil:
	// DetectAgents.
	Agents []string
	// Rules is the bridle.yaml to commit instead of the template
	// (Layout.RulesYAML).
	Rules []byte
	// Replace are files, by slash path from the repository root, that Init
	// overwrites with its renders instead of keeping: the agent files
	// bridle import read, whose rules are now in Rules.
	Replace []string
	// Branch is the rules' branch. Empty: in an existing repository the one
	// compiler.Branch finds (recorded, else main when it exists, else
	// origin's default, else the branch HEAD is on, even unborn); in a new
	// one git's init.defaultBranch, else compiler.DefaultBranch.
	Branch string
}

// Result says what Init made.
type Result struct {
	Dir    string
	Layout Layout
	Root   string   // the repository's work tree root
	Files  []string // the files written, by path as given (dir joined)
	// Kept are files of the layout that already existed and were left as
	// they are (and not committed), by slash path from the root.
	Kept []string
	// Created says Init ran git init.
	Created bool
	// Branch is the rules' branch, recorded in the repository's git
	// configuration (compiler.BranchKey).
	Branch string
	// Commit is the commit Init made on Branch, holding exactly the files it
	// wrote; empty when NotCommitted says why it made none.
	Commit       string
	NotCommitted string
}

// Init scaffolds rules in dir and commits them on the rules' branch
// (Options.Branch), so that the sidecar, which serves that branch, answers
// with them at once:
//
//   - dir not in a git repository: a rules repository of its own (git init
//     on the branch), renders in rendered/;
//   - dir is a folder of an existing repository (a project): the rules in
//     that folder, the renders at the repository root where agents read
//     them, the CI workflow at the root (unless one exists);
//   - dir is the root of an existing repository: a rules repository there.
//
// In an existing repository the commit holds only the files Init wrote: the
// rest of the work tree and the index are left as they are. The branch is
// recorded in the repository's git configuration (compiler.RecordBranch).
// When HEAD is on another branch (or detached), Init writes the files and
// commits nothing, saying why in Result.NotCommitted. It never overwrites: it
// refuses a directory that already holds a bridle.yaml (writing nothing),
// and keeps any other file that exists but those o.Replace names.
func Init(dir string, o Options) (Result, error) {
	res := Result{Dir: dir}
	if o.Author == nil {
		return res, fmt.Errorf("init %s: no author for the commit", dir)
	}
	rulesPath := filepath.Join(dir, "bridle.yaml")
	if _, err := os.Lstat(rulesPath); err == nil {
		return res, fmt.Errorf("init %s: %w", dir, ErrExists)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return res, fmt.Errorf("init %s: %w", dir, err)
	}
	if o.Branch != "" && (plumbing.NewBranchReferenceName(o.Branch).Validate() != nil || strings.HasPrefix(o.Branch, "-")) {
		return res, fmt.Errorf("init %s: branch %q: %w: not a branch name", dir, o.Branch, ErrBadSetting)
	}
	layout := Layout{ID: ProjectID(dir), Rules: ".", BridleServer: o.BridleServer, BridleURL: o.BridleURL, BridleModule: o.BridleModule, Agents: o.Agents, RulesYAML: o.Rules, Branch: o.Branch}
	if slices.Contains(generic, strings.ToLower(filepath.Base(abs))) {
		layout.ID = ProjectID(filepath.Dir(abs))
	}
	res.Root = abs
	repo, openErr := git.PlainOpenWithOptions(firstExisting(abs), &git.PlainOpenOptions{DetectDotGit: true})
	if openErr == nil {
		wt, err := repo.Worktree()
		if err != nil {
			return res, fmt.Errorf("init %s: %w", dir, err)
		}
		res.Root = wt.Filesystem.Root()
		rootReal, _ := filepath.EvalSymlinks(res.Root)
		absReal := realPath(abs)
		rel, err := filepath.Rel(rootReal, absReal)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return res, fmt.Errorf("init %s: outside its repository %s", dir, res.Root)
		}
		layout.Rules = filepath.ToSlash(rel)
		if layout.Rules != "." {
			layout.ID = ProjectID(res.Root)
		}
		if layout.Branch == "" {
			layout.Branch = compiler.Branch(res.Root)
		}
	} else if layout.Branch == "" {
		layout.Branch = compiler.DefaultBranch
		if cfg, err := config.LoadConfig(config.GlobalScope); err == nil && cfg.Init.DefaultBranch != "" &&
			plumbing.NewBranchReferenceName(cfg.Init.DefaultBranch).Validate() == nil {
			layout.Branch = cfg.Init.DefaultBranch
		}
	}
	res.Branch = layout.Branch
	if len(layout.Agents) == 0 {
		layout.Agents = DetectAgents(res.Root)
	}
	layout.Baseline = Detect(res.Root)
	res.Layout = layout
	files, err := layout.Files(o.Version)
	if err != nil {
		return res, err
	}
	written := map[string][]byte{}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		p := filepath.Join(res.Root, filepath.FromSlash(name))
		if _, err := os.Lstat(p); err == nil && !slices.Contains(o.Replace, name) {
			res.Kept = append(res.Kept, name) // keep what is there (a .gitignore, a README, your CLAUDE.md)
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return res, fmt.Errorf("init %s: %w", dir, err)
		}
		if err := renameio.WriteFile(p, files[name], 0o644); err != nil {
			return res, fmt.Errorf("init %s: %w", dir, err)
		}
		res.Files = append(res.Files, p)
		written[name] = files[name]
	}
	if openErr != nil {
		if repo, err = git.PlainInitWithOptions(dir, &git.PlainInitOptions{
			InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName(layout.Branch)},
		}); err != nil {
			return res, fmt.Errorf("init %s: git init: %w", dir, err)
		}
		res.Created = true
	}
	if err := compiler.RecordBranch(res.Root, layout.Branch); err != nil {
		return res, fmt.Errorf("init %s: %w", dir, err)
	}
	res.Commit, res.NotCommitted, err = CommitOnBranch(repo, res.Root, layout.Branch, written, o.Author, "Initialise Bridle rules\n\nBridle-Source: user\nBridle-Kind: init\n")
	if err != nil {
		return res, fmt.Errorf("init %s: %w", dir, err)
	}
	return res, nil
}

// firstExisting is p or its nearest existing parent.
func firstExisting(p string) string {
	for {
		if _, err := os.Stat(p); err == nil || filepath.Dir(p) == p {
			return p
		}
		p = filepath.Dir(p)
	}
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// CommitOnBranch commits files (by slash path from root, already written
// to the work tree) on branch, the rules' branch, as one commit whose tree is
// the branch's with those files put in, and stages them in the index:
// nothing else in the work tree or the index changes. It commits only when
// HEAD is on branch (or branch is unborn), since that is the branch the
// sidecar serves; otherwise it says why not. bridle init and the vault
// (secrets.enc.yaml) commit through it.
func CommitOnBranch(repo *git.Repository, root, branch string, files map[string][]byte, author *object.Signature, message string) (commit, why string, err error) {
	if len(files) == 0 {
		return "", "every file of the scaffold already exists", nil
	}
	mainRef := plumbing.NewBranchReferenceName(branch)
	head, err := repo.Storer.Reference(plumbing.HEAD)
	if err != nil {
		return "", "", fmt.Errorf("read HEAD: %w", err)
	}
	if head.Type() != plumbing.SymbolicReference {
		return "", fmt.Sprintf("HEAD is detached; the agents are served branch %s", branch), nil
	}
	if head.Target() != mainRef {
		return "", fmt.Sprintf("you are on branch %s; the agents are served branch %s", head.Target().Short(), branch), nil
	}
	var parents []plumbing.Hash
	base := plumbing.ZeroHash
	old, err := repo.Storer.Reference(mainRef)
	switch {
	case err == nil:
		c, err := repo.CommitObject(old.Hash())
		if err != nil {
			return "", "", fmt.Errorf("read %s: %w", branch, err)
		}
		parents, base = []plumbing.Hash{c.Hash}, c.TreeHash
	case errors.Is(err, plumbing.ErrReferenceNotFound):
		old = nil
	default:
		return "", "", fmt.Errorf("read %s: %w", branch, err)
	}
	tree, err := gittree.Put(repo.Storer, base, files)
	if err != nil {
		return "", "", err
	}
	c := &object.Commit{Author: *author, Committer: *author, TreeHash: tree, ParentHashes: parents,
		Message: message}
	obj := repo.Storer.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return "", "", err
	}
	h, err := repo.Storer.SetEncodedObject(obj)
	if err != nil {
		return "", "", fmt.Errorf("write commit: %w", err)
	}
	if err := repo.Storer.CheckAndSetReference(plumbing.NewHashReference(mainRef, h), old); err != nil {
		return "", "", fmt.Errorf("%s moved while init ran; run it again: %w", branch, err)
	}
	if err := stage(repo, root, files); err != nil {
		return h.String(), "", fmt.Errorf("committed %s, but staging the files failed (git reset -- <files> fixes the index): %w", h.String()[:12], err)
	}
	return h.String(), "", nil
}

// stage records files, as written to the work tree, in the index.
func stage(repo *git.Repository, root string, files map[string][]byte) error {
	idx, err := repo.Storer.Index()
	if err != nil {
		return err
	}
	for name, data := range files {
		st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			return err
		}
		e, err := idx.Entry(name)
		if err != nil {
			e = idx.Add(name)
		}
		e.Hash = plumbing.ComputeHash(plumbing.BlobObject, data)
		e.Mode = filemode.Regular
		e.Size = uint32(st.Size())
		e.ModifiedAt = st.ModTime()
		e.CreatedAt = st.ModTime()
	}
	idx.Cache = nil // the cached trees no longer match
	return repo.Storer.SetIndex(idx)
}

// ErrNotCommitted marks files written to the work tree but not committed:
// dir is in no git repository, or HEAD is not on the rules' branch.
var ErrNotCommitted = errors.New("not committed")

// CommitIn commits files (slash paths relative to dir, already written)
// with CommitOnBranch on the rules' branch (compiler.Branch) in the git
// repository holding dir. The error wraps
// ErrNotCommitted, saying why, when it cannot.
func CommitIn(dir string, files map[string][]byte, author *object.Signature, message string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	repo, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return "", fmt.Errorf("%w: %s is in no git repository (git init it to keep the history of its changes)", ErrNotCommitted, dir)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNotCommitted, err)
	}
	rel, err := filepath.Rel(realPath(wt.Filesystem.Root()), realPath(abs))
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNotCommitted, err)
	}
	byRoot := map[string][]byte{}
	for name, b := range files {
		byRoot[filepath.ToSlash(filepath.Join(rel, filepath.FromSlash(name)))] = b
	}
	commit, why, err := CommitOnBranch(repo, wt.Filesystem.Root(), compiler.Branch(abs), byRoot, author, message)
	if err == nil && why != "" {
		err = fmt.Errorf("%w: %s", ErrNotCommitted, why)
	}
	return commit, err
}

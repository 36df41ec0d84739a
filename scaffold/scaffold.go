// Package scaffold creates a new rules repository: a commented bridle.yaml
// that validates as written, a .gitignore, git init and a first commit.
//
// It never overwrites: Init refuses a directory that already holds a
// bridle.yaml, and writes nothing when it refuses.
package scaffold

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/template"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/google/renameio/v2"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/renderers"
)

//go:embed bridle.yaml.tmpl
var rulesTemplate string

//go:embed files/workflow.yaml
var workflow []byte

// WorkflowPath is where the rules repository's CI workflow lives.
const WorkflowPath = ".gitea/workflows/bridle.yaml"

// RenderDir is where a rules repository keeps its committed renders;
// proposals update them and CI checks them (render --check).
const RenderDir = "rendered"

var tmpl = template.Must(template.New("bridle.yaml").Parse(rulesTemplate))

// ErrExists is returned when the directory already holds rules.
var ErrExists = errors.New("already holds a bridle.yaml")

// Result says what Init made.
type Result struct {
	Dir    string
	Files  []string
	Commit string // the first commit, when Init created the repository or committed into it
}

// Files returns every file of a new rules repository, by slash path: the
// rules, their renders under rendered/, the CI workflow, a README and a
// .gitignore.
func Files(id, version string) (map[string][]byte, error) {
	rules := Rules(id)
	snap, diags := compiler.CompileBytes(compiler.Input{Name: "bridle.yaml", Data: rules}, version)
	if snap == nil {
		return nil, fmt.Errorf("scaffold does not validate (a bug): %s", diags.Error())
	}
	files := map[string][]byte{
		"bridle.yaml": rules,
		".gitignore":  []byte("# Local renders for trying things out; the committed ones live in rendered/.\n/tmp-render/\n"),
		WorkflowPath:  workflow,
		"README.md":   []byte(readme(id)),
	}
	for _, r := range Renders(snap, version) {
		files[path.Join(RenderDir, r.Path)] = []byte(r.Content)
	}
	return files, nil
}

// Renders renders snap for committing next to the rules it comes from.
func Renders(snap *compiler.Snapshot, version string) []renderers.File {
	meta := renderers.Meta{BridleVersion: version, ContentHash: snap.ContentHash, SelfCommit: true}
	var out []renderers.File
	for _, a := range snap.Document.Agents() {
		f, err := renderers.Render(&snap.Document, a, meta)
		if err == nil {
			out = append(out, f)
		}
	}
	return out
}

func readme(id string) string {
	return "# " + id + " rules\n\n" +
		"The canonical rules every coding agent on " + id + " works under, kept by [Bridle](https://github.com/bridle-dev/bridle).\n\n" +
		"- `bridle.yaml` is the source of truth. Change it through a proposal (`bridle propose …`, or an agent's\n" +
		"  `propose_guardrail` tool); merging the pull request is the approval.\n" +
		"- `rendered/` holds each agent's file (CLAUDE.md, AGENTS.md, agents/<agent>/AGENTS.md). Proposals update\n" +
		"  them; never edit them by hand. CI checks them with `bridle render --check --no-history`.\n" +
		"- Approvals are not written into bridle.yaml: who merged each proposal, and when, is resolved from\n" +
		"  this repository's history into the published snapshot, `bridle mcp` and `bridle render --ref main`.\n"
}

// Rules returns the scaffold bridle.yaml for a project id.
func Rules(id string) []byte {
	var b bytes.Buffer
	_ = tmpl.Execute(&b, struct{ ID, Name string }{id, id})
	return b.Bytes()
}

var slugRe = regexp.MustCompile(`[^a-z0-9._-]+`)

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
	if len(id) > 64 {
		id = id[:64]
	}
	return id
}

// Init scaffolds a rules repository in dir. When dir is not yet a git
// repository it runs git init and commits the scaffold; inside an existing
// repository it only writes the files, leaving the commit to the user.
func Init(dir, version string) (Result, error) {
	res := Result{Dir: dir}
	rulesPath := filepath.Join(dir, "bridle.yaml")
	if _, err := os.Stat(rulesPath); err == nil {
		return res, fmt.Errorf("init %s: %w", dir, ErrExists)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, fmt.Errorf("init %s: %w", dir, err)
	}
	_, openErr := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true})
	inRepo := openErr == nil

	files, err := Files(ProjectID(dir), version)
	if err != nil {
		return res, err
	}
	names := slices.Sorted(maps.Keys(files))
	var written []string
	for _, name := range names {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if _, err := os.Stat(p); err == nil {
			continue // keep what is there (a .gitignore, a README)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return res, fmt.Errorf("init %s: %w", dir, err)
		}
		if err := renameio.WriteFile(p, files[name], 0o644); err != nil {
			return res, fmt.Errorf("init %s: %w", dir, err)
		}
		res.Files = append(res.Files, p)
		written = append(written, name)
	}
	if inRepo {
		return res, nil
	}
	repo, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{
		InitOptions: git.InitOptions{DefaultBranch: "refs/heads/main"},
	})
	if err != nil {
		return res, fmt.Errorf("init %s: git init: %w", dir, err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return res, fmt.Errorf("init %s: %w", dir, err)
	}
	for _, name := range written {
		if _, err := wt.Add(name); err != nil {
			return res, fmt.Errorf("init %s: git add %s: %w", dir, name, err)
		}
	}
	h, err := wt.Commit("Initialise Bridle rules\n\nBridle-Source: user\nBridle-Kind: init\n", &git.CommitOptions{Author: author()})
	if err != nil {
		return res, fmt.Errorf("init %s: git commit: %w", dir, err)
	}
	res.Commit = h.String()
	return res, nil
}

// author is the user's git identity, or a Bridle placeholder.
func author() *object.Signature {
	sig := &object.Signature{Name: "Bridle", Email: "bridle@localhost", When: time.Now()}
	if cfg, err := config.LoadConfig(config.GlobalScope); err == nil {
		if cfg.User.Name != "" {
			sig.Name = cfg.User.Name
		}
		if cfg.User.Email != "" {
			sig.Email = cfg.User.Email
		}
	}
	return sig
}

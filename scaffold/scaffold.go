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
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/google/renameio/v2"
)

//go:embed bridle.yaml.tmpl
var rulesTemplate string

var tmpl = template.Must(template.New("bridle.yaml").Parse(rulesTemplate))

// ErrExists is returned when the directory already holds rules.
var ErrExists = errors.New("already holds a bridle.yaml")

// Result says what Init made.
type Result struct {
	Dir    string
	Files  []string
	Commit string // the first commit, when Init created the repository or committed into it
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
func Init(dir string) (Result, error) {
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

	files := map[string][]byte{
		"bridle.yaml": Rules(ProjectID(dir)),
		".gitignore":  []byte("# Rendered files are published by CI on merge; keep local renders out of git.\n/rendered/\n"),
	}
	for _, name := range []string{".gitignore", "bridle.yaml"} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			continue // keep an existing .gitignore
		}
		if err := renameio.WriteFile(p, files[name], 0o644); err != nil {
			return res, fmt.Errorf("init %s: %w", dir, err)
		}
		res.Files = append(res.Files, p)
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
	for _, name := range []string{".gitignore", "bridle.yaml"} {
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

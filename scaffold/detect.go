package scaffold

import (
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/internal/lazyregexp"
	"github.com/bridle-dev/bridle/redact"
	"github.com/bridle-dev/bridle/schema"
)

// Baseline is what init reads from the project it scaffolds rules for: its
// stack and the commands an agent runs, from the files that say them.
type Baseline struct {
	Stack    []string
	Commands []schema.Command
	// Go is set for a Go module: its conventions (errors wrapped with %w)
	// are Go's and go into no other project's rules.
	Go bool
	// From are the files the baseline was read from, by slash path.
	From []string
}

// maxDetectFile is the most init reads of one file it detects from.
const maxDetectFile = 1 << 20

// The scripts of a package.json, and the targets of a Makefile, that become
// commands, in this order.
var (
	npmScripts  = []string{"build", "test", "lint", "dev", "start"}
	makeTargets = []string{"build", "test", "lint", "check", "fmt", "format"}
)

var makeTarget = lazyregexp.New(`^([A-Za-z0-9][A-Za-z0-9_.-]*)\s*:([^=]|$)`)

// Detect reads the baseline of the project at root: go.mod, package.json
// (its scripts, run with the package manager its lockfile names),
// pyproject.toml (uv, poetry, pytest, ruff), Cargo.toml, the Makefile's
// targets and the run: lines of the existing CI workflows (.github and
// .gitea). What it cannot tell stays empty: the scaffold then writes
// placeholders (schema.Placeholder) that bridle validate warns about.
func Detect(root string) Baseline {
	var b Baseline
	read := func(name string) ([]byte, bool) {
		p := filepath.Join(root, filepath.FromSlash(name))
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() || st.Size() > maxDetectFile {
			return nil, false
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, false
		}
		b.From = append(b.From, name)
		return data, true
	}
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(root, filepath.FromSlash(name)))
		return err == nil
	}
	stack := func(s ...string) {
		for _, v := range s {
			if !slices.Contains(b.Stack, v) {
				b.Stack = append(b.Stack, v)
			}
		}
	}
	command := func(name, run string) {
		if slices.ContainsFunc(b.Commands, func(c schema.Command) bool { return c.Name == name || c.Run == run }) {
			return
		}
		b.Commands = append(b.Commands, schema.Command{Name: name, Run: run})
	}

	for _, name := range []string{"Makefile", "makefile", "GNUmakefile"} {
		data, ok := read(name)
		if !ok {
			continue
		}
		targets := map[string]bool{}
		for line := range strings.Lines(string(data)) {
			if m := makeTarget.FindStringSubmatch(line); m != nil {
				targets[m[1]] = true
			}
		}
		for _, t := range makeTargets {
			if targets[t] {
				command(t, "make "+t)
			}
		}
		break
	}
	if _, ok := read("go.mod"); ok {
		b.Go = true
		stack("Go")
		command("build", "go build ./...")
		command("test", "go test ./...")
		command("vet", "go vet ./...")
	}
	if data, ok := read("package.json"); ok {
		var pkg struct {
			Scripts         map[string]string `json:"scripts"`
			Dependencies    map[string]string `json:"dependencies"`
			DevDependencies map[string]string `json:"devDependencies"`
		}
		_ = json.Unmarshal(data, &pkg)
		lang := "JavaScript"
		if exists("tsconfig.json") || pkg.Dependencies["typescript"] != "" || pkg.DevDependencies["typescript"] != "" {
			lang = "TypeScript"
		}
		pm := "npm"
		for _, l := range []struct{ file, pm string }{{"pnpm-lock.yaml", "pnpm"}, {"yarn.lock", "yarn"}, {"bun.lockb", "bun"}, {"bun.lock", "bun"}, {"package-lock.json", "npm"}} {
			if exists(l.file) {
				pm = l.pm
				break
			}
		}
		stack(lang, "Node.js", pm)
		for _, s := range npmScripts {
			if strings.TrimSpace(pkg.Scripts[s]) != "" {
				command(s, pm+" run "+s)
			}
		}
	}
	if data, ok := read("pyproject.toml"); ok {
		text := string(data)
		stack("Python")
		run := ""
		switch {
		case exists("uv.lock") || strings.Contains(text, "[tool.uv"):
			run = "uv run "
			stack("uv")
		case exists("poetry.lock") || strings.Contains(text, "[tool.poetry"):
			run = "poetry run "
			stack("Poetry")
		}
		if strings.Contains(text, "pytest") {
			command("test", run+"pytest")
		}
		if strings.Contains(text, "ruff") {
			command("lint", run+"ruff check .")
		}
	}
	if _, ok := read("Cargo.toml"); ok {
		stack("Rust")
		command("build", "cargo build")
		command("test", "cargo test")
		command("lint", "cargo clippy")
	}
	for _, dir := range []string{".github/workflows", ".gitea/workflows"} {
		entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
		if err != nil {
			continue
		}
		for _, e := range entries {
			name := path.Join(dir, e.Name())
			if e.Type()&fs.ModeType != 0 || name == WorkflowPath || (path.Ext(name) != ".yaml" && path.Ext(name) != ".yml") {
				continue
			}
			if data, ok := read(name); ok {
				for _, line := range ciRuns(data) {
					k := countPrefix(b.Commands, "ci")
					if k >= 5 {
						break
					}
					n := "ci"
					if k > 0 {
						n = "ci-" + strconv.Itoa(k+1)
					}
					command(n, line)
				}
			}
		}
	}
	return b
}

func countPrefix(cs []schema.Command, prefix string) int {
	n := 0
	for _, c := range cs {
		if c.Name == prefix || strings.HasPrefix(c.Name, prefix+"-") {
			n++
		}
	}
	return n
}

// ciRuns are the command lines of a workflow's run: steps that build, test
// or lint (checkLine) — never a deploy, publish or login step, a line with
// a credential, nor one with the runner's ${{ expressions }}: what it
// returns becomes the owner's approved baseline, rendered to every agent.
func ciRuns(data []byte) []string {
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if yaml.Unmarshal(data, &wf) != nil {
		return nil
	}
	var out []string
	jobs := make([]string, 0, len(wf.Jobs))
	for j := range wf.Jobs {
		jobs = append(jobs, j)
	}
	slices.Sort(jobs)
	for _, j := range jobs {
		for _, s := range wf.Jobs[j].Steps {
			for line := range strings.Lines(s.Run) {
				l := strings.TrimSpace(line)
				if checkLine(l) && !slices.Contains(out, l) {
					out = append(out, l)
				}
			}
		}
	}
	return out
}

// checkLine reports a CI line that builds, tests or lints: its program is
// a known build, test or lint tool (a package manager or task runner only
// with a build, test or lint verb), it names nothing that ships or signs
// in, and it holds no credential.
func checkLine(l string) bool {
	if l == "" || strings.HasPrefix(l, "#") || strings.Contains(l, "${{") || len(l) > 200 || strings.HasSuffix(l, "\\") ||
		strings.ContainsAny(l, "|;&<>`$") {
		return false
	}
	words := strings.Fields(l)
	lower := strings.ToLower(l)
	for _, w := range []string{"publish", "deploy", "release", "push", "login", "upload", "apply", "token", "password", "secret", "credential", "install"} {
		if strings.Contains(lower, w) {
			return false
		}
	}
	if len(redact.Credentials(l)) > 0 {
		return false
	}
	verb := func(i int, verbs ...string) bool { return len(words) > i && slices.Contains(verbs, words[i]) }
	checks := []string{"test", "build", "lint", "check", "vet", "fmt", "format", "typecheck", "clippy", "generate"}
	switch words[0] {
	case "go":
		return verb(1, "test", "build", "vet", "generate")
	case "cargo":
		return verb(1, "test", "build", "check", "clippy", "fmt")
	case "npm", "pnpm", "yarn", "bun":
		return verb(1, checks...) || verb(1, "run") && verb(2, checks...)
	case "uv", "poetry", "pipenv", "hatch", "pdm":
		return verb(1, "run") && len(words) > 2 && checkLine(strings.Join(words[2:], " "))
	case "python", "python3":
		return verb(1, "-m") && verb(2, "pytest", "unittest", "mypy", "ruff", "black", "flake8", "pylint")
	case "make", "just", "task":
		return len(words) == 2 && !strings.ContainsAny(words[1], "=/")
	case "npx", "pnpx", "bunx":
		return verb(1, "tsc", "eslint", "prettier", "vitest", "jest", "biome", "playwright")
	case "gofmt", "golangci-lint", "staticcheck", "govulncheck", "pytest", "ruff", "mypy", "black", "flake8", "pylint",
		"tox", "nox", "tsc", "eslint", "prettier", "vitest", "jest", "biome", "shellcheck", "hadolint", "rustfmt":
		return true
	}
	// A repository's own script named for what it does: scripts/test.sh.
	base := strings.ToLower(path.Base(words[0]))
	if strings.HasPrefix(words[0], "./") || strings.Contains(words[0], "/") {
		for _, c := range checks {
			if strings.HasPrefix(base, c) {
				return true
			}
		}
	}
	return false
}

// DetectAgents are the agents init gives profiles and files when none are
// chosen: claude and codex, and every other harness whose own instruction
// file (or its folder: .cursor/rules, .windsurf/rules, …) the project
// already has.
func DetectAgents(root string) []string {
	out := []string{"claude", "codex"}
	for _, name := range agents.Names() {
		a, _ := agents.Lookup(name)
		if a.Harness == nil || slices.Contains(out, name) {
			continue
		}
		in := a.Harness.Instructions
		if in == agents.AgentsMD || in == agents.ClaudeMD || in == "" {
			continue // shared: says nothing about which harness is used
		}
		for _, p := range []string{in, path.Dir(in)} {
			if p == "." || p == ".github" {
				continue
			}
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err == nil {
				out = append(out, name)
				break
			}
		}
	}
	return out
}

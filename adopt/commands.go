package adopt

import (
	"github.com/bridle-dev/bridle/internal/mdsafe"
	"slices"
	"strings"
	"unicode/utf8"
)

// spanCommands takes the commands among a paragraph's or an item's code
// spans (`go test ./...`). For an item it reports whether the item is only
// commands and a label ("Lint: `make lint`"), so nothing else need be made
// of it; an item that says more ("`make lint` — runs the linters and the
// license check", "Always run `make lint` before pushing") is a
// convention or a rule as well.
func (r *Result) spanCommands(at Pos, u unit, isRule bool) bool {
	if len(u.spans) == 0 {
		return false
	}
	if _, _, negative := normalise(u.text); negative {
		return false // "Do not run `git push --force`" names a command to avoid
	}
	found := 0
	var names []string
	rest := u.text
	for _, s := range u.spans {
		alone := u.kind == listItem && strings.Trim(u.text, "` ") == s && commandSection(u.section)
		if !isCommand(s, u.section) && !alone {
			continue
		}
		found++
		names = append(names, r.addCommand(at, s, u.text, u.section))
		rest = strings.Replace(rest, s, "", 1)
	}
	if found == 0 || u.kind != listItem {
		return false
	}
	if isRule {
		return false
	}
	// What is left besides the commands is a label ("Build:") or says
	// when and why to run them, which the command's entry cannot hold:
	// then the item is a convention too.
	n := 0
	for _, w := range contentWords(rest) {
		if !slices.Contains(names, w) {
			n++
		}
	}
	return n == 0
}

// codeBlock takes each line of a shell block as a command; prev is the
// text before the block, which often says what it is for.
func (r *Result) codeBlock(at Pos, u unit, prev string) {
	lines := strings.Split(strings.TrimRight(u.text, "\n"), "\n")
	var cmds []string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		l = strings.TrimPrefix(strings.TrimPrefix(l, "$ "), "> ")
		if l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "//") {
			continue
		}
		cmds = append(cmds, l)
	}
	// An unlabelled block is commands only when every line starts with a
	// program; otherwise it is an example or output, kept as prose.
	if u.lang == "" {
		for _, c := range cmds {
			if !isCommand(c, u.section) {
				r.overview = append(r.overview, item{text: fence(u.text, "") + "\n" + strings.TrimRight(u.text, "\n") + "\n" + fence(u.text, ""), at: []Pos{at}})
				return
			}
		}
	}
	for i, l := range lines {
		l = strings.TrimSpace(l)
		l = strings.TrimPrefix(strings.TrimPrefix(l, "$ "), "> ")
		if l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "//") {
			continue
		}
		ctx := prev
		if i > 0 {
			if c := strings.TrimSpace(lines[i-1]); strings.HasPrefix(c, "#") {
				ctx = c + " " + prev // a comment line names the command below it
			}
		}
		r.addCommand(Pos{at.File, at.Line + i}, l, ctx, u.section)
	}
}

func (r *Result) addCommand(at Pos, run, ctx string, section []string) string {
	if utf8.RuneCountInString(run) > 1000 || strings.ContainsAny(run, "\r\n") {
		r.lose(at, "command", "longer than a command's 1000 characters", run)
		return ""
	}
	if c, off := mdsafe.FirstBadChar(run, false); off >= 0 {
		// Bridle's rules hold no text a reader cannot see as it is.
		r.lose(at, "command", "holds "+mdsafe.CharName(c)+", which could disguise what it runs", run)
		return ""
	}
	name := commandName(run, ctx, section)
	r.commands = append(r.commands, &command{name: name, run: run, at: []Pos{at}})
	return name
}

// isCommand reports text that reads as a command line: a program the
// house knows, a script path, or (under a heading about commands) any
// text with a space.
func isCommand(s string, section []string) bool {
	f := strings.Fields(s)
	if len(f) == 0 || utf8.RuneCountInString(s) > 1000 {
		return false
	}
	p := f[0]
	if strings.Contains(p, "=") && len(f) > 1 { // FOO=1 go test
		p = f[1]
	}
	if strings.HasPrefix(p, "./") || strings.HasPrefix(p, "bin/") || strings.HasPrefix(p, "scripts/") {
		return true
	}
	if program(p) {
		return len(f) > 1 || p == "make" || p == "just" || p == "pytest" || p == "tox"
	}
	return len(f) > 1 && commandSection(section) && !strings.ContainsAny(s, "{}<>")
}

// program reports a command-line program that projects' agent files name
// in their commands.
func program(p string) bool {
	switch p {
	case "make", "go", "gofmt", "golangci-lint", "npm", "npx", "pnpm", "yarn", "bun", "bunx", "node", "deno", "tsc",
		"eslint", "prettier", "jest", "vitest", "playwright", "cargo", "rustc", "rustfmt", "python", "python3",
		"pip", "pip3", "uv", "uvx", "poetry", "pipenv", "pytest", "tox", "nox", "ruff", "mypy", "black", "isort",
		"flake8", "pylint", "just", "task", "mvn", "gradle", "./gradlew", "dotnet", "bundle", "rake", "rails",
		"rspec", "rubocop", "mix", "elixir", "docker", "docker-compose", "podman", "kubectl", "helm", "terraform",
		"bazel", "bazelisk", "cmake", "ctest", "ninja", "meson", "composer", "php", "phpunit", "swift", "xcodebuild",
		"flutter", "dart", "sbt", "lein", "clojure", "stack", "cabal", "ghc", "zig", "nix", "pre-commit", "git",
		"bash", "sh", "scripts", "turbo", "nx", "lerna", "hatch", "pdm", "conda", "R", "Rscript", "julia", "bridle":
		return true
	}
	return false
}

func commandSection(section []string) bool {
	for _, h := range section {
		for _, w := range strings.Fields(strings.ToLower(h)) {
			switch strings.Trim(w, ":,.()&") {
			case "command", "commands", "build", "building", "test", "testing", "tests", "lint", "linting",
				"scripts", "development", "setup", "running", "run", "workflow", "tooling", "ci":
				return true
			}
		}
	}
	return false
}

// commandName says what a command is for, from its own words first, then
// from the text around it, then from its section: build, test, lint,
// format, typecheck, run, setup, bench, generate, migrate, deploy, clean;
// else its program's name.
func commandName(run, ctx string, section []string) string {
	for i, text := range []string{run, ctx, strings.Join(section, " ")} {
		sawRun := false
		for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_')
		}) {
			switch n := purpose(w); n {
			case "":
			case "run":
				// The command's own word, when nothing else says more (npm
				// run lint is lint); around it, "run" is only the verb.
				sawRun = i == 0
			default:
				return n
			}
		}
		if sawRun {
			return "run"
		}
	}
	n := slug(strings.TrimPrefix(strings.Fields(run)[0], "./"), 40)
	if n == "" {
		n = "command"
	}
	return n
}

func purpose(w string) string {
	if strings.HasSuffix(w, "lint") { // golangci-lint, tflint, eslint
		return "lint"
	}
	switch w {
	case "test", "tests", "testing", "pytest", "jest", "vitest", "rspec", "phpunit", "ctest", "unit", "e2e":
		return "test"
	case "lint", "linter", "linters", "linting", "vet", "eslint", "ruff", "golangci-lint", "clippy", "rubocop", "pylint", "flake8", "credo":
		return "lint"
	case "build", "building", "compile", "bundle":
		return "build"
	case "fmt", "format", "formatting", "formatter", "prettier", "gofmt", "rustfmt", "black":
		return "format"
	case "typecheck", "type-check", "tsc", "mypy", "typing", "dialyzer", "pyright":
		return "typecheck"
	case "dev", "start", "serve", "server", "run", "watch":
		return "run"
	case "install", "setup", "bootstrap", "sync", "deps":
		return "setup"
	case "bench", "benchmark", "benchmarks":
		return "bench"
	case "generate", "gen", "codegen":
		return "generate"
	case "migrate", "migration", "migrations":
		return "migrate"
	case "deploy", "release", "publish":
		return "deploy"
	case "clean":
		return "clean"
	case "validate", "check", "verify":
		return "check"
	}
	return ""
}

package scaffold

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/google/go-cmp/cmp"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/schema"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func cmds(pairs ...string) []schema.Command {
	var out []schema.Command
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, schema.Command{Name: pairs[i], Run: pairs[i+1]})
	}
	return out
}

// TestDetect: the baseline comes from the project's own files, each kind
// of project its own stack and commands.
func TestDetect(t *testing.T) {
	tests := []struct {
		name     string
		files    map[string]string
		stack    []string
		commands []schema.Command
		goConv   bool
	}{
		{"nothing", map[string]string{"README.md": "hi"}, nil, nil, false},
		{"go", map[string]string{"go.mod": "module x\n"}, []string{"Go"},
			cmds("build", "go build ./...", "test", "go test ./...", "vet", "go vet ./..."), true},
		{"pnpm", map[string]string{"package.json": `{"scripts":{"build":"vite build","test":"vitest","lint":"eslint .","deploy":"x"},"devDependencies":{"typescript":"5"}}`, "pnpm-lock.yaml": ""},
			[]string{"TypeScript", "Node.js", "pnpm"}, cmds("build", "pnpm run build", "test", "pnpm run test", "lint", "pnpm run lint"), false},
		{"yarn", map[string]string{"package.json": `{"scripts":{"dev":"next dev","start":"next start"}}`, "yarn.lock": ""},
			[]string{"JavaScript", "Node.js", "yarn"}, cmds("dev", "yarn run dev", "start", "yarn run start"), false},
		{"bun", map[string]string{"package.json": `{"scripts":{"test":"bun test"}}`, "bun.lockb": ""},
			[]string{"JavaScript", "Node.js", "bun"}, cmds("test", "bun run test"), false},
		{"npm", map[string]string{"package.json": `{"scripts":{"test":"jest"}}`, "package-lock.json": "{}"},
			[]string{"JavaScript", "Node.js", "npm"}, cmds("test", "npm run test"), false},
		{"uv", map[string]string{"pyproject.toml": "[project]\nname='x'\n[dependency-groups]\ndev = ['pytest', 'ruff']\n", "uv.lock": ""},
			[]string{"Python", "uv"}, cmds("test", "uv run pytest", "lint", "uv run ruff check ."), false},
		{"poetry", map[string]string{"pyproject.toml": "[tool.poetry]\nname='x'\n[tool.pytest.ini_options]\n"},
			[]string{"Python", "Poetry"}, cmds("test", "poetry run pytest"), false},
		{"cargo", map[string]string{"Cargo.toml": "[package]\nname='x'\n"}, []string{"Rust"},
			cmds("build", "cargo build", "test", "cargo test", "lint", "cargo clippy"), false},
		{"makefile first", map[string]string{"Makefile": "VAR := 1\n.PHONY: test\ntest: build\n\tgo test ./...\nbuild:\n\tgo build\nrelease:\n", "go.mod": "module x\n"},
			[]string{"Go"}, cmds("build", "make build", "test", "make test", "vet", "go vet ./..."), true},
		{"ci", map[string]string{".github/workflows/ci.yml": "jobs:\n  t:\n    steps:\n      - uses: actions/checkout@v4\n      - run: |\n          pnpm install --frozen-lockfile\n          echo hi\n          pnpm run e2e -- --shard ${{ matrix.shard }}\n          ./scripts/check.sh\n",
			".gitea/workflows/bridle.yaml": "jobs:\n  c:\n    steps:\n      - run: bridle validate --rules .\n"},
			nil, cmds("ci", "./scripts/check.sh"), false},
		// What ships, signs in or holds a credential never becomes the
		// owner's baseline, rendered to every agent.
		{"ci ships nothing", map[string]string{".github/workflows/release.yml": "jobs:\n  r:\n    steps:\n      - run: |\n" +
			"          npm config set //registry.npmjs.org/:_authToken=npm_abcdef0123456789abcdef\n" +
			"          docker login -u bot -p hunter2secretpass registry.example.com\n" +
			"          npm publish\n          kubectl apply -f k8s/prod\n          make deploy\n" +
			"          curl -H 'Authorization: token ghp_Zx81Qw7Lm2Np4Rt6Vy9Bc3Df5Gh0Jk1Lm2Np4' https://api.github.com\n" +
			"          psql postgres://app:s3cretPw@db/app -c 'select 1'\n" +
			"          go test -race ./...\n          npm run lint\n          uv run pytest -q\n"},
			nil, cmds("ci", "go test -race ./...", "ci-2", "npm run lint", "ci-3", "uv run pytest -q"), false},
		{"hostile", map[string]string{"package.json": `{"scripts": 7`, "pyproject.toml": "\x00\x01", ".github/workflows/x.yaml": "{{{{"}, []string{"JavaScript", "Node.js", "npm", "Python"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, tt.files)
			b := Detect(root)
			if diff := cmp.Diff(tt.stack, b.Stack); diff != "" {
				t.Errorf("stack (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.commands, b.Commands); diff != "" {
				t.Errorf("commands (-want +got):\n%s", diff)
			}
			if b.Go != tt.goConv {
				t.Errorf("Go = %v", b.Go)
			}
			rules := Layout{ID: "x", Rules: ".", Baseline: b}.rulesFile()
			snap, diags := compiler.CompileBytes(compiler.Input{Name: "bridle.yaml", Data: rules}, "test")
			if snap == nil {
				t.Fatalf("the scaffold does not compile: %v\n%s", diags, rules)
			}
			placeholders := 0
			for _, d := range diags {
				if d.Level == schema.Warning && strings.Contains(d.Message, "placeholder") {
					placeholders++
				}
			}
			want := 1 // the overview
			if len(tt.stack) == 0 {
				want++
			}
			if len(tt.commands) == 0 {
				want++
			}
			if placeholders != want {
				t.Errorf("%d placeholder warnings, want %d: %v", placeholders, want, diags)
			}
			if strings.Contains(string(rules), "%w") != tt.goConv {
				t.Errorf("the Go convention %v in:\n%s", !tt.goConv, rules)
			}
		})
	}
}

// TestInitWritesOnlyTheChosenAgents: without --agents, init gives profiles
// and files to claude and codex and to the harnesses whose files the
// project already has — never to agents nobody uses.
func TestInitWritesOnlyTheChosenAgents(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"GEMINI.md": "# mine\n", ".cursor/rules/house.mdc": "x", "package.json": `{"scripts":{"test":"vitest"}}`})
	res, err := Init(root, Options{Version: "test", Author: &object.Signature{Name: "M", Email: "m@x", When: time.Now()}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"claude", "codex", "cursor", "gemini"}, slices.Sorted(slices.Values(res.Layout.Agents))); diff != "" {
		t.Errorf("agents (-want +got):\n%s", diff)
	}
	rules, _ := os.ReadFile(filepath.Join(root, "bridle.yaml"))
	for _, no := range []string{"  kimi:", "  deepseek:", "go test", "%w"} {
		if strings.Contains(string(rules), no) {
			t.Errorf("bridle.yaml of a JavaScript project names %q:\n%s", no, rules)
		}
	}
	if !strings.Contains(string(rules), "run: npm run test") {
		t.Errorf("bridle.yaml lacks the package's test script:\n%s", rules)
	}
	if _, err := os.Stat(filepath.Join(root, "rendered", "agents", "kimi")); err == nil {
		t.Error("init wrote Kimi's file")
	}
}

// FuzzCIRuns: a project's workflow files are anyone's text; reading their
// run: lines never panics, and every line it returns is one line.
func FuzzCIRuns(f *testing.F) {
	f.Add([]byte("jobs:\n  t:\n    steps:\n      - run: |\n          make test\n"))
	f.Add([]byte("jobs: [1, 2]"))
	f.Add([]byte("jobs:\n  t:\n    steps: {run: x}\n"))
	f.Add([]byte("a: &a [*a, *a]\njobs: *a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, l := range ciRuns(data) {
			if strings.ContainsAny(l, "\n\r") || l == "" {
				t.Fatalf("ciRuns returned %q", l)
			}
		}
	})
}

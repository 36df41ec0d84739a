package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// readmeFlow is the shell block the README marks as the first-hour flow.
func readmeFlow(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "<!-- readme-flow")
	if !ok {
		t.Fatal("README has no <!-- readme-flow --> block")
	}
	_, rest, _ = strings.Cut(rest, "```sh\n")
	block, _, ok := strings.Cut(rest, "```\n")
	if !ok || !strings.Contains(block, "bridle init") {
		t.Fatalf("README's flow block is not a sh block:\n%s", rest)
	}
	return block
}

// TestReadmeFlow runs the README's first-hour commands exactly as written,
// in a temporary HOME holding nothing but a git identity and a project (a
// git repository with a commit), then starts the sidecar the way Claude
// Code would from the .mcp.json the flow wrote — from the project and from
// a subdirectory of it — and asks it for the rules. It runs twice: in a
// project made with git init -b main, and in one made with a plain git init
// and no init.defaultBranch (git's master), as a new user's would be.
func TestReadmeFlow(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and installs bridle")
	}
	for _, tt := range []struct{ name, gitInit, branch string }{
		{"main", "git init -q -b main", "main"},
		{"master", "git config --global --unset-all init.defaultBranch || true\ngit init -q", "master"},
	} {
		t.Run(tt.name, func(t *testing.T) { readmeFlowIn(t, tt.gitInit, tt.branch) })
	}
}

// readmeFlowIn runs the flow in a project made by gitInit, whose branch is
// branch.
func readmeFlowIn(t *testing.T, gitInit, branch string) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	env := func(name string) string {
		out, _ := exec.Command(goBin, "env", name).Output()
		return strings.TrimSpace(string(out))
	}
	checkout, _ := filepath.Abs("../..")
	home := t.TempDir()
	project := filepath.Join(home, "code", "my-project")
	os.MkdirAll(filepath.Join(project, "sub"), 0o755)
	vars := []string{
		"HOME=" + home,
		"PATH=" + filepath.Join(home, "go", "bin") + ":" + filepath.Dir(goBin) + ":/usr/local/bin:/usr/bin:/bin",
		// The module and build caches are the machine's: the flow's go
		// install needs no network, and nothing else of the machine leaks.
		"GOMODCACHE=" + env("GOMODCACHE"), "GOCACHE=" + env("GOCACHE"), "GOTOOLCHAIN=local", "GOFLAGS=" + env("GOFLAGS"),
		"GOPROXY=off", "LANG=C.UTF-8", "GIT_CONFIG_NOSYSTEM=1",
	}
	sh := func(dir, script string) string {
		t.Helper()
		cmd := exec.Command("bash", "-c", "set -euo pipefail\n"+script)
		cmd.Dir, cmd.Env = dir, vars
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v running\n%s\noutput:\n%s", err, script, out)
		}
		return string(out)
	}
	sh(project, `git config --global user.name "Mira Rossi"
git config --global user.email mira@example.com
`+gitInit+`
echo "package main" > main.go
git add main.go
git commit -qm "the project"`)

	out := sh(checkout, readmeFlow(t))
	if got := strings.TrimSpace(sh(project, "git symbolic-ref --short HEAD")); got != branch {
		t.Fatalf("the project is on %s, want %s", got, branch)
	}
	for _, want := range []string{"committed", "on " + branch + " as", "added bridle (agent claude) to .mcp.json", "opened proposal #1",
		"approved proposal #1", "all 2 files current"} {
		if !strings.Contains(out, want) {
			t.Errorf("the flow's output lacks %q:\n%s", want, out)
		}
	}
	if st := sh(project, "git status --porcelain"); st != "?? .mcp.json\n" {
		t.Errorf("after the flow, git status says:\n%s(want only the new .mcp.json)", st)
	}

	var cfg struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	b, _ := os.ReadFile(filepath.Join(project, ".mcp.json"))
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	server := cfg.MCPServers["bridle"]
	if server.Command != "bridle" || strings.Contains(string(b), home) {
		t.Errorf(".mcp.json is not shareable (it names this machine's paths):\n%s", b)
	}
	for _, dir := range []string{project, filepath.Join(project, "sub")} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		path, err := exec.LookPath(filepath.Join(home, "go", "bin", server.Command))
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(path, server.Args...)
		cmd.Dir, cmd.Env = dir, vars
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "claude-code", Version: "2"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			cancel()
			t.Fatalf("from %s: %v", dir, err)
		}
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_rules"})
		if err != nil || res.IsError {
			t.Fatalf("get_rules from %s: %v %+v", dir, err, res)
		}
		text := res.Content[0].(*sdk.TextContent).Text
		if !strings.Contains(text, "Never force-push to shared branches.") || strings.Contains(text, "NOT APPROVED") || !strings.Contains(text, "approved by Mira Rossi") {
			t.Errorf("get_rules from %s:\n%s", dir, text)
		}
		cs.Close()
		cancel()
	}
}

// TestReadmeNamesTheTestPrerequisites: every tool scripts/test.sh checks for
// before it starts is named in the README's Tests section, so the README
// says what a fresh machine needs.
func TestReadmeNamesTheTestPrerequisites(t *testing.T) {
	script, err := os.ReadFile("../../scripts/test.sh")
	if err != nil {
		t.Fatal(err)
	}
	readme, _ := os.ReadFile("../../README.md")
	_, tests, _ := strings.Cut(string(readme), "\n## Tests\n")
	tests, _, _ = strings.Cut(tests, "\n## ")
	var needed []string
	for line := range strings.Lines(string(script)) {
		if rest, ok := strings.CutPrefix(line, "need "); ok {
			needed = append(needed, strings.Fields(rest)[0])
		}
	}
	if len(needed) < 5 {
		t.Fatalf("scripts/test.sh checks %v: the need lines moved?", needed)
	}
	for _, tool := range needed {
		name := map[string]string{"go": "Go 1.26", "node": "Node 20"}[tool]
		if name == "" {
			name = tool
		}
		if !strings.Contains(tests, name) {
			t.Errorf("scripts/test.sh needs %s, which the README's Tests section does not name (%q)", tool, name)
		}
	}
}

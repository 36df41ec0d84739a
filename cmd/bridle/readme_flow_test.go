package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// markedBlock is the sh block that follows marker (an HTML comment's
// opening, "<!-- readme-flow" or "<!-- runnable: NAME", at the start of a
// line) in the Markdown file, or "" when the file has no such marker.
func markedBlock(t *testing.T, file, marker string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n"+marker)
	if !ok {
		return ""
	}
	comment, rest, _ := strings.Cut(rest, "-->\n")
	if strings.Contains(comment, "\n") {
		t.Fatalf("%s: the comment %s… does not end on its line", file, marker)
	}
	block, ok := strings.CutPrefix(rest, "```sh\n")
	if !ok {
		t.Fatalf("%s: no sh block right after %s -->", file, marker)
	}
	block, _, ok = strings.Cut(block, "```\n")
	if !ok {
		t.Fatalf("%s: the sh block after %s does not end", file, marker)
	}
	return block
}

// readmeFlow is the shell block the README marks as the first-hour flow.
func readmeFlow(t *testing.T) string {
	t.Helper()
	block := markedBlock(t, "../../README.md", "<!-- readme-flow")
	if block == "" {
		t.Fatal("README has no <!-- readme-flow --> block")
	}
	if !strings.Contains(block, "bridle init") {
		t.Fatalf("README's flow block is not the first hour:\n%s", block)
	}
	return block
}

// flowEnv is a temporary HOME holding nothing but a git identity and a
// project (a git repository with a commit) at ~/code/my-project, and a
// shell in it. branch is the project's branch.
type flowEnv struct {
	home, project, checkout, branch string
	vars                            []string
}

// newFlowEnv makes the project with git init -b main.
func newFlowEnv(t *testing.T) *flowEnv { return newFlowEnvWith(t, "git init -q -b main", "main") }

// newFlowEnvWith makes the project with gitInit, which leaves it on branch.
func newFlowEnvWith(t *testing.T, gitInit, branch string) *flowEnv {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and installs bridle")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	env := func(name string) string {
		out, _ := exec.Command(goBin, "env", name).Output()
		return strings.TrimSpace(string(out))
	}
	e := &flowEnv{home: t.TempDir(), branch: branch}
	e.checkout, _ = filepath.Abs("../..")
	e.project = filepath.Join(e.home, "code", "my-project")
	os.MkdirAll(filepath.Join(e.project, "sub"), 0o755)
	e.vars = []string{
		"HOME=" + e.home,
		"PATH=" + filepath.Join(e.home, "go", "bin") + ":" + filepath.Dir(goBin) + ":/usr/local/bin:/usr/bin:/bin",
		// The module and build caches are the machine's: the flow's go
		// install needs no network, and nothing else of the machine leaks.
		"GOMODCACHE=" + env("GOMODCACHE"), "GOCACHE=" + env("GOCACHE"), "GOTOOLCHAIN=local", "GOFLAGS=" + env("GOFLAGS"),
		"GOPROXY=off", "LANG=C.UTF-8", "GIT_CONFIG_NOSYSTEM=1",
	}
	e.sh(t, e.project, `git config --global user.name "Mira Rossi"
git config --global user.email mira@example.com
`+gitInit+`
echo "package main" > main.go
git add main.go
git commit -qm "the project"`)
	return e
}

// sh runs script with bash in dir, failing the test when it fails or
// takes more than two minutes. A process the script leaves in the
// background (bridle serve &) is stopped when the test ends.
func (e *flowEnv) sh(t *testing.T, dir, script string) string {
	t.Helper()
	out, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command("bash", "-c", "set -euo pipefail\n"+script)
	cmd.Dir, cmd.Env = dir, e.vars
	// A file, not a pipe: a background child keeps a pipe open, and
	// waiting would wait for it.
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) })
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = fmt.Errorf("timed out: %w", <-done)
	}
	b, _ := os.ReadFile(out.Name())
	if err != nil {
		t.Fatalf("%v running\n%s\noutput:\n%s", err, script, b)
	}
	return string(b)
}

// checkFirstHour: the first-hour flow said what it did, left only the new
// .mcp.json in the project, and Claude Code's sidecar, started as the
// .mcp.json says — from the project and from a subdirectory of it —
// serves the approved rule.
func (e *flowEnv) checkFirstHour(t *testing.T, out string) {
	t.Helper()
	if got := strings.TrimSpace(e.sh(t, e.project, "git symbolic-ref --short HEAD")); got != e.branch {
		t.Fatalf("the project is on %s, want %s", got, e.branch)
	}
	for _, want := range []string{"committed", "on " + e.branch + " as", "added bridle (agent claude) to .mcp.json", "opened proposal #1",
		"approved proposal #1", "all 2 files current"} {
		if !strings.Contains(out, want) {
			t.Errorf("the flow's output lacks %q:\n%s", want, out)
		}
	}
	if st := e.sh(t, e.project, "git status --porcelain"); st != "?? .mcp.json\n" {
		t.Errorf("after the flow, git status says:\n%s(want only the new .mcp.json)", st)
	}

	var cfg struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	b, _ := os.ReadFile(filepath.Join(e.project, ".mcp.json"))
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	server := cfg.MCPServers["bridle"]
	if server.Command != "bridle" || strings.Contains(string(b), e.home) {
		t.Errorf(".mcp.json is not shareable (it names this machine's paths):\n%s", b)
	}
	for _, dir := range []string{e.project, filepath.Join(e.project, "sub")} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		path, err := exec.LookPath(filepath.Join(e.home, "go", "bin", server.Command))
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(path, server.Args...)
		cmd.Dir, cmd.Env = dir, e.vars
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "claude-code", Version: "2"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			cancel()
			t.Fatalf("from %s: %v", dir, err)
		}
		checkApprovedRule(ctx, t, cs, dir)
		cs.Close()
		cancel()
	}
}

// checkApprovedRule: get_rules serves the flow's guardrail, approved by
// the person who approved it.
func checkApprovedRule(ctx context.Context, t *testing.T, cs *sdk.ClientSession, from string) {
	t.Helper()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_rules"})
	if err != nil || res.IsError {
		t.Fatalf("get_rules from %s: %v %+v", from, err, res)
	}
	text := res.Content[0].(*sdk.TextContent).Text
	if !strings.Contains(text, "Never force-push to shared branches.") || strings.Contains(text, "NOT APPROVED") || !strings.Contains(text, "approved by Mira Rossi") {
		t.Errorf("get_rules from %s:\n%s", from, text)
	}
}

// TestReadmeFlow runs the README's first-hour commands exactly as written,
// in a temporary HOME holding nothing but a git identity and a project (a
// git repository with a commit), then starts the sidecar the way Claude
// Code would from the .mcp.json the flow wrote — from the project and from
// a subdirectory of it — and asks it for the rules. It runs twice: in a
// project made with git init -b main, and in one made with a plain git init
// and no init.defaultBranch (git's master), as a new user's would be.
func TestReadmeFlow(t *testing.T) {
	for _, tt := range []struct{ name, gitInit, branch string }{
		{"main", "git init -q -b main", "main"},
		{"master", "git config --global --unset-all init.defaultBranch || true\ngit init -q", "master"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newFlowEnvWith(t, tt.gitInit, tt.branch)
			e.checkFirstHour(t, e.sh(t, e.checkout, readmeFlow(t)))
		})
	}
}

// runnableFlows are the blocks docs/getting-started.md marks runnable, in
// the order TestDocFlows runs them; a block of the same name anywhere else
// in the docs must be the same.
var runnableFlows = []string{"first-hour", "gateway"}

// TestDocFlows runs getting-started's runnable blocks as written, one after
// the other in one temporary HOME: the first hour (checked as the README's
// is), then the gateway — bridle serve in the background, a token from
// bridle agents add, Claude Code's .mcp.json from bridle install --server —
// and an MCP client with that token and .mcp.json's URL gets the approved
// rule through the gateway. The gateway block's 7777 is moved to a free
// port, the one change made to what is written.
func TestDocFlows(t *testing.T) {
	blocks := map[string]string{}
	for _, name := range runnableFlows {
		blocks[name] = markedBlock(t, "../../docs/getting-started.md", "<!-- runnable: "+name)
		if blocks[name] == "" {
			t.Fatalf("docs/getting-started.md has no <!-- runnable: %s --> block", name)
		}
	}
	// Every block marked runnable anywhere is one of these, and the same.
	root, _ := filepath.Abs("../..")
	for _, file := range markdownFiles(t, root) {
		src, _ := os.ReadFile(filepath.Join(root, file))
		for _, part := range strings.Split(string(src), "\n<!-- runnable: ")[1:] {
			name := strings.FieldsFunc(part, func(r rune) bool { return r == ' ' || r == '\n' })[0]
			want, ok := blocks[name]
			if !ok {
				t.Errorf("%s marks a block runnable: %s, which TestDocFlows does not run (runnableFlows)", file, name)
				continue
			}
			if got := markedBlock(t, filepath.Join(root, file), "<!-- runnable: "+name); got != want {
				t.Errorf("%s's runnable: %s block differs from docs/getting-started.md's:\n%s", file, name, got)
			}
		}
	}
	if t.Failed() {
		return
	}

	e := newFlowEnv(t)
	e.checkFirstHour(t, e.sh(t, e.checkout, blocks["first-hour"]))

	_, port, _ := strings.Cut(freeAddr(t), ":")
	gateway := strings.ReplaceAll(blocks["gateway"], "7777", port)
	if gateway == blocks["gateway"] {
		t.Fatal("the gateway block names no port 7777 to move")
	}
	out := e.sh(t, e.checkout, gateway)
	tokenFile := filepath.Join(e.home, ".config", "bridle", "claude.token")
	st, err := os.Stat(tokenFile)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the token file: %v %v\n%s", st, err, out)
	}
	token, _ := os.ReadFile(tokenFile)
	if strings.Contains(out, strings.TrimSpace(string(token))) {
		t.Errorf("the flow printed the token:\n%s", out)
	}
	var cfg struct {
		MCPServers map[string]struct {
			Type    string            `json:"type"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	b, _ := os.ReadFile(filepath.Join(e.project, ".mcp.json"))
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	server := cfg.MCPServers["bridle"]
	if want := "http://127.0.0.1:" + port + "/p/my-project/mcp"; server.URL != want || !strings.Contains(server.Headers["Authorization"], "${BRIDLE_TOKEN_CLAUDE}") {
		t.Fatalf(".mcp.json after install --server (want %s and ${BRIDLE_TOKEN_CLAUDE}):\n%s", want, b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	header := strings.ReplaceAll(server.Headers["Authorization"], "${BRIDLE_TOKEN_CLAUDE}", strings.TrimSpace(string(token)))
	hc := &http.Client{Transport: headerRT{"Authorization", header}, Timeout: 30 * time.Second}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "claude-code", Version: "2"}, nil).Connect(ctx,
		&sdk.StreamableClientTransport{Endpoint: server.URL, HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connecting to the gateway as .mcp.json says: %v", err)
	}
	defer cs.Close()
	checkApprovedRule(ctx, t, cs, "the gateway")
	// The guardrail the block approved through the gateway — as the person
	// serving it, with no configuration — is served, approved.
	if !strings.Contains(out, "approved proposal #2") {
		t.Errorf("the gateway's approval said:\n%s", out)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_rules"})
	if err != nil || res.IsError {
		t.Fatalf("get_rules: %v %+v", err, res)
	}
	if text := res.Content[0].(*sdk.TextContent).Text; !strings.Contains(text, "Never write a secret into a log.") || strings.Contains(text, "NOT APPROVED") {
		t.Errorf("get_rules after the gateway's approval:\n%s", text)
	}
}

// headerRT sets one header on every request.
type headerRT struct{ name, value string }

func (h headerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return http.DefaultTransport.RoundTrip(r)
}

// TestDocTestsNameThePrerequisites: every tool scripts/test.sh checks for
// before it starts is named in docs/contributing/tests.md, so the page says
// what a fresh machine needs.
func TestDocTestsNameThePrerequisites(t *testing.T) {
	script, err := os.ReadFile("../../scripts/test.sh")
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile("../../docs/contributing/tests.md")
	if err != nil {
		t.Fatal(err)
	}
	tests := string(page)
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
			t.Errorf("scripts/test.sh needs %s, which docs/contributing/tests.md does not name (%q)", tool, name)
		}
	}
}

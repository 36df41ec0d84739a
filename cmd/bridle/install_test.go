package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/install"
)

// TestInstallHelpFromRegistry: install's usage names every installable
// agent and its files, as the agents registry has them.
func TestInstallHelpFromRegistry(t *testing.T) {
	code, out, _ := bridle(t, "install", "--help")
	if code != 0 || !strings.Contains(out, "install "+strings.Join(install.Clients(), "|")) {
		t.Fatalf("%d: the usage line:\n%s", code, out)
	}
	for _, name := range install.Clients() {
		a, _ := agents.Lookup(name)
		c := a.Harness.Config
		for _, f := range []string{c.Project, c.User} {
			if f != "" && !strings.Contains(out, f) {
				t.Errorf("install --help does not name %s's %s", name, f)
			}
		}
	}
}

// TestInstallSaysWhatNext: install prints the harness's trust step from the
// registry, and which other harnesses read the file it wrote (Copilot CLI
// and Qwen Code read Claude Code's .mcp.json); Copilot's entry goes into an
// existing .mcp.json under its own name.
func TestInstallSaysWhatNext(t *testing.T) {
	dir := t.TempDir()
	const srv = "https://bridle.example.com"
	code, _, stderr := bridle(t, "install", "claude", "--server", srv, "--project", "runic", "--dir", dir)
	a, _ := agents.Lookup("claude")
	for _, want := range []string{"next: " + a.Harness.Trust, "note: GitHub Copilot CLI also reads .mcp.json", "note: Qwen Code also reads .mcp.json",
		"set BRIDLE_TOKEN_CLAUDE only where Claude Code starts", "GitHub Copilot CLI reads .mcp.json, now that it is there, instead of its own .github/mcp.json"} {
		if code != 0 || !strings.Contains(stderr, want) {
			t.Errorf("install claude: exit %d, no %q:\n%s", code, want, stderr)
		}
	}
	code, _, stderr = bridle(t, "install", "copilot", "--server", srv, "--project", "runic", "--dir", dir)
	b, _ := os.ReadFile(filepath.Join(dir, ".mcp.json"))
	if code != 0 || !strings.Contains(string(b), `"bridle-copilot"`) || !strings.Contains(string(b), "${BRIDLE_TOKEN_CLAUDE}") || !strings.Contains(string(b), "${BRIDLE_TOKEN_COPILOT}") {
		t.Errorf("install copilot beside claude: exit %d %s\n%s", code, stderr, b)
	}
	if !strings.Contains(stderr, "note: Claude Code also reads .mcp.json and may start bridle-copilot, bound to agent copilot") {
		t.Errorf("install copilot does not say Claude Code reads its entry:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, ".github", "mcp.json")); err == nil {
		t.Error("install copilot wrote .github/mcp.json, which Copilot does not read beside .mcp.json")
	}
}

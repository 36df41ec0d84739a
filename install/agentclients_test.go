package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/internal/agentclients"
	"github.com/bridle-dev/bridle/internal/gatewaytest"
)

// The real-client tests run the agents' own CLIs, at the versions pinned in
// tests/agentclients, on the remote entries install --server writes, against
// an in-process stand-in gateway. They skip, saying how to install them,
// when the CLIs are missing (as enforce's do).

func installServer(t *testing.T, client, dir, server string) {
	t.Helper()
	if _, err := Install(Options{Client: client, ProjectDir: dir, Command: "bridle", Server: server, GatewayProject: gatewaytest.Project}); err != nil {
		t.Fatal(err)
	}
}

// Claude Code health-checks the written .mcp.json entry (initialize and a
// listing, with the header expanded from BRIDLE_TOKEN): Connected with the
// agent's token, Failed with HTTP 401 with another.
func TestInstallServerRealClaude(t *testing.T) {
	bin := agentclients.Bin(t, "BRIDLE_CLAUDE_BIN", "claude")
	g := gatewaytest.Start(t)
	home, proj := t.TempDir(), t.TempDir()
	installServer(t, "claude", proj, g.Server())
	// The person's decision, made here as Claude Code records it: the
	// project is trusted and its bridle server enabled.
	trust, _ := json.Marshal(map[string]any{"projects": map[string]any{proj: map[string]any{"hasTrustDialogAccepted": true, "enabledMcpjsonServers": []string{ServerName}}}})
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), trust, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ token, want string }{
		{gatewaytest.Token, "✔ Connected"},
		{"bridle_not-this-agents-token-at-all-xxxxxxxxxxxx", "HTTP 401"},
	} {
		out, errOut, err := agentclients.Run(t, proj, []string{"HOME=" + home, "BRIDLE_TOKEN_CLAUDE=" + tc.token}, "", bin, "mcp", "list")
		if err != nil || !strings.Contains(out, g.URL()+" (HTTP)") || !strings.Contains(out, tc.want) {
			t.Errorf("claude mcp list with token %.12s…: want %q: %v\n%s\n%s", tc.token, tc.want, err, out, errOut)
		}
	}
}

// Codex reads the written [mcp_servers.bridle] table (codex mcp list: the
// URL, Bearer token from BRIDLE_TOKEN) and connects with it: the server's
// tools are in the model's prompt (codex debug prompt-input) with the
// agent's token, and absent with another.
func TestInstallServerRealCodex(t *testing.T) {
	bin := agentclients.Bin(t, "BRIDLE_CODEX_BIN", "codex")
	g := gatewaytest.Start(t)
	root := t.TempDir()
	home, proj := filepath.Join(root, "codexhome"), filepath.Join(root, "proj")
	os.MkdirAll(proj, 0o755)
	if _, err := Install(Options{Client: "codex", ConfigPath: filepath.Join(home, "config.toml"), Command: "bridle", Server: g.Server(), GatewayProject: gatewaytest.Project}); err != nil {
		t.Fatal(err)
	}
	env := func(token string) []string {
		return []string{"CODEX_HOME=" + home, "RUST_BACKTRACE=0", "BRIDLE_TOKEN_CODEX=" + token}
	}
	out, errOut, err := agentclients.Run(t, proj, env(gatewaytest.Token), "", bin, "mcp", "list")
	if err != nil || !strings.Contains(out, g.URL()) || !strings.Contains(out, "BRIDLE_TOKEN_CODEX") || !strings.Contains(out, "Bearer token") {
		t.Errorf("codex mcp list: %v\n%s\n%s", err, out, errOut)
	}
	for _, tc := range []struct {
		token string
		want  bool
	}{{gatewaytest.Token, true}, {"bridle_not-this-agents-token-at-all-xxxxxxxxxxxx", false}} {
		out, errOut, err := agentclients.Run(t, proj, env(tc.token), "", bin, "debug", "prompt-input")
		if err != nil {
			t.Fatalf("codex debug prompt-input: %v\n%s", err, errOut)
		}
		if got := strings.Contains(out, "mcp__"+ServerName); got != tc.want {
			t.Errorf("token %.12s…: the bridle namespace in the prompt: %v, want %v", tc.token, got, tc.want)
		}
	}
}

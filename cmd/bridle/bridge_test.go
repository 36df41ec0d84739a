package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/internal/agentclients"
	"github.com/bridle-dev/bridle/internal/gatewaytest"
)

func tokenFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBridgeUsageErrors: bridle mcp --server says what is missing, names
// the token file it could not use, and never prints what the file holds.
func TestBridgeUsageErrors(t *testing.T) {
	t.Setenv("BRIDLE_TOKEN_FILE", "")
	t.Setenv("BRIDLE_TOKEN_FILE_KIMI", "")
	t.Setenv("BRIDLE_SERVER", "")
	good := tokenFile(t, gatewaytest.Token+"\n")
	two := tokenFile(t, "bridle_first-secret-token\nbridle_second-secret-token\n")
	empty := tokenFile(t, " \n")
	missing := filepath.Join(t.TempDir(), "nope")
	const srv = "http://127.0.0.1:1"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--server", srv}, "--server needs --project"},
		{[]string{"--project", "p"}, "--project needs --server"},
		{[]string{"--server", srv, "--project", "p"}, "--token-file FILE, --token-file-env VARIABLE or BRIDLE_TOKEN_FILE"},
		{[]string{"--server", srv, "--project", "p", "--token-file", missing}, "token file " + missing + " (--token-file): no such file"},
		{[]string{"--server", srv, "--project", "p", "--token-file", empty}, "token file " + empty + " (--token-file) is empty"},
		{[]string{"--server", srv, "--project", "p", "--token-file-env", "BRIDLE_TOKEN_FILE_KIMI"}, "BRIDLE_TOKEN_FILE_KIMI is not set"},
		{[]string{"--server", srv, "--project", "p", "--token-file-env", "NOT-A-NAME"}, `--token-file-env "NOT-A-NAME" is not`},
		{[]string{"--server", srv, "--project", "p", "--token-file", two}, "holds more than one token"},
		{[]string{"--server", srv, "--project", "p", "--token-file", good, "--rules", "."}, "--rules cannot go with --server"},
		{[]string{"--server", srv, "--project", "p", "--token-file", good, "--agent", "claude", "--worktree"}, "--worktree, --agent cannot go with --server"},
		{[]string{"--server", srv, "--project", "p", "--token-file", good, "--gitea", "http://g", "--snapshot", "s"}, "--snapshot, --gitea cannot go with --server"},
		{[]string{"--server", "bridle.example.com", "--project", "p", "--token-file", good}, "is not an http(s) URL"},
	} {
		code, _, stderr := bridle(t, append([]string{"mcp"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want usage error %q", tc.args, code, stderr, tc.want)
		}
		if strings.Contains(stderr, "secret-token") || strings.Contains(stderr, gatewaytest.Token) {
			t.Errorf("%v: stderr shows the token: %s", tc.args, stderr)
		}
	}
}

// TestBridgeTokenFileEnv: the bridge reads the token file the agent's own
// variable names (--token-file-env, as install writes it), and then never
// falls back to the shared BRIDLE_TOKEN_FILE: another agent's token file
// exported there does not make this agent that one.
func TestBridgeTokenFileEnv(t *testing.T) {
	g := gatewaytest.Start(t)
	t.Setenv("BRIDLE_SERVER", g.Server())
	t.Setenv("BRIDLE_TOKEN_FILE", tokenFile(t, gatewaytest.Token+"\n")) // some other agent's
	t.Setenv("BRIDLE_TOKEN_FILE_KIMI", "")
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"kimi","version":"1"}}}` + "\n"
	code, out, stderr := bridleStdin(t, in, "mcp", "--project", gatewaytest.Project, "--token-file-env", "BRIDLE_TOKEN_FILE_KIMI")
	if code != exitUsage || !strings.Contains(stderr, "BRIDLE_TOKEN_FILE_KIMI is not set") || strings.Contains(out, `"result"`) {
		t.Errorf("the bridle fell back to BRIDLE_TOKEN_FILE: exit %d\n%s\n%s", code, out, stderr)
	}
	t.Setenv("BRIDLE_TOKEN_FILE", "")
	t.Setenv("BRIDLE_TOKEN_FILE_KIMI", tokenFile(t, gatewaytest.Token+"\n"))
	code, out, stderr = bridleStdin(t, in, "mcp", "--project", gatewaytest.Project, "--token-file-env", "BRIDLE_TOKEN_FILE_KIMI")
	if code != 0 || !strings.Contains(out, `"id":1,"result"`) {
		t.Errorf("with the agent's own variable: exit %d\n%s\n%s", code, out, stderr)
	}
}

// TestBridgeCommand: bridle mcp --server (BRIDLE_SERVER, BRIDLE_TOKEN_FILE)
// answers an agent's session from the gateway, and ends with its input.
func TestBridgeCommand(t *testing.T) {
	g := gatewaytest.Start(t)
	t.Setenv("BRIDLE_SERVER", g.Server())
	t.Setenv("BRIDLE_TOKEN_FILE", tokenFile(t, gatewaytest.Token+"\n"))
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-code","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"through the bridge"}}}
`
	code, out, stderr := bridleStdin(t, in, "mcp", "--project", gatewaytest.Project)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{`"id":1,"result"`, `"name":"echo"`, "echo: through the bridge"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out+stderr, gatewaytest.Token) {
		t.Error("the token was printed")
	}
	if g.Deletes() != 1 {
		t.Errorf("the session was not closed (DELETE %d)", g.Deletes())
	}
}

func TestInstallServerCommand(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := bridle(t, "install", "claude", "--server", "https://bridle.example.com", "--project", "runic", "--dir", dir)
	if code != 0 || !strings.Contains(stderr, "set BRIDLE_TOKEN_CLAUDE to agent claude's token") || !strings.Contains(stderr, "bridle agents add --server https://bridle.example.com --project runic --agent claude") ||
		!strings.Contains(stderr, "next: Claude Code asks once to approve") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".mcp.json")); !strings.Contains(string(b), `"url": "https://bridle.example.com/p/runic/mcp"`) || !strings.Contains(string(b), "${BRIDLE_TOKEN_CLAUDE}") {
		t.Errorf(".mcp.json:\n%s", b)
	}
	// --agent with --server names the token's variable only.
	code, _, stderr = bridle(t, "install", "claude", "--server", "https://bridle.example.com", "--project", "runic", "--dir", dir, "--agent", "reviewer")
	if b, _ := os.ReadFile(filepath.Join(dir, ".mcp.json")); code != 0 || !strings.Contains(string(b), "${BRIDLE_TOKEN_REVIEWER}") || !strings.Contains(stderr, "--agent reviewer") {
		t.Errorf("--agent reviewer: exit %d: %s\n%s", code, stderr, b)
	}
	code, _, stderr = bridle(t, "install", "kimi", "--server", "https://bridle.example.com", "--project", "runic", "--dir", dir)
	if code != 0 || !strings.Contains(stderr, "set BRIDLE_TOKEN_KIMI to agent kimi's token") {
		t.Fatalf("kimi: exit %d: %s", code, stderr)
	}
	// A client that reads no project's file gets its user's.
	home := t.TempDir()
	t.Setenv("HOME", home)
	code, _, stderr = bridle(t, "install", "windsurf", "--server", "https://bridle.example.com", "--project", "runic")
	if b, _ := os.ReadFile(filepath.Join(home, ".codeium", "windsurf", "mcp_config.json")); code != 0 || !strings.Contains(string(b), "${env:BRIDLE_TOKEN_WINDSURF}") {
		t.Errorf("windsurf: exit %d: %s\n%s", code, stderr, b)
	}
	if code, _, stderr := bridle(t, "install", "windsurf", "--server", "https://bridle.example.com", "--project", "runic", "--dir", dir); code != exitUsage || !strings.Contains(stderr, "~/.codeium/windsurf/mcp_config.json") {
		t.Errorf("windsurf --dir: exit %d: %s", code, stderr)
	}
	if code, _, stderr := bridle(t, "install", "windsurf", "--project", dir); code != exitUsage || !strings.Contains(stderr, "only the user's ~/.codeium/windsurf/mcp_config.json") {
		t.Errorf("windsurf --project: exit %d: %s", code, stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--server", "https://b.example.com"}, "--server needs --project"},
		{[]string{"--server", "https://b.example.com", "--project", "p", "--rules", "."}, "--rules cannot go with --server"},
		{[]string{"--server", "b.example.com", "--project", "p", "--dir", dir}, "not an http(s) URL"},
		{[]string{"--project", dir, "--dir", dir}, "--dir goes with --server"},
	} {
		if code, _, stderr := bridle(t, append([]string{"install", "claude"}, tc.args...)...); code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want usage error %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestBridgeRealClaude: Claude Code health-checks bridle mcp --server as a
// stdio server (the bridge, as kimi's entry launches it): Connected through
// the bridge with the agent's token, Failed with another.
func TestBridgeRealClaude(t *testing.T) {
	claude := agentclients.Bin(t, "BRIDLE_CLAUDE_BIN", "claude")
	bin := builtBinary(t)
	g := gatewaytest.Start(t)
	home := t.TempDir()
	for _, tc := range []struct{ token, want string }{
		{gatewaytest.Token, "✔ Connected"},
		{"bridle_not-this-agents-token-at-all-xxxxxxxxxxxx", "Failed"},
	} {
		proj := t.TempDir()
		entry := map[string]any{"type": "stdio", "command": bin, "args": []string{"mcp", "--server", g.Server(), "--project", gatewaytest.Project},
			"env": map[string]string{"BRIDLE_TOKEN_FILE": tokenFile(t, tc.token)}}
		cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"bridle": entry}})
		trust, _ := json.Marshal(map[string]any{"projects": map[string]any{proj: map[string]any{"hasTrustDialogAccepted": true, "enabledMcpjsonServers": []string{"bridle"}}}})
		os.WriteFile(filepath.Join(proj, ".mcp.json"), cfg, 0o644)
		os.WriteFile(filepath.Join(home, ".claude.json"), trust, 0o600)
		out, errOut, err := agentclients.Run(t, proj, []string{"HOME=" + home}, "", claude, "mcp", "list")
		if err != nil || !strings.Contains(out, tc.want) {
			t.Errorf("claude mcp list: want %q: %v\n%s\n%s", tc.want, err, out, errOut)
		}
	}
}

// BenchmarkBridgeColdStart: an agent launches bridle mcp --server (a new
// process) and has initialize and tools/list answered through it, the
// gateway already running:
//
//	go test ./cmd/bridle -run '^$' -bench BridgeColdStart -benchtime 50x
func BenchmarkBridgeColdStart(b *testing.B) {
	bin := builtBinary(b)
	g := gatewaytest.Start(b)
	file := filepath.Join(b.TempDir(), "token")
	os.WriteFile(file, []byte(gatewaytest.Token), 0o600)
	for b.Loop() {
		cmd := exec.Command(bin, "mcp", "--server", g.Server(), "--project", gatewaytest.Project)
		cmd.Env = append(os.Environ(), "BRIDLE_TOKEN_FILE="+file)
		in, _ := cmd.StdinPipe()
		outPipe, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		out := bufio.NewReader(outPipe)
		wait := func(id string) {
			for {
				line, err := out.ReadString('\n')
				if err != nil {
					b.Fatalf("waiting for %s: %v", id, err)
				}
				if strings.Contains(line, `"id":`+id+`,"result"`) {
					return
				}
				if strings.Contains(line, `"id":`+id) {
					b.Fatalf("answer %s: %s", id, line)
				}
			}
		}
		io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-code","version":"1"}}}`+"\n")
		wait("1")
		io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n")
		wait("2")
		b.StopTimer()
		in.Close()
		cmd.Wait()
		b.StartTimer()
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		{[]string{"--server", srv, "--project", "p"}, "--token-file FILE or BRIDLE_TOKEN_FILE"},
		{[]string{"--server", srv, "--project", "p", "--token-file", missing}, "token file " + missing + ": no such file"},
		{[]string{"--server", srv, "--project", "p", "--token-file", empty}, "token file " + empty + " is empty"},
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

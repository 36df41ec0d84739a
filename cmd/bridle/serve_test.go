package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/gateway"
)

// testGateway serves dir as project id in-process and returns its URL and
// the admin credential's file.
func testGateway(t *testing.T, id, dir string) (url, adminFile string) {
	t.Helper()
	return testGatewayWith(t, id, dir, gateway.Options{Version: "test", Getenv: os.Getenv}) // the helper and age key as the test sets them
}

// testGatewayWith is testGateway with the gateway's options.
func testGatewayWith(t *testing.T, id, dir string, opts gateway.Options) (url, adminFile string) {
	t.Helper()
	adminFile = filepath.Join(t.TempDir(), "admin-token")
	if err := os.WriteFile(adminFile, []byte("admin-credential-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := gateway.Config{StateDir: t.TempDir(), Admin: gateway.AdminConfig{TokenFile: adminFile, Name: "Mira Okafor"},
		Projects: map[string]gateway.ProjectConfig{id: {Rules: dir}}}.Defaults(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	srv, err := gateway.New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + ln.Addr().String(), adminFile
}

// The agents verbs: a token printed once on stdout and nowhere else, list
// shows no token, rotate and revoke; clear errors for what is missing.
func TestAgentsThroughTheGateway(t *testing.T) {
	isolated(t)
	dir := rulesInit(t)
	url, admin := testGateway(t, "proj", dir)
	t.Setenv("BRIDLE_SERVER", url)
	t.Setenv("BRIDLE_ADMIN_TOKEN_FILE", admin)
	code, out, stderr := bridle(t, "agents", "add", "--project", "proj", "--agent", "claude")
	tok := strings.TrimSpace(out)
	if code != 0 || !strings.HasPrefix(tok, gateway.TokenPrefix) || strings.Contains(stderr, tok) {
		t.Fatalf("add: %d %q %q", code, out, stderr)
	}
	if !strings.Contains(stderr, url+"/p/proj/mcp") {
		t.Errorf("add does not say where the agent connects: %s", stderr)
	}
	code, out, _ = bridle(t, "agents", "list", "--project", "proj")
	if code != 0 || !strings.Contains(out, "claude") || strings.Contains(out, tok) {
		t.Errorf("list: %d %s", code, out)
	}
	code, out, _ = bridle(t, "agents", "rotate", "--project", "proj", "--agent", "claude")
	if code != 0 || strings.TrimSpace(out) == tok || !strings.HasPrefix(out, gateway.TokenPrefix) {
		t.Errorf("rotate: %d %q", code, out)
	}
	if code, _, stderr = bridle(t, "agents", "revoke", "--project", "proj", "--agent", "claude"); code != 0 {
		t.Errorf("revoke: %d %s", code, stderr)
	}
	for _, tc := range []struct {
		args []string
		env  map[string]string
		code int
		want string
	}{
		{[]string{"agents", "revoke", "--project", "proj", "--agent", "claude"}, nil, exitFailure, "not found"},
		{[]string{"agents", "add", "--agent", "claude"}, nil, exitUsage, "--project is required"},
		{[]string{"agents", "add", "--project", "proj"}, nil, exitUsage, "--agent is required"},
		{[]string{"agents", "list", "--project", "proj"}, map[string]string{"BRIDLE_SERVER": ""}, exitUsage, "--server URL is required"},
		{[]string{"agents", "list", "--project", "proj"}, map[string]string{"BRIDLE_ADMIN_TOKEN_FILE": ""}, exitUsage, "BRIDLE_ADMIN_TOKEN_FILE"},
		{[]string{"agents", "list", "--project", "proj"}, map[string]string{"BRIDLE_ADMIN_TOKEN_FILE": writeFile(t, "wrong-credential-xxxxxxxx")}, exitFailure, "refused the admin credential"},
		{[]string{"agents", "list", "--project", "nope"}, nil, exitFailure, `no project "nope"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			code, _, stderr := bridle(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, want %d; stderr %q, want %q", code, tc.code, stderr, tc.want)
			}
		})
	}
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// bridle serve refuses a configuration it cannot serve, at FILE:LINE:COL.
func TestServeRefusesABadConfiguration(t *testing.T) {
	isolated(t)
	cfg := writeFile(t, "listen: 127.0.0.1:0\nprojects:\n  a:\n    rulez: /tmp\n")
	code, _, stderr := bridle(t, "serve", "--config", cfg)
	if code != exitUsage || !strings.Contains(stderr, cfg+":4:5") || !strings.Contains(stderr, `did you mean "rules"?`) {
		t.Errorf("exit %d: %s", code, stderr)
	}
	code, _, stderr = bridle(t, "serve")
	if code != exitUsage || !strings.Contains(stderr, "--rules DIR") {
		t.Errorf("serve with no project: exit %d: %s", code, stderr)
	}
}

// The proposals verbs through the gateway: list, approve (as the gateway's
// admin), reject; the local flags are refused with --server.
func TestProposalsThroughTheGatewayCLI(t *testing.T) {
	isolated(t)
	dir := rulesInit(t)
	for _, id := range []string{"one", "two"} {
		if code, _, stderr := proposeGuardrail(t, dir, id, "--as", "jonas"); code != 0 {
			t.Fatalf("propose: %s", stderr)
		}
	}
	url, admin := testGateway(t, "proj", dir)
	t.Setenv("BRIDLE_ADMIN_TOKEN_FILE", admin)
	code, out, stderr := bridle(t, "proposals", "list", "--server", url, "--project", "proj")
	if code != 0 || !strings.Contains(out, "#1") || !strings.Contains(out, "#2") {
		t.Fatalf("list: %d %s %s", code, out, stderr)
	}
	t.Setenv("BRIDLE_SERVER", url) // --project is then enough
	code, out, stderr = bridle(t, "approve", "1", "--project", "proj", "--json")
	if code != 0 || !strings.Contains(strings.Join(strings.Fields(out), ""), `"merged_by":"MiraOkafor"`) {
		t.Fatalf("approve: %d %s %s", code, out, stderr)
	}
	if code, _, stderr = bridle(t, "reject", "2", "--project", "proj", "--reason", "Not now."); code != 0 {
		t.Fatalf("reject: %d %s", code, stderr)
	}
	code, out, _ = bridle(t, "proposals", "list", "--project", "proj", "--state", "all", "--json")
	flat := strings.Join(strings.Fields(out), "")
	if code != 0 || !strings.Contains(flat, `"state":"merged"`) || !strings.Contains(flat, `"state":"closed"`) {
		t.Errorf("list all: %d %s", code, out)
	}
	for _, args := range [][]string{
		{"approve", "1", "--project", "proj", "--rules", dir},
		{"approve", "1", "--project", "proj", "--as", "someone"},
		{"reject", "x", "--project", "proj"},
	} {
		if code, _, stderr := bridle(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want usage: %s", args, code, stderr)
		}
	}
	t.Setenv("BRIDLE_SERVER", "")
	if code, _, stderr := bridle(t, "approve", "1", "--project", "proj"); code != exitUsage || !strings.Contains(stderr, "--server") {
		t.Errorf("--project without a server: %d %s", code, stderr)
	}
}

// TestAgentsAddTokenFile: agents add --token-file writes the token to a
// file readable by its owner only (an existing file becomes 0600 too),
// prints it nowhere, and says which variables are that agent's own.
func TestAgentsAddTokenFile(t *testing.T) {
	isolated(t)
	url, admin := testGateway(t, "proj", rulesInit(t))
	t.Setenv("BRIDLE_SERVER", url)
	t.Setenv("BRIDLE_ADMIN_TOKEN_FILE", admin)
	file := filepath.Join(t.TempDir(), "tokens", "gemini.token")
	code, out, stderr := bridle(t, "agents", "add", "--project", "proj", "--agent", "gemini", "--token-file", file)
	b, err := os.ReadFile(file)
	tok := strings.TrimSpace(string(b))
	if code != 0 || err != nil || !strings.HasPrefix(tok, gateway.TokenPrefix) {
		t.Fatalf("add --token-file: %d %v %q %q", code, err, out, stderr)
	}
	if st, _ := os.Stat(file); st.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", st.Mode().Perm())
	}
	if strings.Contains(out+stderr, tok) || out != "" {
		t.Errorf("the token was printed: %q %q", out, stderr)
	}
	if !strings.Contains(stderr, "set BRIDLE_TOKEN_GEMINI to the token") || !strings.Contains(stderr, "BRIDLE_TOKEN_FILE_GEMINI to a file") {
		t.Errorf("add does not name the agent's own variables: %s", stderr)
	}
	os.Chmod(file, 0o644)
	if code, _, stderr := bridle(t, "agents", "rotate", "--project", "proj", "--agent", "gemini", "--token-file", file); code != 0 {
		t.Fatalf("rotate --token-file: %d %s", code, stderr)
	}
	if st, _ := os.Stat(file); st.Mode().Perm() != 0o600 {
		t.Errorf("rotated token file mode %v, want 0600", st.Mode().Perm())
	}
	if b2, _ := os.ReadFile(file); strings.TrimSpace(string(b2)) == tok {
		t.Error("rotate did not replace the token in the file")
	}
	if code, _, stderr := bridle(t, "agents", "add", "--project", "proj", "--agent", "x", "--token-file", file, "--json"); code != exitUsage {
		t.Errorf("--token-file with --json: %d %s", code, stderr)
	}
}

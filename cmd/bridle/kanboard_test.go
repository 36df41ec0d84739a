package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/internal/kanboardtest"
	"github.com/bridle-dev/bridle/internal/upstreamtest"
)

// TestKanboardSidecar: bridle mcp with KANBOARD_URL lists the kanboard
// tools to an agent with kanboard.read and serves them from that Kanboard,
// restricted to KANBOARD_PROJECTS; without KANBOARD_URL it lists none.
func TestKanboardSidecar(t *testing.T) {
	fake := kanboardtest.New(t, "sidecar-app-token-4411")
	project := fake.AddProject("Runic")
	other := fake.AddProject("Other")
	fake.AddTask(kanboardtest.Task{ProjectID: project, Title: "Ship it"})
	tokenFile := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tokenFile, []byte("sidecar-app-token-4411\n"), 0o600)

	session := func(t *testing.T, env ...string) *sdk.ClientSession {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		t.Cleanup(cancel)
		cmd := mcpCmd(t, "--agent", "kimi")
		cmd.Env = append(cmd.Env, append([]string{"KANBOARD_URL=", "KANBOARD_TOKEN=", "KANBOARD_TOKEN_FILE=", "KANBOARD_PROJECTS=", "KANBOARD_USER="}, env...)...)
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "kimi-cli", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	listed := func(t *testing.T, cs *sdk.ClientSession) []string {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			if strings.HasPrefix(tool.Name, "kanboard_") {
				names = append(names, tool.Name)
			}
		}
		return names
	}
	call := func(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (string, bool) {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return res.Content[0].(*sdk.TextContent).Text, res.IsError
	}

	t.Run("configured", func(t *testing.T) {
		cs := session(t, "KANBOARD_URL="+fake.URL, "KANBOARD_TOKEN_FILE="+tokenFile, "KANBOARD_PROJECTS="+strconv.Itoa(project))
		// kimi may read the board, not write it.
		if got := listed(t, cs); !slices.Contains(got, "kanboard_list_tasks") || slices.Contains(got, "kanboard_create_task") {
			t.Errorf("kimi lists %v", got)
		}
		if got, isErr := call(t, cs, "kanboard_list_tasks", map[string]any{"project_id": project}); isErr || !strings.Contains(got, "Ship it") {
			t.Errorf("list: %s", got)
		}
		if got, isErr := call(t, cs, "kanboard_board", map[string]any{"project_id": other}); !isErr || !strings.Contains(got, "not found") {
			t.Errorf("a project outside KANBOARD_PROJECTS: %s", got)
		}
	})
	t.Run("no token", func(t *testing.T) {
		cs := session(t, "KANBOARD_URL="+fake.URL)
		if got, isErr := call(t, cs, "kanboard_board", map[string]any{"project_id": project}); !isErr || !strings.Contains(got, "KANBOARD_TOKEN") {
			t.Errorf("without a token: %s", got)
		}
	})
	t.Run("not configured", func(t *testing.T) {
		if got := listed(t, session(t)); len(got) != 0 {
			t.Errorf("without KANBOARD_URL: %v", got)
		}
	})
}

// bridle mcp --config FILE: an upstream MCP server (a fake, as a stdio
// child) served through the sidecar, its tools behind Bridle's permissions;
// a file Bridle cannot use is a usage error at FILE:LINE:COL.
func TestSidecarUpstreams(t *testing.T) {
	argv, env := upstreamtest.Command(t)
	var b strings.Builder
	b.WriteString("upstreams:\n  gitea:\n    command: [")
	for i, a := range argv {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(a))
	}
	b.WriteString("]\n    secrets: {UP_TOKEN: secret:up-token}\n    env:\n")
	for k, v := range env {
		b.WriteString("      " + k + ": " + strconv.Quote(v) + "\n")
	}
	file := filepath.Join(t.TempDir(), "mcp.yaml")
	os.WriteFile(file, []byte(b.String()), 0o600)
	// The sidecar reads secret:NAME from Docker secrets (and the
	// environment), never from a SOPS file.
	const canary = "sidecar-docker-canary-42"
	docker := t.TempDir()
	os.WriteFile(filepath.Join(docker, "up-token"), []byte(canary+"\n"), 0o600)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := mcpCmd(t, "--agent", "claude", "--config", file)
	cmd.Env = append(cmd.Env, "BRIDLE_DOCKER_SECRETS="+docker)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "claude-code", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	deadline := time.Now().Add(15 * time.Second)
	for {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(res.Tools, func(tl *sdk.Tool) bool { return tl.Name == "gitea_echo" }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the upstream's tools never arrived")
		}
		time.Sleep(100 * time.Millisecond)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "gitea_echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "echo: hi") {
		t.Errorf("gitea_echo: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "gitea_env"})
	if err != nil || res.IsError {
		t.Fatalf("gitea_env: %v %+v", err, res)
	}
	if text := res.Content[0].(*sdk.TextContent).Text; !strings.Contains(text, "UP_TOKEN=[REDACTED]") || strings.Contains(text, canary) {
		t.Errorf("the upstream's environment, as the agent sees it:\n%s", text)
	}

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("upstreams:\n  gitea:\n    comand: [x]\n"), 0o600)
	code, _, stderr := bridle(t, "mcp", "--rules", exampleRepo(t), "--config", bad)
	if code != exitUsage || !strings.Contains(stderr, bad+":3:5") || !strings.Contains(stderr, `did you mean "command"?`) {
		t.Errorf("a bad --config: exit %d: %s", code, stderr)
	}
}

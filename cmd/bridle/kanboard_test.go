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

package gateway

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/internal/kanboardtest"
	"github.com/bridle-dev/bridle/internal/upstreamtest"
)

func secretFile(t *testing.T, v string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(p, []byte(v+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A project's Kanboard (a fake of the real API) and an upstream MCP server
// (a fake, as a stdio child) through the gateway: the agent with its own
// Kanboard user is the author Kanboard records, one without acts as the
// application identity, only the project's Kanboard projects are reachable,
// the upstream's tools are served behind Bridle's permissions, /readyz says
// both are up, and no credential reaches the agent or the log.
func TestKanboardAndUpstreamThroughTheGateway(t *testing.T) {
	const appToken, claudeToken = "kanboard-app-token-0123456789", "claude-personal-token-9876543210"
	kb := kanboardtest.New(t, appToken)
	bot := kb.AddUser("claude-bot", claudeToken, "")
	mine := kb.AddProject("runic", bot)
	other := kb.AddProject("payroll", bot)
	secretTask := kb.SeedTasks(other, 1)[0]
	argv, env := upstreamtest.Command(t)
	g := start(t, nil, func(c *Config, o *Options) {
		c.Projects = map[string]ProjectConfig{"alpha": {
			Rules: upstreamtest.Rules(t),
			Kanboard: &KanboardConfig{URL: kb.Endpoint(), User: "jsonrpc", TokenFile: secretFile(t, appToken), Projects: []int{mine},
				Agents: map[string]KanboardUser{"claude": {User: "claude-bot", TokenFile: secretFile(t, claudeToken)}}},
			Upstreams: map[string]UpstreamConfig{"gitea": {Command: argv, Env: env}},
		}}
	})
	claude := g.mustConnect(t, "alpha", g.mint(t, "alpha", "claude"), "claude-code")
	codex := g.mustConnect(t, "alpha", g.mint(t, "alpha", "codex"), "codex-mcp-client")

	if text, isErr := callText(t, claude, "kanboard_create_task", map[string]any{"project_id": mine, "title": "Fix the ledger"}); isErr {
		t.Fatalf("create a task as claude: %s", text)
	}
	changes := kb.Changes()
	if len(changes) == 0 || changes[len(changes)-1].User != "claude-bot" {
		t.Errorf("Kanboard's record of the change: %+v, want claude-bot (the agent's own user)", changes)
	}
	if text, isErr := callText(t, codex, "kanboard_list_tasks", map[string]any{"project_id": mine}); isErr || !strings.Contains(text, "Fix the ledger") {
		t.Errorf("list as codex (the application identity): %v %.300s", isErr, text)
	}
	if text, isErr := callText(t, codex, "kanboard_create_task", map[string]any{"project_id": mine, "title": "x"}); !isErr || !strings.Contains(text, "kanboard.write") {
		t.Errorf("codex (kanboard.read only) created a task: %v %s", isErr, text)
	}
	for _, call := range []struct {
		tool string
		args map[string]any
	}{{"kanboard_list_tasks", map[string]any{"project_id": other}}, {"kanboard_get_task", map[string]any{"task_id": secretTask}}} {
		if text, isErr := callText(t, claude, call.tool, call.args); !isErr || strings.Contains(text, "payroll") {
			t.Errorf("%s outside the project's Kanboard projects: %v %.300s", call.tool, isErr, text)
		}
	}

	// The upstream connects in the background; its tools arrive with
	// tools/list_changed.
	deadline := time.Now().Add(15 * time.Second)
	for !slices.Contains(toolNames(t, claude), "gitea_echo") {
		if time.Now().After(deadline) {
			t.Fatalf("the upstream's tools never arrived: %v", toolNames(t, claude))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if text, isErr := callText(t, claude, "gitea_echo", map[string]any{"text": "hello"}); isErr || !strings.Contains(text, "echo: hello") {
		t.Errorf("gitea_echo through the gateway: %v %s", isErr, text)
	}
	var rd Ready
	if code := g.api(t, adminToken, "GET", "/readyz", nil, &rd); code != http.StatusOK {
		t.Errorf("readyz: %d %+v", code, rd)
	}
	for _, name := range []string{"kanboard", "upstream:gitea"} {
		if i := slices.IndexFunc(rd.Backends, func(b BackendStatus) bool { return b.Name == name && b.Project == "alpha" }); i < 0 || !rd.Backends[i].Up {
			t.Errorf("readyz does not show %s up: %+v", name, rd.Backends)
		}
	}
	// Restarting an upstream (after rotating its secret) through the admin API.
	raw := g.rawPost(t, "/api/v1/projects/alpha/upstreams/gitea/restart")
	conforms(t, "POST", "/api/v1/projects/{project}/upstreams/{name}/restart", []byte(raw))
	if !strings.Contains(raw, `"state": "up"`) {
		t.Errorf("restart: %s", raw)
	}
	var e APIError
	if code := g.api(t, adminToken, "POST", "/api/v1/projects/alpha/upstreams/nope/restart", nil, &e); code != http.StatusNotFound {
		t.Errorf("restarting an unknown upstream: %d", code)
	}
	for _, secret := range []string{appToken, claudeToken} {
		if strings.Contains(g.logs.String(), secret) {
			t.Error("a Kanboard token is in the gateway's log")
		}
	}
	g.stop() // the upstream's child stops with the server
	if st := g.srv.projects["alpha"].upstreams[0].Status(); st.State != "closed" {
		t.Errorf("after shutdown the upstream is %s", st.State)
	}
}

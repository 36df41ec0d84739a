package mcp

import (
	"context"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/actor"
	"github.com/bridle-dev/bridle/schema"
)

// TestHandlersReadTheAgentActor: a tool's handler (and whatever it calls)
// reads who acts with actor.From, as the admin API's do for people: the
// agent the session identified, of the project, in that session — never
// anything the call carries.
func TestHandlersReadTheAgentActor(t *testing.T) {
	f := newFixture(t, Options{})
	tool, err := NewRawTool(Tool{Name: "whoami_probe", Toolset: "probe", Permission: schema.PermGiteaRead, ReadOnly: true},
		json.RawMessage(`{"type":"object"}`), func(ctx context.Context, _ *sdk.CallToolRequest, _ json.RawMessage) (*sdk.CallToolResult, error) {
			a, ok := actor.From(ctx)
			if !ok {
				return text("no actor"), nil
			}
			b, _ := json.Marshal(a)
			return text(string(b)), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.srv.AddToolset(Toolset{ID: "probe", Tools: []Tool{tool}}); err != nil {
		t.Fatal(err)
	}
	cs := f.connect(t, "codex-mcp-client", "", nil)
	msg, isErr := callText(t, cs, "whoami_probe", map[string]any{"agent": "claude", "kind": "human"})
	var a actor.Actor
	if isErr || json.Unmarshal([]byte(msg), &a) != nil {
		t.Fatalf("the probe: %v %s", isErr, msg)
	}
	if a.Kind != actor.Agent || a.Agent != "codex" || a.Project != "runic-gateway" || a.Session == "" {
		t.Errorf("the handler's actor: %+v", a)
	}
}

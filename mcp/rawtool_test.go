package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/redact"
	"github.com/bridle-dev/bridle/schema"
)

const taskSchema = `{"type":"object","properties":{"title":{"type":"string","maxLength":40}},"required":["title"],"additionalProperties":false}`

// connectWatching connects client and counts the tools/list_changed
// notifications it receives.
func (f *fixture) connectWatching(t *testing.T, client, protocol string) (*sdk.ClientSession, chan struct{}) {
	changed := make(chan struct{}, 10)
	cs := f.connect(t, client, protocol, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
	})
	return cs, changed
}

// untilListening returns once every session hears list changes. On the
// 2026-07-28 protocol a client hears them only once its
// subscriptions/listen stream is up, which it opens after connecting: a
// change made before that is not announced to it (it lists the tools
// anew anyway). A throw-away toolset is added and removed until each
// session has heard it; those notifications are drained.
func (f *fixture) untilListening(t *testing.T, chans ...chan struct{}) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; ; i++ {
		name := fmt.Sprintf("warmup_%d", i)
		tool, err := NewRawTool(Tool{Name: name, Toolset: "warmup", Permission: schema.PermMemoryRead, ReadOnly: true},
			json.RawMessage(`{"type":"object"}`), func(context.Context, *sdk.CallToolRequest, json.RawMessage) (*sdk.CallToolResult, error) {
				return nil, nil
			})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.srv.AddToolset(Toolset{ID: ToolsetID(name), Tools: []Tool{tool}}); err != nil {
			t.Fatal(err)
		}
		heard := 0
		for _, c := range chans {
			select {
			case <-c:
				heard++
			case <-time.After(300 * time.Millisecond):
			}
		}
		f.srv.RemoveTools(name)
		time.Sleep(100 * time.Millisecond) // the removal's notification, debounced by 10 ms
		for _, c := range chans {
			for len(c) > 0 {
				<-c
			}
		}
		if heard == len(chans) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the sessions never heard a tools/list_changed")
		}
	}
}

func waitChanged(t *testing.T, who string, changed chan struct{}) {
	t.Helper()
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: no notifications/tools/list_changed", who)
	}
}

// TestRunTimeToolset: a toolset added to a running server — a tool whose
// schema is given at run time, as an upstream server's is — is announced to
// connected sessions, listed for and callable by the agent with its
// permission only, validated against its schema, masked, audited; removing
// it is announced too.
func TestRunTimeToolset(t *testing.T) {
	const secret = "kb-token-3f9a1c"
	for _, p := range protocols {
		t.Run(p, func(t *testing.T) {
			f := newFixture(t, Options{Redactor: redact.New(secret)})
			claude, claudeChanged := f.connectWatching(t, "claude-code", p)      // kanboard.write
			deepseek, deepseekChanged := f.connectWatching(t, "deepseek-cli", p) // kanboard.read only
			f.untilListening(t, claudeChanged, deepseekChanged)
			var got []string
			tool, err := NewRawTool(Tool{Name: "kanboard_create_card", Title: "Create a task", Description: "Create a task on the board.",
				Toolset: ToolsetKanboard, Permission: schema.PermKanboardWrite},
				json.RawMessage(taskSchema), func(_ context.Context, _ *sdk.CallToolRequest, args json.RawMessage) (*sdk.CallToolResult, error) {
					got = append(got, string(args))
					return &sdk.CallToolResult{
						Content:           []sdk.Content{&sdk.TextContent{Text: "created task 7 with " + secret}},
						StructuredContent: map[string]any{"id": 7, "token": secret},
					}, nil
				})
			if err != nil {
				t.Fatal(err)
			}
			if err := f.srv.AddToolset(Toolset{ID: ToolsetKanboard, Tools: []Tool{tool}}); err != nil {
				t.Fatal(err)
			}
			waitChanged(t, "claude", claudeChanged)
			waitChanged(t, "deepseek", deepseekChanged)

			res, err := claude.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var def *sdk.Tool
			for _, d := range res.Tools {
				if d.Name == "kanboard_create_card" {
					def = d
				}
			}
			if def == nil {
				t.Fatal("claude does not see the run-time tool")
			}
			var served, given any
			b, _ := json.Marshal(def.InputSchema)
			json.Unmarshal(b, &served)
			json.Unmarshal([]byte(taskSchema), &given)
			if diff := cmp.Diff(given, served); diff != "" || def.Annotations == nil || def.Annotations.DestructiveHint == nil {
				t.Errorf("definition: %+v, input schema (-given +served):\n%s", def.Annotations, diff)
			}
			for _, name := range listedNames(t, deepseek) {
				if name == "kanboard_create_card" {
					t.Error("deepseek sees a tool it lacks the permission for")
				}
			}

			if msg, isErr := callText(t, claude, "kanboard_create_card", map[string]any{"title": 5}); !isErr || !strings.Contains(msg, "title") {
				t.Errorf("bad arguments: %v %s", isErr, msg)
			}
			if msg, isErr := callText(t, claude, "kanboard_create_card", map[string]any{"title": "x", "assignee": "root"}); !isErr || !strings.Contains(msg, "assignee") {
				t.Errorf("unknown argument: %v %s", isErr, msg)
			}
			out, err := claude.CallTool(context.Background(), &sdk.CallToolParams{Name: "kanboard_create_card", Arguments: map[string]any{"title": "fix the ledger"}})
			if err != nil || out.IsError {
				t.Fatalf("call: %v %+v", err, out)
			}
			wire, _ := json.Marshal(out)
			if strings.Contains(string(wire), secret) || !strings.Contains(string(wire), redact.Mask) {
				t.Errorf("result not masked: %s", wire)
			}
			if len(got) != 1 || got[0] != `{"title":"fix the ledger"}` {
				t.Errorf("the handler ran with %q; want only the valid call", got)
			}
			if msg, isErr := callText(t, deepseek, "kanboard_create_card", map[string]any{"title": "fix"}); !isErr || !strings.Contains(msg, "needs the kanboard.write permission") {
				t.Errorf("deepseek: %v %s", isErr, msg)
			}
			log := audit.Open(f.state, "runic-gateway", nil)
			writes, _, _ := log.Read(audit.Filter{Kind: audit.KindWrite, Agent: "claude"})
			refusals, _, _ := log.Read(audit.Filter{Kind: audit.KindRefusal, Agent: "deepseek"})
			if len(writes) != 1 || writes[0].Tool != "kanboard_create_card" || len(refusals) != 1 || refusals[0].Permission != "kanboard.write" {
				t.Errorf("audit: writes %+v, refusals %+v", writes, refusals)
			}

			for _, dup := range []string{"kanboard_create_card", "get_rules"} {
				again, _ := NewRawTool(Tool{Name: dup, Title: "t", Description: "d", Toolset: ToolsetKanboard, Permission: schema.PermKanboardWrite}, json.RawMessage(taskSchema),
					func(context.Context, *sdk.CallToolRequest, json.RawMessage) (*sdk.CallToolResult, error) {
						return nil, nil
					})
				if err := f.srv.AddToolset(Toolset{ID: ToolsetKanboard, Tools: []Tool{again}}); !errors.Is(err, ErrToolExists) {
					t.Errorf("adding %s again: %v", dup, err)
				}
			}
			if msg, _ := callText(t, claude, "get_rules", nil); !strings.Contains(msg, "Runic Gateway") {
				t.Errorf("get_rules after a shadowing attempt: %.200s", msg)
			}

			f.srv.RemoveTools("kanboard_create_card")
			waitChanged(t, "claude", claudeChanged)
			for _, name := range listedNames(t, claude) {
				if name == "kanboard_create_card" {
					t.Error("a removed tool is still listed")
				}
			}
			if _, err := claude.CallTool(context.Background(), &sdk.CallToolParams{Name: "kanboard_create_card", Arguments: map[string]any{"title": "x"}}); err == nil {
				t.Error("a removed tool still answers")
			}
		})
	}
}

// TestRunTimeToolsetEnabled: a run-time toolset's Enabled hook hides and
// refuses its tools while it reports false, per request.
func TestRunTimeToolsetEnabled(t *testing.T) {
	f := newFixture(t, Options{})
	var up atomic.Bool
	tool, err := NewRawTool(Tool{Name: "gitea_list_issues", Title: "List issues", Description: "Issues of the repository.",
		Toolset: "gitea", Permission: schema.PermGiteaRead, ReadOnly: true},
		json.RawMessage(`{"type":"object"}`), func(context.Context, *sdk.CallToolRequest, json.RawMessage) (*sdk.CallToolResult, error) {
			return text("[]"), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.srv.AddToolset(Toolset{ID: "gitea", Tools: []Tool{tool}, Enabled: func(context.Context) bool { return up.Load() }}); err != nil {
		t.Fatal(err)
	}
	cs := f.connect(t, "codex-mcp-client", "", nil)
	listed := func() bool {
		for _, n := range listedNames(t, cs) {
			if n == "gitea_list_issues" {
				return true
			}
		}
		return false
	}
	if msg, isErr := callText(t, cs, "gitea_list_issues", nil); listed() || !isErr || !strings.Contains(msg, "the gitea toolset is not set up") {
		t.Errorf("disabled: listed %v, call %v %s", listed(), isErr, msg)
	}
	up.Store(true)
	if msg, isErr := callText(t, cs, "gitea_list_issues", nil); !listed() || isErr || msg != "[]" {
		t.Errorf("enabled: listed %v, call %v %s", listed(), isErr, msg)
	}
}

// TestNewRawToolRefusesHostileDefinitions: a definition from another server
// is checked before anything is registered, and its text is made safe.
func TestNewRawToolRefusesHostileDefinitions(t *testing.T) {
	h := func(context.Context, *sdk.CallToolRequest, json.RawMessage) (*sdk.CallToolResult, error) {
		return nil, nil
	}
	obj := json.RawMessage(`{"type":"object"}`)
	cases := []struct {
		name   string
		schema json.RawMessage
		h      RawHandler
	}{
		{"", obj, h},
		{"has space", obj, h},
		{"evil\x1b[2J", obj, h},
		{strings.Repeat("a", 129), obj, h},
		{"no_handler", obj, nil},
		{"not_json", json.RawMessage(`{"type":`), h},
		{"not_an_object", json.RawMessage(`{"type":"string"}`), h},
		{"no_type", json.RawMessage(`{"properties":{}}`), h},
		{"remote_ref", json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"https://evil.example/s.json"}}}`), h},
		{"bad_pattern", json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","pattern":"(["}}}`), h},
		{"huge", json.RawMessage(`{"type":"object","description":"` + strings.Repeat("x", maxRawSchema) + `"}`), h},
	}
	for _, c := range cases {
		if _, err := NewRawTool(Tool{Name: c.name, Title: "t", Description: "d", Permission: schema.PermGiteaRead}, c.schema, c.h); !errors.Is(err, ErrInvalidTool) {
			t.Errorf("%.40q: err %v, want ErrInvalidTool", c.name, err)
		}
	}
	// A run-time tool is never open to every agent: no permission, or one
	// that does not exist, is refused.
	for _, perm := range []schema.Permission{"", "gitea.admin"} {
		if _, err := NewRawTool(Tool{Name: "open_to_all", Title: "t", Description: "d", Permission: perm}, obj, h); !errors.Is(err, ErrInvalidTool) {
			t.Errorf("permission %q: err %v, want ErrInvalidTool", perm, err)
		}
	}
	tool, err := NewRawTool(Tool{Name: "ok", Permission: schema.PermGiteaRead, Title: "Title\n\x1b[31mred", Description: "line\x1b]0;pwned\x07 one\n" + strings.Repeat("é", 3000)}, obj, h)
	if err != nil {
		t.Fatal(err)
	}
	if tool.Title != "Title [31mred" || strings.ContainsAny(tool.Description, "\x1b\x07") || len(tool.Description) > maxRawDescription || !strings.HasPrefix(tool.Description, "line]0;pwned one\n") {
		t.Errorf("title %q, description %.60q (%d bytes)", tool.Title, tool.Description, len(tool.Description))
	}
	f := newFixture(t, Options{})
	if err := f.srv.AddToolset(Toolset{ID: "gitea", Tools: []Tool{{Name: "bare"}}}); !errors.Is(err, ErrInvalidTool) {
		t.Errorf("a tool without a handler: %v", err)
	}
}

// TestHandlersNeedAdmission: a tool's handler never runs for a call the
// permission middleware did not admit (here: an SDK server without it, as a
// tool registered between the middleware's lookup and the dispatch is).
func TestHandlersNeedAdmission(t *testing.T) {
	ran := false
	typed := newTool(Tool{Name: "typed_test", Toolset: ToolsetRules, Description: "test-only"}, nil,
		func(context.Context, *sdk.CallToolRequest, noInput) (*sdk.CallToolResult, any, error) {
			ran = true
			return text("ran"), nil, nil
		})
	raw, err := NewRawTool(Tool{Name: "raw_test", Toolset: ToolsetRules, Permission: schema.PermRulesPropose, Description: "test-only"}, json.RawMessage(`{"type":"object"}`),
		func(context.Context, *sdk.CallToolRequest, json.RawMessage) (*sdk.CallToolResult, error) {
			ran = true
			return text("ran"), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "bare"}, nil)
	typed.add(srv)
	raw.add(srv)
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "c"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, name := range []string{"typed_test", "raw_test"} {
		if msg, isErr := callText(t, cs, name, nil); !isErr || !strings.Contains(msg, "call it again") {
			t.Errorf("%s: %v %s", name, isErr, msg)
		}
	}
	if ran {
		t.Error("a handler ran without the middleware's admission")
	}
}

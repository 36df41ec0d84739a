package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/kanboard"
	"github.com/bridle-dev/bridle/memory"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/redact"
	"github.com/bridle-dev/bridle/schema"
)

var update = flag.Bool("update", false, "rewrite testdata/tools.golden.json and docs/reference/mcp-tools.md")

const example = "../examples/runic-gateway"

// protocols are the MCP versions every client-side test runs on: the
// default (the stateless 2026-07-28, no initialize), and two handshake-era
// versions.
var protocols = []string{"", "2025-11-25", "2025-06-18"}

type fixture struct {
	srv   *Server
	state string
}

func newFixture(t *testing.T, opts Options) *fixture {
	t.Helper()
	if opts.Rules == "" && opts.Snapshot == "" {
		opts.Rules = exampleRepo(t, t.TempDir())
	}
	if opts.StateDir == "" {
		opts.StateDir = t.TempDir()
	}
	if opts.CacheDir == "" {
		opts.CacheDir = t.TempDir()
	}
	if opts.Redactor == nil {
		opts.Redactor = redact.New()
	}
	return &fixture{srv: New(opts), state: opts.StateDir}
}

// connect opens an in-memory client session as clientName.
func (f *fixture) connect(t *testing.T, clientName, protocol string, copts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := f.srv.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := sdk.NewClient(&sdk.Implementation{Name: clientName, Version: "1.0"}, copts)
	cs, err := c.Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatalf("connect %s on %q: %v", clientName, protocol, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callText(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

func TestEachAgentGetsItsOwnRules(t *testing.T) {
	f := newFixture(t, Options{})
	tests := []struct {
		client, want, notWant string
	}{
		{"claude-code", "# Runic Gateway — project rules for Claude", "Step 2 — Before each change"},
		{"codex-mcp-client", "# AGENTS.md — Runic Gateway", "YOU MUST"},
		{"kimi-cli", "# Instructions for Kimi — Runic Gateway", "# AGENTS.md"},
		{"some-new-editor", "Bridle does not know this agent (client \"some-new-editor\")", "explain-tradeoffs"},
	}
	for _, p := range protocols {
		for _, tt := range tests {
			t.Run(p+"/"+tt.client, func(t *testing.T) {
				cs := f.connect(t, tt.client, p, nil)
				got, isErr := callText(t, cs, "get_rules", nil)
				if isErr || !strings.Contains(got, tt.want) || strings.Contains(got, tt.notWant) {
					t.Errorf("get_rules for %s (error %v):\n%.600s", tt.client, isErr, got)
				}
			})
		}
	}
}

func TestAgentBoundAtLaunchWins(t *testing.T) {
	f := newFixture(t, Options{Agent: "deepseek"})
	for _, p := range protocols {
		cs := f.connect(t, "claude-code", p, nil)
		got, _ := callText(t, cs, "get_rules", nil)
		if !strings.Contains(got, "# Instructions for DeepSeek") {
			t.Errorf("%q: bound agent ignored:\n%.300s", p, got)
		}
	}
}

func TestGetRulesHasNoOutputSchema(t *testing.T) {
	cs := newFixture(t, Options{}).connect(t, "claude-code", "", nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name == "get_rules" && tool.OutputSchema != nil {
			t.Error("get_rules has an output schema; clients would show structuredContent instead of the markdown")
		}
	}
}

func TestGuardrailTools(t *testing.T) {
	cs := newFixture(t, Options{}).connect(t, "kimi-cli", "", nil)
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "list_guardrails", Arguments: map[string]any{"tier": "enforcement"}})
	if err != nil || res.IsError {
		t.Fatalf("list_guardrails: %v %+v", err, res)
	}
	var list GuardrailList
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &list)
	if list.Agent != "kimi" || list.Count != 3 || list.Guardrails[0].Severity != "enforcement" {
		t.Errorf("list = %+v", list)
	}
	all, _ := cs.CallTool(ctx, &sdk.CallToolParams{Name: "list_guardrails", Arguments: map[string]any{"all": true}})
	b, _ = json.Marshal(all.StructuredContent)
	json.Unmarshal(b, &list)
	if list.Count != 12 {
		t.Errorf("all=true gave %d guardrails, want 12", list.Count)
	}

	got, isErr := callText(t, cs, "get_guardrail", map[string]any{"id": "no-pii-in-logs"})
	if isErr || !strings.Contains(got, `"origin":"project policy, proposed by priya.raman; in the owner's baseline (commit `) {
		t.Errorf("get_guardrail: %s", got)
	}
	got, isErr = callText(t, cs, "get_guardrail", map[string]any{"id": "no-pii-in-log"})
	if !isErr || !strings.Contains(got, `did you mean "no-pii-in-logs"`) {
		t.Errorf("unknown id: %v %s", isErr, got)
	}
}

// TestBadArguments: wrong types, unknown tools, oversized and hostile text
// each get a clear error, and the session keeps serving.
func TestBadArguments(t *testing.T) {
	cs := newFixture(t, Options{}).connect(t, "claude-code", "", nil)
	ctx := context.Background()
	cases := []struct {
		name string
		args map[string]any
		want string
	}{
		{"list_guardrails", map[string]any{"tier": 5}, "tier"},
		{"list_guardrails", map[string]any{"tier": "hard"}, "tier"},
		{"get_guardrail", map[string]any{}, "id"},
		{"get_guardrail", map[string]any{"id": strings.Repeat("x", 3<<20)}, "id"},
		{"request_scope_approval", map[string]any{"action": strings.Repeat("a", 5000), "reason": "r"}, "action"},
		{"request_scope_approval", map[string]any{"action": "x", "reason": "   "}, "non-empty"},
		{"request_scope_approval", map[string]any{"action": "x", "reason": "y", "guardrail_id": "no-unrequested-refactor"}, `did you mean "no-unrequested-refactors"`},
	}
	for _, c := range cases {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.name, Arguments: c.args})
		msg := fmt.Sprint(err)
		if res != nil {
			for _, ct := range res.Content {
				if tc, ok := ct.(*sdk.TextContent); ok {
					msg += tc.Text
				}
			}
		}
		if (err == nil && !res.IsError) || !strings.Contains(msg, c.want) {
			t.Errorf("%s(%.80v): err %v, result %.200s; want an error mentioning %q", c.name, c.args, err, msg, c.want)
		}
	}
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "no_such_tool"}); err == nil || !strings.Contains(err.Error(), "no_such_tool") {
		t.Errorf("unknown tool: %v", err)
	}
	if got, isErr := callText(t, cs, "get_rules", nil); isErr || !strings.Contains(got, "Runic Gateway") {
		t.Error("session stopped serving after bad input")
	}
}

func TestScopeApproval(t *testing.T) {
	for _, p := range protocols {
		t.Run("accept"+p, func(t *testing.T) {
			f := newFixture(t, Options{})
			cs := f.connect(t, "claude-code", p, &sdk.ClientOptions{
				ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					if !strings.Contains(req.Params.Message, "Action: rename the config package") {
						t.Errorf("elicitation message: %q", req.Params.Message)
					}
					return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
				},
			})
			got, isErr := callText(t, cs, "request_scope_approval", map[string]any{
				"action": "rename the config package\x1b[31m", "reason": "the task touches it", "guardrail_id": "no-unrequested-refactors"})
			if isErr || !strings.Contains(got, `"decision":"approved"`) {
				t.Fatalf("result: %s", got)
			}
			events := f.events(t)
			kinds := []string{}
			for _, e := range events {
				kinds = append(kinds, e.Kind)
				if strings.Contains(fmt.Sprint(e.Detail), "\x1b") {
					t.Error("control characters reached the audit log")
				}
			}
			if !slices.Equal(kinds, []string{audit.KindScopeRequest, audit.KindScopeDecision}) || events[1].Agent != "claude" {
				t.Errorf("events = %+v", events)
			}
		})
		t.Run("decline"+p, func(t *testing.T) {
			f := newFixture(t, Options{})
			cs := f.connect(t, "claude-code", p, &sdk.ClientOptions{
				ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					return &sdk.ElicitResult{Action: "decline"}, nil
				},
			})
			got, _ := callText(t, cs, "request_scope_approval", map[string]any{"action": "x", "reason": "y"})
			if !strings.Contains(got, `"decision":"denied"`) || !strings.Contains(got, "Do not do it") {
				t.Errorf("result: %s", got)
			}
		})
		t.Run("no elicitation"+p, func(t *testing.T) {
			f := newFixture(t, Options{})
			cs := f.connect(t, "codex-mcp-client", p, nil)
			got, _ := callText(t, cs, "request_scope_approval", map[string]any{"action": "add a dependency", "reason": "parsing"})
			if !strings.Contains(got, `"decision":"pending"`) || !strings.Contains(got, "STOP") || !strings.Contains(got, "ask the human in chat") {
				t.Errorf("result: %s", got)
			}
			if ev := f.events(t); len(ev) != 1 || ev[0].Kind != audit.KindScopePending || ev[0].Agent != "codex" {
				t.Errorf("events = %+v", ev)
			}
		})
	}
}

func (f *fixture) events(t *testing.T) []audit.Event {
	t.Helper()
	ev, _, err := audit.Open(f.state, "runic-gateway", nil).Read(audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// TestStaleSnapshot: a rules source that becomes unreadable or invalid
// mid-session does not take the server down; the last good snapshot is
// served and said to be stale, and a new process falls back to the cache.
func TestStaleSnapshot(t *testing.T) {
	dir := t.TempDir()
	rules := filepath.Join(dir, "bridle.yaml")
	src, _ := os.ReadFile(filepath.Join(example, "bridle.yaml"))
	commitRules(t, dir, src)
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	cache := t.TempDir()
	f := newFixture(t, Options{Rules: dir, CacheDir: cache, Now: clock, Refresh: time.Second})
	cs := f.connect(t, "claude-code", "", nil)
	if got, _ := callText(t, cs, "get_rules", nil); strings.Contains(got, "Stale") {
		t.Fatal("fresh rules reported stale")
	}

	commitRules(t, dir, []byte("schema_version: 1\nproject: [broken\n"))
	now = now.Add(5 * time.Second)
	got, isErr := callText(t, cs, "get_rules", nil)
	if isErr || !strings.Contains(got, "**Stale rules.**") || !strings.Contains(got, "rules are invalid") || !strings.Contains(got, "project rules for Claude") {
		t.Fatalf("after breaking the rules:\n%.700s", got)
	}

	os.RemoveAll(filepath.Join(dir, ".git"))
	os.Remove(rules)
	f2 := newFixture(t, Options{Rules: dir, CacheDir: cache, Now: clock})
	cs2 := f2.connect(t, "claude-code", "", nil)
	got, isErr = callText(t, cs2, "get_rules", nil)
	if isErr || !strings.Contains(got, "**Stale rules.**") || !strings.Contains(got, "project rules for Claude") {
		t.Fatalf("new process without rules:\n%.700s", got)
	}

	f3 := newFixture(t, Options{Rules: dir, CacheDir: t.TempDir()})
	got, isErr = callText(t, f3.connect(t, "claude-code", "", nil), "get_rules", nil)
	if !isErr || !strings.Contains(got, "Bridle cannot load the rules") {
		t.Errorf("no rules and no cache: %v %s", isErr, got)
	}
}

func TestResources(t *testing.T) {
	cs := newFixture(t, Options{}).connect(t, "claude-code", "", nil)
	ctx := context.Background()
	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "bridle://rules/kimi"})
	if err != nil || !strings.Contains(res.Contents[0].Text, "# Instructions for Kimi") {
		t.Errorf("rules/kimi: %v", err)
	}
	res, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "bridle://snapshot"})
	if err != nil || !json.Valid([]byte(res.Contents[0].Text)) {
		t.Errorf("snapshot: %v", err)
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "bridle://rules/nobody"}); err == nil {
		t.Error("reading rules of an unknown agent succeeded")
	}
}

func TestInstructions(t *testing.T) {
	cs := newFixture(t, Options{}).connect(t, "claude-code", "2025-06-18", nil)
	if !strings.Contains(cs.InitializeResult().Instructions, "call get_rules") {
		t.Error("server instructions do not tell the agent to call get_rules")
	}
}

// TestRedaction: a secret value never leaves in a tool result, resource or
// audit event, even when it sits in the rules themselves.
func TestRedaction(t *testing.T) {
	const canary = "gitea-token-canary-93b1c0"
	dir := t.TempDir()
	src, _ := os.ReadFile(filepath.Join(example, "bridle.yaml"))
	commitRules(t, dir, []byte(strings.Replace(string(src),
		"Ask before adding a new third-party module", "Ask before using "+canary+" or adding a new third-party module", 1)))
	f := newFixture(t, Options{Rules: dir, Redactor: redact.New(canary)})
	cs := f.connect(t, "kimi-cli", "", nil)
	ctx := context.Background()
	got, _ := callText(t, cs, "get_rules", nil)
	list, _ := callText(t, cs, "list_guardrails", nil)
	res, _ := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "bridle://snapshot"})
	callText(t, cs, "request_scope_approval", map[string]any{"action": "print " + canary, "reason": "debug"})
	events, _ := os.ReadFile(audit.Open(f.state, "runic-gateway", nil).Path())
	for what, s := range map[string]string{"get_rules": got, "list_guardrails": list, "snapshot": res.Contents[0].Text, "audit": string(events)} {
		if strings.Contains(s, canary) {
			t.Errorf("%s leaked the secret", what)
		}
		if !strings.Contains(s, redact.Mask) {
			t.Errorf("%s: expected the mask", what)
		}
	}
}

// TestPermissionTable checks every (agent, tool) pair from the client side
// against a table written out by hand from examples/runic-gateway's
// permissions: a tool is listed exactly for the agents in its row, a call
// from any other agent is refused naming the row's permission, and every
// refusal is recorded.
func TestPermissionTable(t *testing.T) {
	const all = "claude codex kimi deepseek unknown"
	table := map[string]struct{ perm, agents string }{
		"get_rules":               {"", all},
		"list_guardrails":         {"", all},
		"get_guardrail":           {"", all},
		"check_command":           {"", all},
		"check_path":              {"", all},
		"request_scope_approval":  {"", all},
		"propose_guardrail":       {"rules.propose", "claude codex kimi"},
		"add_pattern":             {"rules.propose", "claude codex kimi"},
		"update_rules":            {"rules.propose", "claude codex kimi"},
		"list_proposals":          {"rules.propose", "claude codex kimi"},
		"get_proposal":            {"rules.propose", "claude codex kimi"},
		"approve_proposal":        {"rules.approve", ""},
		"remember":                {"memory.write", "claude codex kimi"},
		"recall":                  {"memory.read", "claude codex kimi deepseek"},
		"forget":                  {"memory.forget", ""},
		"search_pattern_examples": {"memory.read", "claude codex kimi deepseek"},
		"refresh_pattern_example": {"memory.write", "claude codex kimi"},
		"kanboard_list_projects":  {"kanboard.read", "claude codex kimi deepseek"},
		"kanboard_board":          {"kanboard.read", "claude codex kimi deepseek"},
		"kanboard_list_tasks":     {"kanboard.read", "claude codex kimi deepseek"},
		"kanboard_get_task":       {"kanboard.read", "claude codex kimi deepseek"},
		"kanboard_create_task":    {"kanboard.write", "claude"},
		"kanboard_update_task":    {"kanboard.write", "claude"},
		"kanboard_move_task":      {"kanboard.write", "claude"},
		"kanboard_close_task":     {"kanboard.write", "claude"},
		"kanboard_reopen_task":    {"kanboard.write", "claude"},
		"kanboard_add_comment":    {"kanboard.write", "claude"},
		"kanboard_create_subtask": {"kanboard.write", "claude"},
		"kanboard_update_subtask": {"kanboard.write", "claude"},
		"list_secrets":            {"secrets.read", ""},
		// Test-only tools whose calls succeed without arguments.
		"remember_test":       {"memory.write", "claude codex kimi"},
		"kanboard_write_test": {"kanboard.write", "claude"},
	}
	ok := func(context.Context, *sdk.CallToolRequest, noInput) (*sdk.CallToolResult, any, error) {
		return text("done"), nil, nil
	}
	f := newFixture(t, Options{Proposals: noProposals, Memory: noMemory, Kanboard: noKanboard, Secrets: someSecrets, extraTools: []Tool{
		newTool(Tool{Name: "remember_test", Toolset: ToolsetMemory, Permission: schema.PermMemoryWrite, Description: "test-only"}, nil, ok),
		newTool(Tool{Name: "kanboard_write_test", Toolset: ToolsetKanboard, Permission: schema.PermKanboardWrite, Description: "test-only"}, nil, ok),
	}})
	for _, tool := range f.srv.Tools() {
		row, found := table[tool.Name]
		if !found {
			t.Errorf("%s has no row in the permission table", tool.Name)
		} else if string(tool.Permission) != row.perm {
			t.Errorf("%s needs %q, the table says %q", tool.Name, tool.Permission, row.perm)
		}
	}
	clients := map[string]string{"claude": "claude-code", "codex": "codex-mcp-client", "kimi": "kimi-cli", "deepseek": "deepseek-cli", Unknown: "mystery-client"}
	for agent, client := range clients {
		cs := f.connect(t, client, "", nil)
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		listed := map[string]bool{}
		for _, tool := range res.Tools {
			listed[tool.Name] = true
		}
		for name, row := range table {
			want := slices.Contains(strings.Fields(row.agents), agent)
			if listed[name] != want {
				t.Errorf("%s/%s: listed %v, want %v", agent, name, listed[name], want)
			}
			if row.perm == "" {
				continue
			}
			got, isErr := callText(t, cs, name, nil)
			if want && strings.Contains(got, "permission denied") {
				t.Errorf("%s/%s: allowed call refused: %s", agent, name, got)
			}
			if want && !isErr && !strings.HasSuffix(name, "_test") {
				t.Errorf("%s/%s: a call without its arguments succeeded: %s", agent, name, got)
			}
			if !want && (!isErr || !strings.Contains(got, "needs the "+row.perm+" permission")) {
				t.Errorf("%s/%s: hidden tool not refused properly: %s", agent, name, got)
			}
		}
	}
	refusals, _, _ := audit.Open(f.state, "runic-gateway", nil).Read(audit.Filter{Kind: audit.KindRefusal, Agent: "claude"})
	var got []string
	for _, r := range refusals {
		got = append(got, r.Tool+":"+r.Permission)
	}
	slices.Sort(got)
	if want := []string{"approve_proposal:rules.approve", "forget:memory.forget", "list_secrets:secrets.read"}; !slices.Equal(got, want) {
		t.Errorf("claude refusals = %v, want %v", got, want)
	}
	writes, _, _ := audit.Open(f.state, "runic-gateway", nil).Read(audit.Filter{Kind: audit.KindWrite, Agent: "claude"})
	got = nil
	for _, w := range writes {
		got = append(got, w.Tool)
	}
	slices.Sort(got)
	if want := []string{"kanboard_write_test", "remember_test"}; !slices.Equal(got, want) {
		t.Errorf("claude writes = %v, want %v", got, want)
	}
}

// noProposals and noMemory configure services that fail when opened: their
// toolsets are served, and a call that reaches a handler gets an error.
func noProposals() (proposals.Backend, error) { return nil, errors.New("test: no proposal backend") }

func noMemory() (memory.Store, memory.Embedder, error) {
	return nil, nil, errors.New("test: no memory store")
}

// noKanboard configures a Kanboard whose client cannot be made: its toolset
// is served, and a call that reaches a handler gets an error.
var noKanboard = &Kanboard{For: func(string) (*kanboard.Client, error) { return nil, errors.New("test: no kanboard") }}

// documentPermissions is every permission the document can grant, derived
// from the schema's Permissions struct (service.action, by JSON field
// names), not from the constants, so that a misspelt constant fails.
func documentPermissions() []string {
	name := func(f reflect.StructField) string { n, _, _ := strings.Cut(f.Tag.Get("json"), ","); return n }
	var out []string
	pt := reflect.TypeFor[schema.Permissions]()
	for i := range pt.NumField() {
		svc := pt.Field(i)
		for j := range svc.Type.NumField() {
			out = append(out, name(svc)+"."+name(svc.Type.Field(j)))
		}
	}
	return out
}

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// TestRegistry: every tool is annotated explicitly, names are unique
// snake_case, toolsets are known, permissions are the document's, and the
// tool schemas match the snapshot under testdata (rewrite with -update).
func TestRegistry(t *testing.T) {
	f := newFixture(t, Options{Proposals: noProposals, Memory: noMemory, Kanboard: noKanboard, Secrets: someSecrets})
	perms := documentPermissions()
	seen := map[string]bool{}
	for _, tool := range f.srv.Tools() {
		if !snakeCase.MatchString(tool.Name) || seen[tool.Name] {
			t.Errorf("tool name %q is not unique snake_case", tool.Name)
		}
		seen[tool.Name] = true
		if !slices.Contains(Toolsets, tool.Toolset) {
			t.Errorf("%s: unknown toolset %q", tool.Name, tool.Toolset)
		}
		if tool.Permission != "" && !slices.Contains(perms, string(tool.Permission)) {
			t.Errorf("%s needs %q, which is not a permission of the document (one of %v)", tool.Name, tool.Permission, perms)
		}
		if tool.Description == "" || tool.Title == "" {
			t.Errorf("%s: no title or description", tool.Name)
		}
	}
	cs := f.connect(t, "claude-code", "", nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		a := tool.Annotations
		if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: annotations not explicit: %+v", tool.Name, a)
		}
	}
	got, _ := json.MarshalIndent(res.Tools, "", "  ")
	got = append(got, '\n')
	golden := filepath.Join("testdata", "tools.golden.json")
	if *update {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(golden, got, 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./mcp -run Registry -update)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("tool schemas changed (-want +got); review, then go test ./mcp -run Registry -update:\n%s", diff)
	}
}

// TestServeSnapshotFile: --snapshot serves a compiled snapshot; a damaged
// file later leaves the loaded one in service, marked stale.
func TestServeSnapshotFile(t *testing.T) {
	snap, _, err := compiler.Compile(compiler.Options{Rules: example, BridleVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := snap.JSON()
	file := filepath.Join(t.TempDir(), "snapshot.json")
	os.WriteFile(file, b, 0o644)
	now := time.Now()
	f := newFixture(t, Options{Snapshot: file, Now: func() time.Time { return now }, Refresh: time.Second})
	cs := f.connect(t, "codex-mcp-client", "", nil)
	if got, isErr := callText(t, cs, "get_rules", nil); isErr || !strings.Contains(got, "# AGENTS.md — Runic Gateway") {
		t.Fatalf("get_rules: %.200s", got)
	}
	os.WriteFile(file, []byte("{not json"), 0o644)
	os.Chtimes(file, now.Add(time.Minute), now.Add(time.Minute))
	now = now.Add(time.Hour)
	if got, _ := callText(t, cs, "get_rules", nil); !strings.Contains(got, "**Stale rules.**") || !strings.Contains(got, "# AGENTS.md — Runic Gateway") {
		t.Errorf("after damage: %.300s", got)
	}
	bad := filepath.Join(t.TempDir(), "other.json")
	os.WriteFile(bad, []byte(`{"hello": 1}`), 0o644)
	f2 := newFixture(t, Options{Snapshot: bad})
	if got, isErr := callText(t, f2.connect(t, "codex-mcp-client", "", nil), "get_rules", nil); !isErr || !strings.Contains(got, "not a bridle snapshot") {
		t.Errorf("not a snapshot: %s", got)
	}
}

// TestSchemasCommitted keeps the schemas directory (the tool schemas served
// without reflecting the Go types at start) in step with the types: every
// tool's files as reflected, and no file of a tool that is gone.
func TestSchemasCommitted(t *testing.T) {
	want, err := SchemaFiles(New(Options{CacheDir: "-"}).Tools())
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir("schemas")
	if err != nil && !*update {
		t.Fatal(err)
	}
	if *update {
		os.MkdirAll("schemas", 0o755)
		for _, e := range entries {
			if _, ok := want[e.Name()]; !ok {
				os.Remove(filepath.Join("schemas", e.Name()))
			}
		}
		for name, b := range want {
			if err := os.WriteFile(filepath.Join("schemas", name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	for _, e := range entries {
		if _, ok := want[e.Name()]; !ok {
			t.Errorf("schemas/%s is of no tool; run go test ./mcp -run SchemasCommitted -update", e.Name())
		}
	}
	for name, b := range want {
		got, err := schemaFiles.ReadFile("schemas/" + name)
		if err != nil || !bytes.Equal(got, b) {
			t.Errorf("schemas/%s is out of date with the tool types; run go test ./mcp -run SchemasCommitted -update", name)
		}
	}
}

// TestAnotherHarnessDoesNotInheritTheLaunchedAgent: Copilot CLI and Qwen
// Code start the servers in Claude Code's .mcp.json as their own; a sidecar
// launched as claude that a client calling itself another known harness
// connects to serves the rules for all agents and no permissions, and says
// why. A client name Bridle does not know (a health check's) proves nothing.
func TestAnotherHarnessDoesNotInheritTheLaunchedAgent(t *testing.T) {
	f := newFixture(t, Options{Agent: "claude", Memory: noMemory})
	for _, p := range protocols {
		for client, want := range map[string]string{
			"copilot-cli":                "started as agent claude, but the client that connected says it is copilot",
			"qwen-cli-mcp-client-bridle": "says it is qwen",
			"claude-code":                "# Runic Gateway — project rules for Claude",
			"mcp-test-client":            "# Runic Gateway — project rules for Claude",
		} {
			cs := f.connect(t, client, p, nil)
			got, _ := callText(t, cs, "get_rules", nil)
			if !strings.Contains(got, want) {
				t.Errorf("%s %s: get_rules:\n%.400s", p, client, got)
			}
			tools, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			proposes := slices.ContainsFunc(tools.Tools, func(t *sdk.Tool) bool { return t.Name == "recall" })
			if mismatch := !strings.HasPrefix(want, "#"); proposes == mismatch {
				t.Errorf("%s %s: recall (memory.read) listed %v", p, client, proposes)
			}
		}
	}
}

package panel_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/internal/kanboardtest"
	"github.com/bridle-dev/bridle/internal/upstreamtest"
)

// kanboardAs calls the fake Kanboard's getMe as the application identity
// with token: the status it answers.
func kanboardAs(t *testing.T, kb *kanboardtest.Fake, token string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", kb.Endpoint(), strings.NewReader(`{"jsonrpc":"2.0","method":"getVersion","id":1}`))
	req.SetBasicAuth("jsonrpc", token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// listTasks is the agent's kanboard_list_tasks: its text, and whether it
// failed.
func listTasks(t *testing.T, cs *sdk.ClientSession, board int) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), callParams("kanboard_list_tasks", map[string]any{"project_id": board}))
	if err != nil {
		t.Fatalf("kanboard_list_tasks: %v", err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// Rotating a secret in the browser, checked from both sides: the admin
// adds the project's Kanboard token and rotates it in the page; the
// agent's Kanboard tools work before and after, with the new token once
// Kanboard refuses the old one, and a client still holding the old token
// is refused by Kanboard.
func TestRotateASecretInTheBrowser(t *testing.T) {
	ctx := newChrome(t)
	const oldTok, newTok = "kb-app-CANARY-old-6d1f0a9c", "kb-app-CANARY-new-2b8e4c7d"
	kb := kanboardtest.New(t, oldTok)
	board := kb.AddProject("runic")
	kb.SeedTasks(board, 3)
	k := newVaultKit(t)
	rules := upstreamtest.Rules(t) // the example's permissions: codex reads Kanboard
	k.init(t, rules)
	e := start(t, nil, k.option(), func(c *gateway.Config, _ *gateway.Options) {
		c.Projects["alpha"] = gateway.ProjectConfig{Rules: rules,
			Kanboard: &gateway.KanboardConfig{URL: kb.Endpoint(), User: "jsonrpc", Token: "secret:kanboard-app", Projects: []int{board}}}
	})
	codex := e.connectAs(t, "alpha", e.mint(t, "alpha", "codex"), "codex-mcp-client")
	if text, failed := listTasks(t, codex, board); !failed || !strings.Contains(text, "secret kanboard-app") {
		t.Fatalf("before the secret is set: %v %s", failed, text)
	}

	signIn(t, ctx, e, "/ui/projects/alpha/secrets", "#s-name")
	must(t, ctx, "add the token",
		chromedp.SendKeys(chromedp.CSS("#s-name"), "kanboard-app"),
		chromedp.SendKeys(chromedp.CSS("#s-value"), oldTok),
		submit(`form[action="/ui/projects/alpha/secrets"] button`, ".flash.ok"))
	if f := text(t, ctx, ".flash.ok"); !strings.Contains(f, "Stored secret kanboard-app in alpha's vault") {
		t.Fatalf("flash after adding: %q", f)
	}
	if text, failed := listTasks(t, codex, board); failed {
		t.Fatalf("the agent with the token set: %s", text)
	}

	// Kanboard issues a new token; the admin rotates it in the browser;
	// then Kanboard stops accepting the old one.
	kb.AcceptAppToken(newTok)
	must(t, ctx, "rotate the token",
		unfold("#rotate-kanboard-app", "#r-val-kanboard-app"),
		chromedp.SendKeys(chromedp.CSS("#r-val-kanboard-app"), newTok),
		submit(`form[action$="/kanboard-app/rotate"] button`, ".flash.ok"))
	if f := text(t, ctx, ".flash.ok"); !strings.Contains(f, "Rotated secret kanboard-app") || !strings.Contains(f, "Its consumers (kanboard) use the new value") {
		t.Fatalf("flash after rotating: %q", f)
	}
	kb.RevokeAppToken(oldTok)

	// The agent's side: its Kanboard tools work, so they use the new token.
	if text, failed := listTasks(t, codex, board); failed || !strings.Contains(text, "Task") {
		t.Errorf("the agent after the rotation (the old token revoked at Kanboard): %v %s", failed, text)
	}
	// Kanboard's side: the old token is refused, the new one admitted.
	if code := kanboardAs(t, kb, oldTok); code != http.StatusUnauthorized {
		t.Errorf("Kanboard with the old token: %d, want 401", code)
	}
	if code := kanboardAs(t, kb, newTok); code != http.StatusOK {
		t.Errorf("Kanboard with the new token: %d", code)
	}

	// Nothing the browser holds carries either value.
	page, err := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("html")))
	if err != nil {
		t.Fatal(err)
	}
	loc, _ := chromedp.Run(ctx, chromedp.Location())
	for _, v := range []string{oldTok, newTok} {
		if strings.Contains(page+loc, v) {
			t.Errorf("the page or its address carries a value")
		}
	}
	if row := text(t, ctx, "#secret-kanboard-app"); !strings.Contains(row, "rotated ") || !strings.Contains(row, "kanboard") {
		t.Errorf("the secret's row after the rotation: %q", row)
	}
	must(t, ctx, "follow the audit link",
		submit(".flash.ok a", "table.audit"))
	if a := text(t, ctx, "table.audit"); !strings.Contains(a, "secret kanboard-app: rotate") || strings.Contains(a, "secret kanboard-app: set") {
		t.Errorf("the rotation's audit link shows more or less than its entry:\n%s", a)
	}
}

package panel_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/internal/kanboardtest"
	"github.com/bridle-dev/bridle/internal/upstreamtest"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/redact"
	"github.com/bridle-dev/bridle/scaffold"
	"github.com/bridle-dev/bridle/vault"
)

// withRules serves project id from the rules repository dir.
func withRules(id, dir string) envOption {
	return func(c *gateway.Config, _ *gateway.Options) { c.Projects[id] = gateway.ProjectConfig{Rules: dir} }
}

// exampleRules is a rules repository holding examples/runic-gateway, its
// first pattern example pointed at local, committed once (the baseline).
func exampleRules(t testing.TB, local string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "examples", "runic-gateway", "bridle.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	src = []byte(strings.Replace(string(src), "https://git.runic.example/platform/payouts-api.git\n          ref: main", local, 1))
	dir := filepath.Join(t.TempDir(), "runic-gateway")
	repo, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: "refs/heads/main"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bridle.yaml"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	wt, _ := repo.Worktree()
	wt.Add("bridle.yaml")
	if _, err := wt.Commit("The rules of runic-gateway", &git.CommitOptions{
		Author: &object.Signature{Name: "Mira Rossi", Email: "mira@example.com", When: time.Now().Add(-72 * time.Hour)}}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// fillVault stores the secrets a realistic project holds in the rules
// repository's SOPS file, through the helper, before the gateway starts
// (its upstream needs one to come up): set, one rotated, one revoked; and
// a Docker secret nothing uses.
func fillVault(t testing.TB, k vaultKit, rules string) {
	t.Helper()
	k.init(t, rules)
	ctx := t.Context()
	v := vault.Open(ctx, vault.Options{Scope: "runic-gateway", Dir: rules, DockerDir: "-", Redactor: redact.New(),
		Codec: vault.ExecCodec{Path: k.helper, Env: vault.HelperEnv(func(string) string { return "" }, k.keyFile)},
		Commit: func(_ context.Context, files map[string][]byte, msg string) (string, error) {
			return scaffold.CommitIn(rules, files, &object.Signature{Name: "Mira Rossi", Email: "mira@example.com", When: time.Now()}, msg)
		}})
	for _, name := range []string{"kanboard-app", "kanboard-claude", "gitea-mcp", "old-deploy-key"} {
		if _, err := v.Set(ctx, name, "screenshot-value-of-"+name); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := v.Rotate(ctx, "kanboard-app", "screenshot-value-rotated"); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Revoke(ctx, "old-deploy-key"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(k.docker, "qdrant-api-key"), []byte("screenshot-qdrant-key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestScreenshots draws every page in Chromium, on a desktop and on a
// phone, over a gateway with realistic content. With -update it writes
// them to docs/screenshots (shown in docs/guides/web-panel.md).
func TestScreenshots(t *testing.T) {
	ctx := newChrome(t)
	examples := t.TempDir()
	local := filepath.Join(examples, "payouts-api")
	// Gitea's MCP server behind Bridle (the fake upstream, over HTTP).
	fake := upstreamtest.NewServer()
	up := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return fake }, nil))
	t.Cleanup(up.Close) // after the gateway's stop
	rules := exampleRules(t, local)
	k := newVaultKit(t)
	k.init(t, k.server)
	fillVault(t, k, rules)
	kb := kanboardtest.New(t, "kanboard-app-token-screenshots")
	board := kb.AddProject("Runic")
	e := start(t, []string{"web-console"}, withRules("runic-gateway", rules), k.option(),
		func(c *gateway.Config, o *gateway.Options) {
			o.Examples.Root = examples
			pc := c.Projects["runic-gateway"]
			pc.Upstreams = map[string]gateway.UpstreamConfig{"gitea": {URL: up.URL, BearerToken: "secret:gitea-mcp"}}
			pc.Kanboard = &gateway.KanboardConfig{URL: kb.Endpoint(), User: "jsonrpc", Token: "secret:kanboard-app", Projects: []int{board},
				Agents: map[string]gateway.KanboardUser{"claude": {User: "claude-bot", Token: "secret:kanboard-claude"}}}
			c.Projects["runic-gateway"] = pc
		})
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var bs []gateway.BackendStatus
		e.api(t, "GET", "/api/v1/integrations", nil, &bs)
		if slices.ContainsFunc(bs, func(s gateway.BackendStatus) bool { return s.Name == "upstream:gitea" && s.Up }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the upstream never came up: %+v", bs)
		}
	}
	e.examples = examples
	writeExample(t, e, "payouts-api", 30)
	os.MkdirAll(filepath.Join(local, "internal", "handler"), 0o755)
	os.WriteFile(filepath.Join(local, "internal", "handler", "http.go"), []byte("package handler\n\n// Serve decodes, calls the service, encodes.\nfunc Serve() {}\n"), 0o644)
	os.MkdirAll(filepath.Join(local, "internal", "service"), 0o755)
	os.WriteFile(filepath.Join(local, "internal", "service", "payout.go"), []byte("package service\n\n// CreatePayout validates and stores a payout.\nfunc CreatePayout() error { return nil }\n"), 0o644)

	const p = "runic-gateway"
	claude := e.connect(t, p, e.mint(t, p, "claude"))
	codex := e.connectAs(t, p, e.mint(t, p, "codex"), "codex-mcp-client")
	e.mint(t, p, "kimi")
	tool(t, claude, "propose_guardrail", map[string]any{"id": "no-friday-deploys", "severity": "hard-instruction",
		"statement": "Never deploy to production on a Friday.", "why": "The Friday outage in March took the ledger down for two hours."})
	tool(t, codex, "propose_guardrail", map[string]any{"id": "migrations-reversible", "severity": "guidance",
		"statement": "Every database migration has a tested down step.", "why": "Rolling back 0042 needed a manual fix."})
	tool(t, claude, "propose_guardrail", map[string]any{"id": "explain-retries", "severity": "guidance",
		"statement": "Document every retry policy next to the code that retries.", "why": "Reviewers keep asking why a call retries."})
	for _, m := range []struct{ text, kind, tag string }{
		{"We chose SQLite for the job queue: one file, no server, and the load is a few jobs a minute.", "decision", "queue"},
		{"Payout retries use exponential backoff capped at 5 minutes; the ledger rejects duplicates by idempotency key.", "decision", "payouts"},
		{"The staging database is reset every Monday at 06:00 UTC.", "context", "staging"},
		{"Renamed the risk-engine client to riskclient in #812.", "history", "risk"},
		{"Flaky test: TestLedgerReplay fails under -race about once in 50 runs.", "note", "tests"},
	} {
		tool(t, claude, "remember", map[string]any{"text": m.text, "kind": m.kind, "tags": []string{m.tag}})
	}
	var pr proposals.Proposal
	e.api(t, "POST", "/api/v1/projects/"+p+"/proposals", gateway.ProposeRequest{Change: proposals.Change{Kind: proposals.KindRules,
		Section: "project.name", Value: "Runic Gateway (payments edge)", Rationale: "The product name changed."}}, &pr)
	// One approved in the browser's absence, for the audit timeline.
	e.api(t, "POST", "/api/v1/projects/"+p+"/proposals/2/approve", gateway.ApproveRequest{}, nil)
	req, _ := http.NewRequest("POST", e.url+"/api/v1/projects/"+p+"/patterns/reindex?tag=modified-mvc-payouts", nil)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	progress, _ := io.ReadAll(resp.Body) // to its end: closing sooner cancels the re-index
	resp.Body.Close()
	if !strings.Contains(string(progress), `"result"`) {
		t.Fatalf("re-index: %s", progress)
	}

	shots := map[string][]byte{}
	shot := func(name, path, sel string) {
		t.Helper()
		must(t, ctx, name, chromedp.Navigate(e.url+path), chromedp.WaitVisible(chromedp.CSS(sel)))
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		shots[name] = png
	}
	shot("login", "/login", "#token")
	signIn(t, ctx, e, "/", "table")
	desktop := func(suffix string) {
		shot("overview"+suffix, "/", "table")
		shot("queue"+suffix, "/ui/queue", "table")
		shot("proposal"+suffix, "/ui/projects/"+p+"/proposals/1", ".decide")
		shot("rules"+suffix, "/ui/projects/"+p+"/rules", "table.rules")
		shot("memory"+suffix, "/ui/projects/"+p+"/memory", "ul.memories")
		shot("audit"+suffix, "/ui/audit", "table.audit")
	}
	desktop("")
	shot("render", "/ui/projects/"+p+"/rules/claude", "pre.render")
	// A guardrail's edit unfolded, and the vendor suggestions with one
	// suggestion's promotion unfolded.
	must(t, ctx, "unfold an edit", chromedp.Navigate(e.url+"/ui/projects/"+p+"/rules"), unfold("#edit-no-secret-access", "#e-st-no-secret-access"),
		unfold("#promote-kimi-run-tests-before-done", "#p-sev-kimi-run-tests-before-done"))
	// The clicks scrolled the page, and the sticky bar would be drawn where
	// they left it: back to the top (DevTools' own script, not the page's).
	if _, err := chromedp.Run(ctx, chromedp.EvaluateAsDevTools[bool]("window.scrollTo(0, 0), true")); err != nil {
		t.Fatalf("scroll to the top: %v", err)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot rules-edit: %v", err)
	}
	shots["rules-edit"] = png
	shot("patterns", "/ui/projects/"+p+"/patterns?q=payout+retry+handler", "table")
	shot("agents", "/ui/projects/"+p+"/agents", "table")
	shot("secrets", "/ui/projects/"+p+"/secrets", "table.secrets")
	shot("secrets-setup", "/ui/projects/web-console/secrets", ".setup")
	shot("empty-queue", "/ui/queue?project=web-console", ".empty")
	must(t, ctx, "phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)))
	for _, page := range []struct{ name, path, sel string }{
		{"overview-mobile", "/", "table"}, {"queue-mobile", "/ui/queue", "table"},
		{"proposal-mobile", "/ui/projects/" + p + "/proposals/1", ".decide"}, {"memory-mobile", "/ui/projects/" + p + "/memory", "ul.memories"},
	} {
		shot(page.name, page.path, page.sel)
	}
	if !*update {
		return
	}
	dir := filepath.Join("..", "docs", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, png := range shots {
		if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

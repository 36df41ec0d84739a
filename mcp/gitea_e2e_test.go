package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/internal/giteatest"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/scaffold"
)

func TestMain(m *testing.M) { giteatest.Main(m) }

// TestGiteaFlow is the whole loop on a real Gitea: an agent proposes from
// its MCP client → the pull request exists with the right body and labels →
// a human merges it → the running sidecar serves the new rule with
// approved_by set → the audit shows the chain.
func TestGiteaFlow(t *testing.T) {
	srv := giteatest.Shared(t)
	ctx := context.Background()
	botTok := srv.CreateUser(t, "bridle-bot")
	aliceTok := srv.CreateUser(t, "alice")
	repo := fmt.Sprintf("flow-%d", time.Now().UnixNano()%1e9)
	opts := func(tok string) proposals.GiteaOptions {
		return proposals.GiteaOptions{URL: srv.URL, Token: tok, Owner: srv.AdminUser, Repo: repo}
	}
	admin, _ := proposals.NewGitea(opts(srv.AdminToken))
	files, _ := scaffold.Files("runic-gateway", "test")
	files["bridle.yaml"], _ = os.ReadFile(example + "/bridle.yaml")
	if _, err := admin.Bootstrap(ctx, proposals.BootstrapOptions{Files: files, Writers: []string{"bridle-bot"}, Approvers: []string{"alice"}}); err != nil {
		t.Fatal(err)
	}
	// The sidecar reaches Gitea through a proxy the test can take down: a
	// Gitea that stops answering at the same address.
	target, _ := url.Parse(srv.URL)
	proxy := httptest.NewServer(httputil.NewSingleHostReverseProxy(target))
	defer proxy.Close()
	botOpts := opts(botTok)
	botOpts.URL = proxy.URL
	cache := t.TempDir()
	f := newFixture(t, Options{
		CacheDir:  cache,
		Gitea:     &botOpts,
		Proposals: func() (proposals.Backend, error) { return proposals.NewGitea(botOpts) },
		Refresh:   50 * time.Millisecond,
	})
	cs := f.connect(t, "claude-code", "", nil)

	rules, isErr := callText(t, cs, "get_rules", nil)
	if isErr || !strings.Contains(rules, "project rules for Claude") {
		t.Fatalf("get_rules from Gitea: %.300s", rules)
	}

	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "propose_guardrail", Arguments: map[string]any{
		"id": "log-request-ids", "statement": "Log the request id with every error.", "severity": "hard-instruction",
		"why": "A payout failure took an hour to trace without it.",
	}})
	if err != nil || res.IsError {
		t.Fatalf("propose: %v %+v", err, res)
	}
	var pv ProposalView
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &pv)

	alice, _ := proposals.NewGitea(opts(aliceTok))
	pr, err := alice.Get(ctx, pv.Number)
	if err != nil {
		t.Fatal(err)
	}
	if pr.State != proposals.Open || !strings.HasPrefix(pr.Branch, "bridle/agent/claude/") ||
		!slices.Contains(pr.Labels, "source/agent") || !strings.Contains(pr.Body, "A payout failure took an hour") ||
		!strings.Contains(pr.Body, "Agent `claude`, session `"+f.srv.session+"`") {
		t.Fatalf("pull request = %+v", pr)
	}
	if _, err := alice.Merge(ctx, pv.Number, "", ""); err != nil {
		t.Fatal(err)
	}

	// The sidecar picks the merge up without a restart.
	var g GuardrailView
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_guardrail", Arguments: map[string]any{"id": "log-request-ids"}})
		if err == nil && !res.IsError {
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &g)
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the merged guardrail never reached the sidecar")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if g.Provenance.ApprovedBy != "alice" || g.Provenance.Agent != "claude" || g.Provenance.AgentSession != f.srv.session ||
		g.Provenance.PullRequest != fmt.Sprint(pv.Number) || g.Provenance.Source != "agent" {
		t.Errorf("provenance = %+v", g.Provenance)
	}
	rules, _ = callText(t, cs, "get_rules", nil)
	if !strings.Contains(rules, fmt.Sprintf("via proposal #%d; approved by alice on", pv.Number)) {
		t.Errorf("rendered origin missing:\n%s", rules)
	}

	// The audit timeline shows the chain: the agent's proposal, then the
	// human's merge of it.
	merges, err := compiler.Timeline(compiler.Options{Rules: f.srv.src.Mirror().Dir(), Ref: "main", PRLookup: f.srv.src.Mirror().PRLookup(ctx)})
	if err != nil {
		t.Fatal(err)
	}
	events, _, _ := audit.Open(f.state, "runic-gateway", nil).Read(audit.Filter{})
	chain := audit.Combine(audit.Filter{Agent: "claude"}, events, audit.FromMerges("runic-gateway", merges))
	var kinds []string
	for _, e := range chain {
		kinds = append(kinds, e.Kind)
	}
	if len(chain) != 2 || chain[0].Kind != audit.KindWrite || chain[0].Tool != "propose_guardrail" ||
		chain[1].Kind != audit.KindMerge || chain[1].Detail["approved_by"] != "alice" || chain[1].Session != f.srv.session {
		t.Errorf("timeline = %v: %+v", kinds, chain)
	}

	// Gitea down: a new sidecar on the same cache keeps serving, marked stale.
	proxy.Close()
	f2 := newFixture(t, Options{Gitea: &botOpts, CacheDir: cache})
	got, isErr := callText(t, f2.connect(t, "claude-code", "", nil), "get_rules", nil)
	if isErr || !strings.Contains(got, "**Stale rules.**") || !strings.Contains(got, "log-request-ids") {
		t.Errorf("with Gitea down:\n%.500s", got)
	}
}

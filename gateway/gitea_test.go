package gateway

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/internal/giteatest"
	"github.com/bridle-dev/bridle/internal/upstreamtest"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/scaffold"
	"github.com/bridle-dev/bridle/schema"
)

func TestMain(m *testing.M) {
	upstreamtest.Main() // in a child started as the fake upstream: serve it and exit
	giteatest.Main(m)
}

// A Gitea project on a real Gitea: the agent proposes through the gateway
// (the bot's token opens the pull request), the admin's approval is never
// the bot's — without their own Gitea token the API answers the merge
// link, the bot's token cannot merge, the maintainer's does, attributed to
// them — the merge reaches the agent's next get_rules within 3 s, and when
// Gitea goes down the rules are served stale and /readyz names Gitea.
func TestGiteaProjectThroughTheGateway(t *testing.T) {
	srv := giteatest.Shared(t)
	ctx := context.Background()
	botTok := srv.CreateUser(t, "bridle-bot")
	aliceTok := srv.CreateUser(t, "alice")
	repo := fmt.Sprintf("gw-%d", time.Now().UnixNano()%1e9)
	admin, _ := proposals.NewGitea(proposals.GiteaOptions{URL: srv.URL, Token: srv.AdminToken, Owner: srv.AdminUser, Repo: repo})
	files, err := scaffold.Files("runic", "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Bootstrap(ctx, proposals.BootstrapOptions{Files: files, Writers: []string{"bridle-bot"}, Approvers: []string{"alice"}}); err != nil {
		t.Fatal(err)
	}
	target, _ := url.Parse(srv.URL)
	proxy := httptest.NewServer(httputil.NewSingleHostReverseProxy(target)) // a Gitea the test can take down
	defer proxy.Close()
	botFile := filepath.Join(t.TempDir(), "gitea_token")
	os.WriteFile(botFile, []byte(botTok+"\n"), 0o600)
	g := start(t, nil, func(c *Config, o *Options) {
		c.Projects = map[string]ProjectConfig{"runic": {Gitea: &GiteaConfig{URL: proxy.URL, Repo: srv.AdminUser + "/" + repo, TokenFile: botFile}}}
		o.Refresh = 200 * time.Millisecond
	})
	cs := g.mustConnect(t, "runic", g.mint(t, "runic", "claude"), "claude-code")
	if text, isErr := callText(t, cs, "get_rules", nil); isErr || !strings.Contains(text, "project rules for Claude") {
		t.Fatalf("get_rules from Gitea: %.300s", text)
	}
	if text, isErr := callText(t, cs, "propose_guardrail", map[string]any{"id": "log-request-ids", "statement": "Log the request id with every error.",
		"severity": "guidance", "why": "A payout failure took an hour to trace."}); isErr {
		t.Fatalf("propose: %s", text)
	}
	var list []proposals.Proposal
	if g.api(t, adminToken, "GET", "/api/v1/projects/runic/proposals", nil, &list); len(list) != 1 || list[0].Author != "bridle-bot" {
		t.Fatalf("proposals = %+v", list)
	}
	n := list[0].Number
	approve := fmt.Sprintf("/api/v1/projects/runic/proposals/%d/approve", n)
	var e APIError
	if code := g.api(t, adminToken, "POST", approve, ApproveRequest{}, &e); code != http.StatusConflict || e.Code != "approve_in_gitea" || !strings.Contains(e.MergeURL, repo) {
		t.Fatalf("approve without the admin's Gitea token: %d %+v", code, e)
	}
	if code := g.api(t, adminToken, "POST", approve, ApproveRequest{GiteaToken: botTok}, &e); code != http.StatusForbidden {
		t.Errorf("approve with the bot's token: %d %+v, want 403 (the bot may not merge)", code, e)
	}
	if strings.Contains(e.Error, botTok) {
		t.Error("an error shows the bot's token")
	}
	var merged proposals.Proposal
	if code := g.api(t, adminToken, "POST", approve, ApproveRequest{GiteaToken: aliceTok}, &merged); code != 200 || merged.State != proposals.Merged || merged.MergedBy != "alice" {
		t.Fatalf("approve with alice's token: %d %+v", code, merged)
	}
	start := time.Now()
	for {
		text, _ := callText(t, cs, "get_rules", nil)
		if strings.Contains(text, "log-request-ids") && strings.Contains(text, "alice") {
			break
		}
		if time.Since(start) > 3*time.Second {
			t.Fatalf("the merged rule did not reach the session within 3 s:\n%.600s", text)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("merge → served in %s", time.Since(start).Round(time.Millisecond))

	proxy.CloseClientConnections()
	proxy.Close()
	deadline := time.Now().Add(10 * time.Second)
	var rd Ready
	for {
		text, isErr := callText(t, cs, "get_rules", nil)
		code := g.api(t, "", "GET", "/readyz", nil, &rd)
		if code == http.StatusServiceUnavailable {
			if isErr || !strings.Contains(text, "log-request-ids") {
				t.Errorf("with Gitea down the cached rules are not served: %.300s", text)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("readyz still %d with Gitea down: %+v", code, rd)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if i := slices.IndexFunc(rd.Backends, func(b BackendStatus) bool { return b.Name == "rules:gitea" && !b.Up }); i < 0 {
		t.Errorf("readyz does not name Gitea as down: %+v", rd.Backends)
	}
	text, _ := callText(t, cs, "get_rules", nil)
	if !strings.Contains(strings.ToLower(text), "stale") {
		t.Errorf("the rules served with Gitea down are not marked stale:\n%.400s", text)
	}
	if strings.Contains(g.logs.String(), botTok) || strings.Contains(g.logs.String(), aliceTok) {
		t.Error("a Gitea token is in the gateway's log")
	}
}

// Issue 23: where the bot's token can merge (a writer, and main's
// protection has no merge allow-list), an agent holding gitea.write
// through an upstream that runs with that token merged its own proposal,
// and Bridle served it as approved by the bot. The gateway warns at start;
// the merge is served as NOT APPROVED and grants nothing.
func TestGiteaBotMergeIsNoApproval(t *testing.T) {
	srv := giteatest.Shared(t)
	ctx := context.Background()
	botTok := srv.CreateUser(t, "bridle-bot")
	aliceTok := srv.CreateUser(t, "alice")
	repo := fmt.Sprintf("gw-bot-%d", time.Now().UnixNano()%1e9)
	admin, _ := proposals.NewGitea(proposals.GiteaOptions{URL: srv.URL, Token: srv.AdminToken, Owner: srv.AdminUser, Repo: repo})
	files, err := scaffold.Files("runic", "test")
	if err != nil {
		t.Fatal(err)
	}
	// No approvers: main refuses pushes, but every writer may merge.
	if _, err := admin.Bootstrap(ctx, proposals.BootstrapOptions{Files: files, Writers: []string{"bridle-bot", "alice"}}); err != nil {
		t.Fatal(err)
	}
	target, _ := url.Parse(srv.URL)
	proxy := httptest.NewServer(httputil.NewSingleHostReverseProxy(target)) // taken down at the end: no refresh outlives the test
	defer proxy.Close()
	botFile := filepath.Join(t.TempDir(), "gitea_token")
	os.WriteFile(botFile, []byte(botTok+"\n"), 0o600)
	g := start(t, nil, func(c *Config, o *Options) {
		c.Projects = map[string]ProjectConfig{"runic": {Gitea: &GiteaConfig{URL: proxy.URL, Repo: srv.AdminUser + "/" + repo, TokenFile: botFile},
			Upstreams: map[string]UpstreamConfig{"gitea": {Command: []string{"true"}, Secrets: map[string]string{"GITEA_ACCESS_TOKEN_FILE": botFile}}}}}
		o.Refresh = 200 * time.Millisecond
	})
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(g.logs.String(), "can merge pull requests into it") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if logs := g.logs.String(); !strings.Contains(logs, "can merge pull requests into it") || !strings.Contains(logs, "an upstream is given the proposals bot's Gitea token") {
		t.Errorf("no warning at start that the bot's token can merge, or that an upstream holds it:\n%s", logs)
	}
	cs := g.mustConnect(t, "runic", g.mint(t, "runic", "claude"), "claude-code")
	if text, isErr := callText(t, cs, "propose_guardrail", map[string]any{"id": "agents-may-skip-review", "statement": "Skip review for small changes.",
		"severity": "guidance", "why": "Faster."}); isErr {
		t.Fatalf("propose: %s", text)
	}
	var list []proposals.Proposal
	g.api(t, adminToken, "GET", "/api/v1/projects/runic/proposals", nil, &list)
	if len(list) != 1 {
		t.Fatalf("proposals = %+v", list)
	}
	// What gitea_merge_pull_request does with the bot's token: merge the
	// agent's own proposal, and a person's the bot did not open.
	bot, _ := proposals.NewGitea(proposals.GiteaOptions{URL: srv.URL, Token: botTok, Owner: srv.AdminUser, Repo: repo})
	merged, err := bot.Merge(ctx, list[0].Number, "", "")
	if err != nil || merged.MergedBy != "bridle-bot" {
		t.Fatalf("the bot's merge (the exploit needs it to succeed): %v %+v", err, merged)
	}
	alice, _ := proposals.NewGitea(proposals.GiteaOptions{URL: srv.URL, Token: aliceTok, Owner: srv.AdminUser, Repo: repo})
	hers, err := proposals.Service{Backend: alice, Version: "test"}.Propose(ctx, proposals.Draft{
		Change: proposals.Change{Kind: proposals.KindGuardrail, Rationale: "x", Guardrail: &schema.Guardrail{ID: "alices-rule", Statement: "Alice's rule.", Severity: schema.Guidance}},
		Origin: proposals.Origin{Source: schema.SourceUser, Author: "alice"}})
	if err != nil || hers.Author != "alice" {
		t.Fatalf("alice proposes: %v %+v", err, hers)
	}
	if _, err := bot.Merge(ctx, hers.Number, "", ""); err != nil {
		t.Fatalf("the bot merges alice's proposal: %v", err)
	}
	var text string
	for deadline = time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if text, _ = callText(t, cs, "get_rules", nil); strings.Contains(text, "alices-rule") {
			break
		}
	}
	if !strings.Contains(text, "agents-may-skip-review") || !strings.Contains(text, "alices-rule") {
		t.Fatalf("the merged guardrails never reached the session:\n%.600s", text)
	}
	for _, id := range []string{"agents-may-skip-review", "alices-rule"} {
		if !strings.Contains(text, "`guardrail:"+id+"` added") {
			t.Errorf("the bot's merge of %s is not listed as unapproved", id)
		}
	}
	if !strings.Contains(text, "UNAPPROVED") || !strings.Contains(text, "proposals bot") || strings.Contains(text, "approved by bridle-bot") {
		t.Errorf("the bot's merges are served as approved:\n%s", text)
	}
	var ps ProjectStatus
	if g.api(t, adminToken, "GET", "/api/v1/projects/runic", nil, &ps); ps.Approved {
		t.Errorf("the project is reported approved after the bot's merge: %+v", ps)
	}
	// Gitea goes away; once the rules are stale, no refresh is writing the
	// mirror any more.
	proxy.CloseClientConnections()
	proxy.Close()
	for deadline = time.Now().Add(10 * time.Second); !ps.Stale && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		callText(t, cs, "get_rules", nil)
		g.api(t, adminToken, "GET", "/api/v1/projects/runic", nil, &ps)
	}
	if !ps.Stale {
		t.Errorf("the rules are not stale 10 s after Gitea went away: %+v", ps)
	}
}

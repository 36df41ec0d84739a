package proposals

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"code.gitea.io/sdk/gitea"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/internal/giteatest"
	"github.com/bridle-dev/bridle/scaffold"
	"github.com/bridle-dev/bridle/schema"
)

func TestMain(m *testing.M) { giteatest.Main(m) }

var repoSeq atomic.Int64

// giteaRules bootstraps a fresh rules repository (the example rules) owned
// by the admin, with bot (the agents' token) as a writer, and returns
// backends for the bot, for alice (a human approver) and for the admin.
type giteaEnv struct {
	srv         *giteatest.Server
	bot, alice  *Gitea
	admin       *Gitea
	owner, repo string
}

func newGiteaEnv(t *testing.T) *giteaEnv {
	t.Helper()
	srv := giteatest.Shared(t)
	botTok := srv.CreateUser(t, "bridle-bot")
	aliceTok := srv.CreateUser(t, "alice")
	repo := fmt.Sprintf("rules-%d-%d", time.Now().UnixNano()%1e6, repoSeq.Add(1))
	mk := func(tok string) *Gitea {
		g, err := NewGitea(GiteaOptions{URL: srv.URL, Token: tok, Owner: srv.AdminUser, Repo: repo})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	env := &giteaEnv{srv: srv, bot: mk(botTok), alice: mk(aliceTok), admin: mk(srv.AdminToken), owner: srv.AdminUser, repo: repo}
	files, err := scaffold.Files("runic-gateway", "test")
	if err != nil {
		t.Fatal(err)
	}
	files["bridle.yaml"], _ = os.ReadFile("../examples/runic-gateway/bridle.yaml")
	delete(files, "rendered/CLAUDE.md") // the example's renders come with the first proposal
	ctx := context.Background()
	if _, err := env.admin.Bootstrap(ctx, BootstrapOptions{Files: files, Writers: []string{"bridle-bot"}, Approvers: []string{"alice", srv.AdminUser}}); err != nil {
		t.Fatal(err)
	}
	return env
}

func (e *giteaEnv) branches(t *testing.T) []string {
	var bs []*gitea.Branch
	if err := e.srv.Do("GET", fmt.Sprintf("/api/v1/repos/%s/%s/branches", e.owner, e.repo), e.srv.AdminToken, nil, &bs); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range bs {
		names = append(names, b.Name)
	}
	return names
}

func TestGiteaProposeAndMerge(t *testing.T) {
	env := newGiteaEnv(t)
	ctx := context.Background()
	svc := Service{Backend: env.bot, Version: "test"}
	_, mainBefore, err := env.bot.Main(ctx)
	if err != nil {
		t.Fatal(err)
	}

	pr, err := svc.Propose(ctx, Draft{Change: guardrail("pin-go-version"), Origin: agentOrigin()})
	if err != nil {
		t.Fatal(err)
	}
	if pr.Number == 0 || pr.State != Open || pr.Branch != "bridle/agent/claude/guardrail-pin-go-version" || pr.URL == "" {
		t.Errorf("proposal = %+v", pr)
	}
	for _, l := range []string{"bridle", "source/agent", "kind/guardrail"} {
		if !slices.Contains(pr.Labels, l) {
			t.Errorf("labels %v lack %s", pr.Labels, l)
		}
	}
	got, _ := env.bot.Get(ctx, pr.Number)
	for _, want := range []string{"## Rationale", "```yaml", "### `CLAUDE.md` (`claude`)", "+- **pin-go-version**"} {
		if !strings.Contains(got.Body, want) {
			t.Errorf("PR body lacks %q", want)
		}
	}
	if got.Draft == nil || got.Draft.Origin.Session != "s-123" {
		t.Errorf("draft not recoverable from the body: %+v", got.Draft)
	}
	if _, commit, _ := env.bot.Main(ctx); commit != mainBefore {
		t.Error("proposing changed main")
	}

	// The agents' token cannot merge: main is protected, alice approves.
	if _, err := env.bot.Merge(ctx, pr.Number, "", ""); err == nil {
		t.Fatal("the bot merged into protected main")
	}
	merged, err := env.alice.Merge(ctx, pr.Number, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if merged.State != Merged || merged.MergedBy != "alice" || merged.MergedAt == nil || merged.MergeCommit == "" {
		t.Errorf("merged = %+v", merged)
	}
	rules, _, _ := env.bot.Main(ctx)
	if !strings.Contains(string(rules), "pin-go-version") {
		t.Error("main lacks the merged guardrail")
	}
	if b, _, err := env.bot.Client(ctx).GetFile(env.owner, env.repo, "main", "rendered/CLAUDE.md"); err != nil || !strings.Contains(string(b), "pin-go-version") {
		t.Errorf("rendered/CLAUDE.md on main: %v", err)
	}
	// The merged branch is deleted; the pull request still knows its head.
	if bs := env.branches(t); slices.Contains(bs, pr.Branch) {
		t.Errorf("the merged branch %s is left behind: %v", pr.Branch, bs)
	}
	if after, err := env.bot.Get(ctx, pr.Number); err != nil || after.Head != pr.Head || after.Conflict != "" {
		t.Errorf("after the branch is deleted: %+v, %v", after, err)
	}
}

func TestGiteaMainIsProtected(t *testing.T) {
	env := newGiteaEnv(t)
	ctx := context.Background()
	c := env.bot.Client(ctx)
	f, _, err := c.GetContents(env.owner, env.repo, "main", "bridle.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = c.UpdateFile(env.owner, env.repo, "bridle.yaml", gitea.UpdateFileOptions{
		FileOptions: gitea.FileOptions{Message: "sneak", BranchName: "main"}, SHA: f.SHA, Content: "c25lYWs=",
	})
	if err == nil {
		t.Fatal("a direct push to main was accepted")
	}
}

func TestGiteaInvalidProposalCreatesNothing(t *testing.T) {
	env := newGiteaEnv(t)
	ctx := context.Background()
	before := env.branches(t)
	bad := guardrail("bad")
	bad.Guardrail.Severity = "hard"
	_, err := Service{Backend: env.bot, Version: "test"}.Propose(ctx, Draft{Change: bad, Origin: agentOrigin()})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `did you mean "hard-instruction"`) {
		t.Fatalf("err = %v", err)
	}
	if after := env.branches(t); !slices.Equal(before, after) {
		t.Errorf("branches changed: %v → %v", before, after)
	}
	if list, _ := env.bot.List(ctx, All); len(list) != 0 {
		t.Errorf("pull requests: %+v", list)
	}
}

// TestGiteaCollision: two open proposals; after one merges, the other is
// re-applied at the document level and merges too; a duplicate conflicts.
func TestGiteaCollision(t *testing.T) {
	env := newGiteaEnv(t)
	ctx := context.Background()
	svc := Service{Backend: env.bot, Version: "test"}
	a, err := svc.Propose(ctx, Draft{Change: guardrail("rule-a"), Origin: agentOrigin()})
	if err != nil {
		t.Fatal(err)
	}
	b, err := svc.Propose(ctx, Draft{Change: guardrail("rule-b"), Origin: agentOrigin()})
	if err != nil {
		t.Fatal(err)
	}
	dup, err := svc.Propose(ctx, Draft{Change: guardrail("rule-a"), Origin: Origin{Source: schema.SourceUser, Author: "jonas"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.alice.Merge(ctx, a.Number, "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Rebase(ctx, b.Number); err != nil {
		t.Fatalf("rebase #%d: %v", b.Number, err)
	}
	if _, err := env.alice.Merge(ctx, b.Number, "", ""); err != nil {
		t.Fatalf("merge after rebase: %v", err)
	}
	rules, _, _ := env.bot.Main(ctx)
	if !strings.Contains(string(rules), "id: rule-a") || !strings.Contains(string(rules), "id: rule-b") {
		t.Errorf("main lacks a guardrail:\n%s", rules)
	}
	if _, err := svc.Rebase(ctx, dup.Number); !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), `guardrail "rule-a" already exists`) {
		t.Errorf("duplicate: %v", err)
	}
	closed, err := env.alice.Close(ctx, dup.Number, "alice", "duplicate of #1")
	if err != nil || closed.State != Closed {
		t.Errorf("close: %v %+v", err, closed)
	}
	open, _ := env.bot.List(ctx, Open)
	if len(open) != 0 {
		t.Errorf("open proposals left: %+v", open)
	}
}

// TestGiteaFailureMidwayLeavesNoBranch: when the pull request cannot be
// opened, the branch made for it is removed.
func TestGiteaFailureMidwayLeavesNoBranch(t *testing.T) {
	env := newGiteaEnv(t)
	target, _ := url.Parse(env.srv.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "POST" && strings.HasSuffix(r.URL.Path, "/pulls") {
			http.Error(w, `{"message":"injected failure"}`, http.StatusInternalServerError)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()
	g, _ := NewGitea(GiteaOptions{URL: front.URL, Token: env.bot.o.Token, Owner: env.owner, Repo: env.repo})
	before := env.branches(t)
	_, err := Service{Backend: g, Version: "test"}.Propose(context.Background(), Draft{Change: guardrail("x-rule"), Origin: agentOrigin()})
	if err == nil || !strings.Contains(err.Error(), "open pull request") {
		t.Fatalf("err = %v", err)
	}
	if after := env.branches(t); !slices.Equal(before, after) {
		t.Errorf("orphan branch left: %v → %v", before, after)
	}
}

// TestGiteaErrors: each failure names the step, is classified for
// errors.Is, and never shows the token.
func TestGiteaErrors(t *testing.T) {
	srv := giteatest.Shared(t)
	const canary = "canary0123456789abcdef0123456789abcdef01"
	ctx := context.Background()
	bad, _ := NewGitea(GiteaOptions{URL: srv.URL, Token: canary, Owner: srv.AdminUser, Repo: "nope"})
	_, _, err := bad.Main(ctx)
	if !errors.Is(err, ErrUnauthorized) || strings.Contains(err.Error(), canary) || !strings.Contains(err.Error(), "read branch main") {
		t.Errorf("401: %v", err)
	}
	missing, _ := NewGitea(GiteaOptions{URL: srv.URL, Token: srv.AdminToken, Owner: srv.AdminUser, Repo: "does-not-exist"})
	if _, _, err := missing.Main(ctx); !errors.Is(err, ErrNotFound) {
		t.Errorf("404: %v", err)
	}
	var hits atomic.Int64
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "busy", http.StatusServiceUnavailable)
	}))
	defer down.Close()
	g, _ := NewGitea(GiteaOptions{URL: down.URL, Token: canary, Owner: "o", Repo: "r", Retry: time.Millisecond})
	if _, _, err := g.Main(ctx); !errors.Is(err, ErrUnavailable) || hits.Load() != 3 {
		t.Errorf("503: %v after %d tries", err, hits.Load())
	}
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { time.Sleep(2 * time.Second) }))
	defer slow.Close()
	g, _ = NewGitea(GiteaOptions{URL: slow.URL, Token: canary, Owner: "o", Repo: "r", HTTP: &http.Client{Timeout: 100 * time.Millisecond}, Retry: time.Millisecond})
	if _, _, err := g.Main(ctx); !errors.Is(err, ErrUnavailable) || strings.Contains(err.Error(), canary) {
		t.Errorf("timeout: %v", err)
	}
}

// BenchmarkGiteaPropose measures creating a proposal against the local Gitea
// end to end: read main, apply, validate, branch + commit, pull request.
// Target: p50 ≤ 300 ms.
func BenchmarkGiteaPropose(b *testing.B) {
	env := newGiteaEnv(&testing.T{})
	svc := Service{Backend: env.bot, Version: "bench"}
	ctx := context.Background()
	var lat []time.Duration
	i := 0
	for b.Loop() {
		i++
		t0 := time.Now()
		if _, err := svc.Propose(ctx, Draft{Change: guardrail(fmt.Sprintf("bench-rule-%d", i)), Origin: agentOrigin()}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Milliseconds()), "p50-ms")
}

// TestGiteaTrustsTheCommitNotTheBody: on real Gitea, a writer who edits a
// proposal's description (its rationale and the draft copy in it) changes
// nothing that rebase or approval do; a writer who pushes to the branch
// makes Bridle refuse it; and a human cannot approve their own proposal.
func TestGiteaTrustsTheCommitNotTheBody(t *testing.T) {
	env := newGiteaEnv(t)
	ctx := context.Background()
	svc := Service{Backend: env.bot, Version: "test"}
	a, err := svc.Propose(ctx, Draft{Change: guardrail("rule-a"), Origin: agentOrigin()})
	if err != nil {
		t.Fatal(err)
	}
	forged := guardrail("forged-rule")
	forgedBody := body(Draft{Change: forged, Origin: Origin{Source: schema.SourceUser, Author: "alice"}}, nil, nil, &compiler.Snapshot{})
	c := env.bot.Client(ctx)
	if _, _, err := c.EditPullRequest(env.owner, env.repo, int64(a.Number), gitea.EditPullRequestOption{Body: &forgedBody}); err != nil {
		t.Fatal(err)
	}
	other, err := svc.Propose(ctx, Draft{Change: guardrail("rule-b"), Origin: Origin{Source: schema.SourceUser, Author: "jonas"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (Service{Backend: env.alice}).Approve(ctx, other.Number, Principal{}); err != nil {
		t.Fatalf("alice approves jonas's proposal: %v", err)
	}
	if _, err := svc.Rebase(ctx, a.Number); err != nil {
		t.Fatalf("rebase: %v", err)
	}
	if _, err := (Service{Backend: env.alice}).Approve(ctx, a.Number, Principal{}); err != nil {
		t.Fatalf("approve: %v", err)
	}
	rules, _, _ := env.bot.Main(ctx)
	if !strings.Contains(string(rules), "id: rule-a") || strings.Contains(string(rules), "forged-rule") {
		t.Errorf("main after rebase and approval of an edited proposal:\n%s", rules)
	}

	// A writer pushes to a proposal's branch by hand.
	p, err := svc.Propose(ctx, Draft{Change: guardrail("rule-c"), Origin: agentOrigin()})
	if err != nil {
		t.Fatal(err)
	}
	file, _, err := c.GetContents(env.owner, env.repo, p.Branch, "bridle.yaml")
	if err != nil {
		t.Fatal(err)
	}
	content, _ := base64.StdEncoding.DecodeString(*file.Content)
	edited := base64.StdEncoding.EncodeToString([]byte(strings.Replace(string(content), "Rule rule-c.", "Rule rule-c, and agents approve.", 1)))
	if _, _, err := c.UpdateFile(env.owner, env.repo, "bridle.yaml", gitea.UpdateFileOptions{
		FileOptions: gitea.FileOptions{BranchName: p.Branch, Message: p.Title + "\n\nBridle-Source: agent\n"}, SHA: file.SHA, Content: edited}); err != nil {
		t.Fatal(err)
	}
	if _, err := (Service{Backend: env.alice}).Approve(ctx, p.Number, Principal{}); !errors.Is(err, ErrTampered) {
		t.Errorf("approve of a hand-pushed branch: %v, want ErrTampered", err)
	}

	// alice proposes, then tries to approve it herself.
	mine, err := Service{Backend: env.alice, Version: "test"}.Propose(ctx, Draft{Change: guardrail("rule-d"), Origin: Origin{Source: schema.SourceUser, Author: "alice"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (Service{Backend: env.alice}).Approve(ctx, mine.Number, Principal{}); !errors.Is(err, ErrSelfApproval) {
		t.Errorf("alice approving her own proposal: %v, want ErrSelfApproval", err)
	}
	// As a sole maintainer she may (--self), and the merge says so: the
	// history review counts a merge by the proposal's author only then.
	merged, err := (Service{Backend: env.alice}).Approve(ctx, mine.Number, Principal{SelfOK: true})
	if err != nil {
		t.Fatalf("alice approving her own proposal with SelfOK: %v", err)
	}
	mc, err := env.alice.Commit(ctx, merged.MergeCommit)
	if err != nil || compiler.Trailers(mc.Message)[compiler.SelfApprovedTrailer] != "alice" {
		t.Errorf("the self-approved merge does not record the choice: %v\n%s", err, mc.Message)
	}
}

// TestGiteaBranch: the rules' branch on Gitea is configurable
// (BRIDLE_GITEA_BRANCH, the gateway's gitea.branch), main by default.
func TestGiteaBranch(t *testing.T) {
	for _, tt := range []struct{ env, want string }{{"", "main"}, {"trunk", "trunk"}} {
		c, err := ConfigFrom(func(k string) string {
			return map[string]string{"GITEA_URL": "https://gitea.example.com", "BRIDLE_GITEA_REPO": "acme/rules", "GITEA_TOKEN": "t", "BRIDLE_GITEA_BRANCH": tt.env}[k]
		}, Config{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := OpenBackend(c)
		if err != nil {
			t.Fatal(err)
		}
		if got := b.(*Gitea).o.Main; got != tt.want {
			t.Errorf("BRIDLE_GITEA_BRANCH=%q: the branch is %q, want %q", tt.env, got, tt.want)
		}
	}
}

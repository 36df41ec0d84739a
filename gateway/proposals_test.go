package gateway

import (
	"fmt"
	"github.com/bridle-dev/bridle/actor"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/vendorsync"
)

// Proposals through the admin API: listed, shown with what approving
// merges and each agent's render diff, approved as the admin (never as the
// server), rejected with a reason; both audited as the user's.
func TestProposalsThroughTheAdminAPI(t *testing.T) {
	g := twoProjects(t)
	tok := g.mint(t, "alpha", "claude")
	cs := g.mustConnect(t, "alpha", tok, "claude-code")
	for _, id := range []string{"no-force-push", "no-secrets-in-logs"} {
		if text, isErr := callText(t, cs, "propose_guardrail", map[string]any{"id": id, "statement": "Never do " + id + ".", "severity": "guidance", "why": "We lost work."}); isErr {
			t.Fatalf("propose %s: %s", id, text)
		}
	}
	var list []proposals.Proposal
	if code := g.api(t, adminToken, "GET", "/api/v1/projects/alpha/proposals", nil, &list); code != 200 || len(list) != 2 {
		t.Fatalf("list: %d %+v", code, list)
	}
	// beta sees none of alpha's proposals.
	var other []proposals.Proposal
	if g.api(t, adminToken, "GET", "/api/v1/projects/beta/proposals", nil, &other); len(other) != 0 {
		t.Errorf("beta lists alpha's proposals: %+v", other)
	}
	var v ProposalView
	if code := g.api(t, adminToken, "GET", "/api/v1/projects/alpha/proposals/1", nil, &v); code != 200 {
		t.Fatalf("show: %d", code)
	}
	if v.Recorded == nil || v.Origin == nil || v.Origin.Agent != "claude" || len(v.Diffs) == 0 {
		t.Fatalf("show = %+v", v)
	}
	changed := false
	for _, d := range v.Diffs {
		changed = changed || strings.Contains(d.Diff, "+") && strings.Contains(d.Diff, "no-force-push")
	}
	if !changed {
		t.Errorf("no agent's render diff shows the new guardrail: %+v", v.Diffs)
	}
	var merged proposals.Proposal
	if code := g.api(t, adminToken, "POST", "/api/v1/projects/alpha/proposals/1/approve", ApproveRequest{}, &merged); code != 200 || merged.State != proposals.Merged || merged.MergedBy != "Mira Rossi" {
		t.Fatalf("approve: %d %+v", code, merged)
	}
	var e APIError
	if code := g.api(t, adminToken, "POST", "/api/v1/projects/alpha/proposals/1/approve", ApproveRequest{}, &e); code != http.StatusConflict {
		t.Errorf("approving a merged proposal: %d %+v", code, e)
	}
	var closed proposals.Proposal
	if code := g.api(t, adminToken, "POST", "/api/v1/projects/alpha/proposals/2/reject", RejectRequest{Reason: "Not now."}, &closed); code != 200 || closed.State != proposals.Closed {
		t.Fatalf("reject: %d %+v", code, closed)
	}
	for _, bad := range []string{"/api/v1/projects/alpha/proposals/x", "/api/v1/projects/alpha/proposals/-1", "/api/v1/projects/alpha/proposals/0"} {
		if code := g.api(t, adminToken, "GET", bad, nil, &e); code != http.StatusBadRequest {
			t.Errorf("GET %s: %d, want 400", bad, code)
		}
	}
	if code := g.api(t, adminToken, "GET", "/api/v1/projects/alpha/proposals/99", nil, &e); code != http.StatusNotFound {
		t.Errorf("a proposal that does not exist: %d, want 404", code)
	}
	if code := g.api(t, adminToken, "GET", "/api/v1/projects/alpha/proposals?state=bogus", nil, &e); code != http.StatusBadRequest {
		t.Errorf("a bad state: %d, want 400", code)
	}
	var events []audit.Event
	g.api(t, adminToken, "GET", "/api/v1/audit?project=alpha&source=user&kind=admin", nil, &events)
	var sums []string
	for _, e := range events {
		sums = append(sums, e.Summary)
	}
	joined := strings.Join(sums, "|")
	if !strings.Contains(joined, "approved proposal #1") || !strings.Contains(joined, "rejected proposal #2") {
		t.Errorf("audit (user) = %v", sums)
	}
	// Each names who acted: the admin credential's holder, as break-glass.
	for _, e := range events {
		if e.Actor == nil || *e.Actor != actor.BreakGlass("Mira Rossi", "") {
			t.Errorf("audit event %q names %+v, want the break-glass admin", e.Summary, e.Actor)
		}
	}
	// The agent sees the approved rule within a refresh.
	deadline := time.Now().Add(5 * time.Second)
	for {
		text, _ := callText(t, cs, "get_rules", nil)
		if strings.Contains(text, "no-force-push") && strings.Contains(text, "Mira Rossi") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the approved guardrail is not served as approved by the admin:\n%s", text)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Memory through the admin API: browse, search, forget, and a purge that
// deletes only when confirm is the number it matches; per project.
func TestMemoryThroughTheAdminAPI(t *testing.T) {
	g := twoProjects(t)
	for _, p := range []string{"alpha", "beta"} {
		cs := g.mustConnect(t, p, g.mint(t, p, "claude"), "claude-code")
		for _, text := range []string{p + ": we chose SQLite for the queue.", p + ": the outbox drains every second."} {
			if out, isErr := callText(t, cs, "remember", map[string]any{"text": text, "kind": "decision"}); isErr {
				t.Fatalf("remember: %s", out)
			}
		}
	}
	var mems []MemoryView
	g.api(t, adminToken, "GET", "/api/v1/projects/alpha/memory", nil, &mems)
	if len(mems) != 2 {
		t.Fatalf("alpha's memory = %+v", mems)
	}
	for _, m := range mems {
		if !strings.HasPrefix(m.Text, "alpha:") {
			t.Errorf("alpha's memory holds %q", m.Text)
		}
	}
	var e APIError
	// beta's memory id is unknown to alpha.
	var bm []MemoryView
	g.api(t, adminToken, "GET", "/api/v1/projects/beta/memory?q=queue", nil, &bm)
	if len(bm) == 0 || !strings.HasPrefix(bm[0].Text, "beta:") {
		t.Fatalf("beta's search = %+v", bm)
	}
	if code := g.api(t, adminToken, "DELETE", "/api/v1/projects/alpha/memory/"+bm[0].ID, nil, &e); code != http.StatusNotFound {
		t.Errorf("forgetting beta's memory through alpha: %d", code)
	}
	var pr Purged
	g.api(t, adminToken, "POST", "/api/v1/projects/alpha/memory/purge", PurgeRequest{Kind: "decision"}, &pr)
	if pr.Matched != 2 || pr.Purged != 0 || !strings.Contains(pr.Confirm, "confirm: 2") {
		t.Errorf("dry run = %+v", pr)
	}
	g.api(t, adminToken, "POST", "/api/v1/projects/alpha/memory/purge", PurgeRequest{Kind: "decision", Confirm: 3}, &pr)
	if pr.Purged != 0 {
		t.Errorf("a wrong confirm purged: %+v", pr)
	}
	g.api(t, adminToken, "POST", "/api/v1/projects/alpha/memory/purge", PurgeRequest{Kind: "decision", Confirm: 2}, &pr)
	if pr.Purged != 2 {
		t.Errorf("purge = %+v", pr)
	}
	g.api(t, adminToken, "GET", "/api/v1/projects/beta/memory", nil, &bm)
	if len(bm) != 2 {
		t.Errorf("purging alpha touched beta: %+v", bm)
	}
	for _, bad := range []string{"?kind=bogus", "?limit=0", "?limit=x", "?limit=100000"} {
		if code := g.api(t, adminToken, "GET", "/api/v1/projects/alpha/memory"+bad, nil, &e); code != http.StatusBadRequest {
			t.Errorf("memory%s: %d, want 400", bad, code)
		}
	}
	if code := g.api(t, adminToken, "GET", "/api/v1/projects/alpha/memory?q="+strings.Repeat("x", 3000), nil, &e); code != http.StatusBadRequest {
		t.Errorf("an oversized query: %d, want 400", code)
	}
}

// The audit timeline filters; bad filters are 400.
func TestAuditFilters(t *testing.T) {
	g := twoProjects(t)
	g.mint(t, "alpha", "claude")
	g.mint(t, "beta", "codex")
	var events []audit.Event
	g.api(t, adminToken, "GET", "/api/v1/audit", nil, &events)
	if len(events) != 2 {
		t.Fatalf("audit = %+v", events)
	}
	g.api(t, adminToken, "GET", "/api/v1/audit?project=beta", nil, &events)
	if len(events) != 1 || events[0].Project != "beta" || events[0].Source != "user" {
		t.Errorf("audit?project=beta = %+v", events)
	}
	g.api(t, adminToken, "GET", "/api/v1/audit?until=2000-01-01T00:00:00Z", nil, &events)
	if len(events) != 0 {
		t.Errorf("audit until 2000 = %+v", events)
	}
	var e APIError
	for _, bad := range []string{"?source=robot", "?since=yesterday", "?project=gamma", "?limit=-1"} {
		code := g.api(t, adminToken, "GET", "/api/v1/audit"+bad, nil, &e)
		if code != http.StatusBadRequest && code != http.StatusNotFound {
			t.Errorf("audit%s: %d", bad, code)
		}
	}
}

// The vendor sync through the admin API: one proposal of the document's
// rules as suggestions (never merged), nothing the second time, audited.
func TestVendorSyncThroughTheAdminAPI(t *testing.T) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		w.Header().Set("ETag", `"v1"`)
		w.Write([]byte("# Guide\n\n- Always run the tests before you commit.\n- Never push to main directly.\n"))
	}))
	defer page.Close()
	dir := vendorRules(t, "alpha", page.URL+"/guide.md")
	g := start(t, map[string]string{"alpha": dir})
	var rs []vendorsync.Result
	if code := g.api(t, adminToken, "POST", "/api/v1/projects/alpha/vendor/sync", nil, &rs); code != 200 || len(rs) != 1 || rs[0].Proposal == nil || len(rs[0].New) != 2 {
		t.Fatalf("sync: %d %+v", code, rs)
	}
	var pr proposals.Proposal
	g.api(t, adminToken, "GET", fmt.Sprintf("/api/v1/projects/alpha/proposals/%d", *rs[0].Proposal), nil, &pr)
	if pr.State != proposals.Open || !strings.Contains(pr.Title, "Vendor suggestions for claude") {
		t.Errorf("the sync's proposal: %+v", pr)
	}
	rs = nil
	if code := g.api(t, adminToken, "POST", "/api/v1/projects/alpha/vendor/sync", nil, &rs); code != 200 || len(rs) != 1 || rs[0].Proposal != nil {
		t.Errorf("a second sync of the same document: %d %+v", code, rs)
	}
	var e APIError
	if code := g.api(t, adminToken, "POST", "/api/v1/projects/alpha/vendor/sync?agent=nope", nil, &e); code != http.StatusBadRequest {
		t.Errorf("sync of an unknown profile: %d %+v", code, e)
	}
}

// commitFile writes name in the repository dir and commits it on main.
func commitFile(t *testing.T, dir, name, content string) {
	t.Helper()
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := repo.Worktree()
	os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	wt.Add(name)
	if _, err := wt.Commit("edit "+name, &git.CommitOptions{Author: &object.Signature{Name: "Mira Rossi", Email: "mira@example.com", When: time.Now()}}); err != nil {
		t.Fatal(err)
	}
}

package gateway

// Attacks from issue 23 (hardening, round 3): each test is the exploit,
// kept, and passes when the defence holds.

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/schema"
	"github.com/bridle-dev/bridle/vendorsync"
)

// Initializes that arrive together all passed the sessions-per-token check
// before any of their sessions existed: 80 at once opened up to 108
// sessions. The slot is reserved before the session is made.
func TestAttackConcurrentInitializesStayWithinTheCap(t *testing.T) {
	const max, n = 64, 80
	g := start(t, map[string]string{"alpha": newRules(t, "alpha")}, func(_ *Config, o *Options) { o.MaxSessions = max })
	tok := g.mint(t, "alpha", "intruder")
	cl := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}, Timeout: 30 * time.Second}
	defer cl.CloseIdleConnections()
	gate := make(chan struct{})
	codes := make(chan int, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			req, _ := http.NewRequest("POST", g.url+"/p/alpha/mcp", strings.NewReader(fmt.Sprintf(reviewInit, "x")))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", "Bearer "+tok)
			<-gate // every request leaves at once
			resp, err := cl.Do(req)
			if err != nil {
				codes <- 0
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			codes <- resp.StatusCode
		})
	}
	close(gate)
	wg.Wait()
	close(codes)
	ok, refused := 0, 0
	for c := range codes {
		switch c {
		case http.StatusOK:
			ok++
		case http.StatusTooManyRequests:
			refused++
		default:
			t.Errorf("an initialize answered %d", c)
		}
	}
	open := g.srv.agentSessions(g.srv.projects["alpha"], "intruder")
	all := 0
	for range g.srv.projects["alpha"].mcp.SDK().Sessions() {
		all++
	}
	t.Logf("%d initializes at once: %d accepted, %d refused; %d sessions open (%d in the project)", n, ok, refused, open, all)
	if ok > max || open > max || all > max {
		t.Errorf("%d initializes at once: %d accepted, %d sessions open; at most %d per token", n, ok, all, max)
	}
	if ok == 0 {
		t.Error("no initialize was accepted")
	}
}

// A request with two Authorization headers was served as the first one
// says, whatever the second says: a proxy or a log that reads the other
// one sees someone else. It is refused, before any credential is checked.
func TestAttackTwoAuthorizationHeadersAreRefused(t *testing.T) {
	g := start(t, map[string]string{"alpha": newRules(t, "alpha")}, unlimited)
	agent := g.mint(t, "alpha", "claude")
	h := g.srv.Handler()
	for _, tc := range []struct {
		method, path, body string
		first, second      string
	}{
		{"GET", "/api/v1/projects", "", "Bearer " + adminToken, "Bearer bridle_" + strings.Repeat("x", 43)},
		{"GET", "/api/v1/projects", "", "Bearer bridle_" + strings.Repeat("x", 43), "Bearer " + adminToken},
		{"GET", "/readyz", "", "Bearer " + adminToken, "Basic YTpi"},
		{"POST", "/p/alpha/mcp", fmt.Sprintf(reviewInit, "x"), "Bearer " + agent, "Bearer " + adminToken},
	} {
		req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body))
		req.RemoteAddr = "127.0.0.1:4000"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Add("Authorization", tc.first)
		req.Header.Add("Authorization", tc.second)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusBadRequest {
			t.Errorf("%s %s with two Authorization headers (%.12s…, %.12s…): %d, want 400", tc.method, tc.path, tc.first, tc.second, w.Code)
		}
		if strings.Contains(w.Body.String(), adminToken) || strings.Contains(w.Body.String(), agent) {
			t.Errorf("%s %s: the refusal shows a credential", tc.method, tc.path)
		}
	}
}

// The failure limit was per address: 127.0.0.2, 127.0.0.3, … (all this
// machine's) each started fresh. The loopback network counts as one.
func TestAttackLoopbackAddressesShareOneLimit(t *testing.T) {
	g := start(t, map[string]string{"alpha": newRules(t, "alpha")})
	h := g.srv.Handler()
	limited := false
	for i := range 5 * MaxFailures {
		if guess(h, "/api/v1/projects", fmt.Sprintf("127.0.%d.%d:4000", i/200, 2+i%200), nil) == http.StatusTooManyRequests {
			limited = true
			break
		}
	}
	if !limited {
		t.Errorf("%d wrong admin credentials from 127.0.0.0/8, one address each, were never limited", 5*MaxFailures)
	}
	if code := g.api(t, adminToken, "GET", "/api/v1/projects", nil, nil); code != http.StatusOK {
		t.Errorf("the admin credential from the loopback after the guesses: %d, want 200", code)
	}
}

// Addresses from many networks each got their own MaxFailures: nothing
// bounded the guesses the whole server answers. A ceiling over every
// address holds, and a valid credential still passes it.
func TestAttackManyNetworksMeetAGlobalCeiling(t *testing.T) {
	g := start(t, map[string]string{"alpha": newRules(t, "alpha")})
	tok := g.mint(t, "alpha", "claude")
	h := g.srv.Handler()
	guesses, limited := 0, false
	for i := range 100 * MaxFailures {
		remote := fmt.Sprintf("[2001:db8:%x::1]:4000", i) // a new /64 every guess
		if i%2 == 1 {
			remote = fmt.Sprintf("198.%d.%d.7:4000", 18+i/256%2, i%256) // and a new IPv4 address
		}
		guesses++
		if guess(h, "/api/v1/projects", remote, nil) == http.StatusTooManyRequests {
			limited = true
			break
		}
	}
	if !limited {
		t.Fatalf("%d wrong credentials, each from a network of its own, were never limited", guesses)
	}
	t.Logf("limited after %d guesses from as many networks", guesses)
	if guesses > totalCeiling(MaxFailures)+1 {
		t.Errorf("limited only after %d guesses, want at most %d", guesses, totalCeiling(MaxFailures)+1)
	}
	if code := g.api(t, adminToken, "GET", "/api/v1/projects", nil, nil); code != http.StatusOK {
		t.Errorf("the admin credential past the ceiling: %d, want 200", code)
	}
	if code, _ := post(t, g.url+"/p/alpha/mcp", tok, fmt.Sprintf(reviewInit, "claude-code"), nil); code != http.StatusOK {
		t.Errorf("the agent's token past the ceiling: %d, want 200", code)
	}
}

// "Sync vendor guidance now" opened a proposal authored by the admin, so
// the admin could approve the vendor's text only as their own (--self).
// The vendor is the origin; the admin only started the sync.
func TestVendorSyncIsTheVendorsProposal(t *testing.T) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		w.Write([]byte("# Guide\n\n- Always run the tests before you commit.\n"))
	}))
	defer page.Close()
	g := start(t, map[string]string{"alpha": vendorRules(t, "alpha", page.URL+"/guide.md")}, func(c *Config, _ *Options) { c.Vendor.SyncInterval = "off" })
	var results []vendorsync.Result
	if code := g.api(t, adminToken, "POST", "/api/v1/projects/alpha/vendor/sync", nil, &results); code != http.StatusOK || len(results) != 1 || results[0].Proposal == nil {
		t.Fatalf("vendor sync: %d %+v", code, results)
	}
	n := *results[0].Proposal
	var v ProposalView
	if code := g.api(t, adminToken, "GET", fmt.Sprintf("/api/v1/projects/alpha/proposals/%d", n), nil, &v); code != http.StatusOK || v.Origin == nil {
		t.Fatalf("get #%d: %d %+v", n, code, v)
	}
	if o := *v.Origin; o.Source != schema.SourceVendor || o.Agent != "claude" || o.Author != "" || o.TriggeredBy != "Mira Rossi" {
		t.Errorf("origin of the vendor sync's proposal = %+v, want the vendor (claude's profile), started by Mira Rossi", o)
	}
	if strings.Contains(v.Author, "Mira") {
		t.Errorf("the vendor's proposal is authored by %q", v.Author)
	}
	var merged proposals.Proposal
	if code := g.api(t, adminToken, "POST", fmt.Sprintf("/api/v1/projects/alpha/proposals/%d/approve", n), ApproveRequest{}, &merged); code != http.StatusOK || merged.State != proposals.Merged {
		t.Errorf("the admin approves the vendor's proposal (not their own): %d %+v", code, merged)
	}
}

// The admin API took provenance claims in a proposed guardrail (approved_by,
// a pull request) and put them before the reviewer, in the pull request and
// the recorded change; the MCP tool never takes them. Provenance is
// Bridle's: the proposer's, from who calls.
func TestAdminProposalCarriesNoProvenanceClaims(t *testing.T) {
	g := start(t, map[string]string{"alpha": newRules(t, "alpha")})
	in := map[string]any{"change": map[string]any{"kind": "guardrail", "rationale": "pin it", "guardrail": map[string]any{
		"id": "pin-go", "statement": "Pin the Go version.", "severity": "guidance",
		"provenance": map[string]any{"source": "agent", "agent": "claude", "approved_by": "jonas", "approved_at": "2026-01-01T00:00:00Z", "pull_request": "7"},
	}}}
	var pr proposals.Proposal
	code := g.api(t, adminToken, "POST", "/api/v1/projects/alpha/proposals", in, &pr)
	if code != http.StatusCreated {
		t.Fatalf("propose: %d %+v", code, pr)
	}
	var v ProposalView
	g.api(t, adminToken, "GET", fmt.Sprintf("/api/v1/projects/alpha/proposals/%d", pr.Number), nil, &v)
	if v.Recorded == nil || v.Recorded.Guardrail == nil {
		t.Fatalf("recorded change: %+v", v)
	}
	if p := v.Recorded.Guardrail.Provenance; p.ApprovedBy != "" || p.ApprovedAt != "" || p.PullRequest != "" || p.Source != schema.SourceUser || p.Agent != "" || p.ProposedBy != "Mira Rossi" {
		t.Errorf("recorded provenance = %+v, want the admin's, with no approval", p)
	}
	for _, claim := range []string{"jonas", "approved_by", "pull_request"} {
		if strings.Contains(v.Body, claim) {
			t.Errorf("the pull request shows the reviewer the claim %q:\n%s", claim, v.Body)
		}
	}
}

// Issue 23: with rules.approve granted to codex (by an approved edit), codex
// merged claude's proposal and no person was involved. An agent's approval
// is refused, whatever the rules grant; the refusal is audited, and the
// proposal waits for a person.
func TestAgentsNeverApprove(t *testing.T) {
	dir := newRules(t, "alpha")
	g := start(t, map[string]string{"alpha": dir})
	src, _ := os.ReadFile(filepath.Join(dir, "bridle.yaml"))
	grant := strings.Replace(string(src), "  codex:\n    rules: {propose: true}\n", "  codex:\n    rules: {propose: true, approve: true}\n", 1)
	if grant == string(src) {
		t.Fatal("the scaffold's codex permissions moved")
	}
	var pr proposals.Proposal
	if code := g.api(t, adminToken, "POST", "/api/v1/projects/alpha/proposals", map[string]any{"change": map[string]any{"kind": "edit", "document": grant, "rationale": "codex reviews"}}, &pr); code != http.StatusCreated {
		t.Fatalf("propose the grant: %d", code)
	}
	if code := g.api(t, adminToken, "POST", fmt.Sprintf("/api/v1/projects/alpha/proposals/%d/approve", pr.Number), ApproveRequest{Self: true}, nil); code != http.StatusOK {
		t.Fatalf("approve the grant: %d", code)
	}
	claude := g.mustConnect(t, "alpha", g.mint(t, "alpha", "claude"), "claude-code")
	codex := g.mustConnect(t, "alpha", g.mint(t, "alpha", "codex"), "codex-mcp-client")
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Contains(toolNames(t, codex), "approve_proposal") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if !slices.Contains(toolNames(t, codex), "approve_proposal") {
		t.Fatal("the approved grant does not list approve_proposal for codex")
	}
	if text, isErr := callText(t, claude, "propose_guardrail", map[string]any{"id": "skip-review", "statement": "Skip review for one-line changes.",
		"severity": "guidance", "why": "Faster."}); isErr {
		t.Fatalf("propose: %s", text)
	}
	var list []proposals.Proposal
	g.api(t, adminToken, "GET", "/api/v1/projects/alpha/proposals", nil, &list)
	if len(list) != 1 {
		t.Fatalf("open proposals = %+v", list)
	}
	text, isErr := callText(t, codex, "approve_proposal", map[string]any{"number": list[0].Number})
	if !isErr || !strings.Contains(text, "only a person approves") {
		t.Errorf("codex approving claude's proposal: error=%t %s", isErr, text)
	}
	var after proposals.Proposal
	if g.api(t, adminToken, "GET", fmt.Sprintf("/api/v1/projects/alpha/proposals/%d", list[0].Number), nil, &after); after.State != proposals.Open {
		t.Errorf("claude's proposal is %s after codex's approval, want open", after.State)
	}
	var events []audit.Event
	g.api(t, adminToken, "GET", "/api/v1/audit?project=alpha&kind=refusal", nil, &events)
	if !slices.ContainsFunc(events, func(e audit.Event) bool { return e.Agent == "codex" && e.Tool == "approve_proposal" }) {
		t.Errorf("codex's refused approval is not audited: %+v", events)
	}
}

package gateway

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/schema"
	"github.com/bridle-dev/bridle/vendorsync"
)

// total is the X-Total-Count of a listing.
func (g *gw) total(t *testing.T, path string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", g.url+path, nil)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.Header.Get("X-Total-Count")
}

// The proposal listing filters by source and text, orders newest first and
// pages; without a limit it answers every match, as before.
func TestProposalListingPagesAndFilters(t *testing.T) {
	g := twoProjects(t)
	cs := g.mustConnect(t, "alpha", g.mint(t, "alpha", "claude"), "claude-code")
	for i := range 3 {
		if text, isErr := callText(t, cs, "propose_guardrail", map[string]any{"id": fmt.Sprintf("agent-rule-%d", i), "statement": "Never do it.", "severity": "guidance", "why": "We lost work."}); isErr {
			t.Fatal(text)
		}
	}
	if code := g.api(t, adminToken, "POST", "/api/v1/projects/alpha/proposals", ProposeRequest{Change: proposals.Change{Kind: proposals.KindGuardrail,
		Guardrail: &schema.Guardrail{ID: "human-rule", Statement: "Ask first.", Severity: schema.Guidance}, Rationale: "Mine."}}, nil); code != http.StatusCreated {
		t.Fatalf("propose as the admin: %d", code)
	}
	numbers := func(path string) string {
		t.Helper()
		var list []proposals.Proposal
		if code := g.api(t, adminToken, "GET", "/api/v1/projects/alpha/proposals"+path, nil, &list); code != 200 {
			t.Fatalf("GET %s: %d", path, code)
		}
		var ns []string
		for _, p := range list {
			ns = append(ns, fmt.Sprint(p.Number))
		}
		return strings.Join(ns, ",")
	}
	for path, want := range map[string]string{
		"":                                 "1,2,3,4",
		"?order=newest":                    "4,3,2,1",
		"?order=newest&limit=2":            "4,3",
		"?order=newest&limit=2&offset=2":   "2,1",
		"?order=newest&limit=2&offset=9":   "",
		"?source=agent":                    "1,2,3",
		"?source=user":                     "4",
		"?q=AGENT-RULE-1":                  "2",
		"?q=human&source=agent":            "",
		"?state=all&order=newest&limit=1":  "4",
		"?state=merged":                    "",
		"?source=agent&limit=1&offset=1":   "2",
		"?order=number&limit=3&offset=1":   "2,3,4",
		"?order=newest&source=vendor&q=xx": "",
	} {
		if got := numbers(path); got != want {
			t.Errorf("GET proposals%s = [%s], want [%s]", path, got, want)
		}
	}
	if got := g.total(t, "/api/v1/projects/alpha/proposals?source=agent&limit=1"); got != "3" {
		t.Errorf("X-Total-Count = %q, want 3 (the matches before paging)", got)
	}
	var e APIError
	for _, bad := range []string{"?limit=0", "?limit=1001", "?offset=-1", "?offset=x", "?order=oldest", "?source=robot", "?state=gone"} {
		if code := g.api(t, adminToken, "GET", "/api/v1/projects/alpha/proposals"+bad, nil, &e); code != http.StatusBadRequest {
			t.Errorf("GET proposals%s: %d", bad, code)
		}
	}
}

// The admin dismisses vendor suggestions through a proposal; adding or
// withdrawing them is the vendor sync's alone.
func TestAdminDismissesVendorSuggestions(t *testing.T) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		w.Write([]byte("# Guide\n\n- Always run the tests before you commit.\n"))
	}))
	defer page.Close()
	g := start(t, map[string]string{"alpha": vendorRules(t, "alpha", page.URL+"/guide.md")})
	var rs []vendorsync.Result
	if code := g.api(t, adminToken, "POST", "/api/v1/projects/alpha/vendor/sync", nil, &rs); code != 200 || len(rs) != 1 || rs[0].Proposal == nil || len(rs[0].New) != 1 {
		t.Fatalf("sync: %d %+v", code, rs)
	}
	if code := g.api(t, adminToken, "POST", fmt.Sprintf("/api/v1/projects/alpha/proposals/%d/approve", *rs[0].Proposal), ApproveRequest{Self: true}, nil); code != 200 {
		t.Fatalf("approve the sync's proposal: %d", code)
	}
	id := rs[0].New[0]
	var e APIError
	for name, v := range map[string]*proposals.VendorUpdate{
		"no update": nil,
		"nothing":   {Agent: "claude"},
		"an add":    {Agent: "claude", Dismiss: []string{id}, Add: []schema.VendorSuggestion{{ID: "made-up", Statement: "Obey me."}}},
		"withdraw":  {Agent: "claude", Withdraw: []string{id}},
	} {
		code := g.api(t, adminToken, "POST", "/api/v1/projects/alpha/proposals", ProposeRequest{Change: proposals.Change{Kind: proposals.KindVendor, Vendor: v, Rationale: "x"}}, &e)
		if code != http.StatusBadRequest || !strings.Contains(e.Error, "vendor sync") {
			t.Errorf("vendor change with %s: %d %+v", name, code, e)
		}
	}
	var pr proposals.Proposal
	if code := g.api(t, adminToken, "POST", "/api/v1/projects/alpha/proposals", ProposeRequest{Change: proposals.Change{Kind: proposals.KindVendor,
		Vendor: &proposals.VendorUpdate{Agent: "claude", Dismiss: []string{id}}, Rationale: "We run tests in CI."}}, &pr); code != http.StatusCreated {
		t.Fatalf("dismiss: %d", code)
	}
	var v ProposalView
	g.api(t, adminToken, "GET", fmt.Sprintf("/api/v1/projects/alpha/proposals/%d", pr.Number), nil, &v)
	if v.Recorded == nil || v.Recorded.Vendor == nil || len(v.Recorded.Vendor.Dismiss) != 1 || v.Origin.Source != schema.SourceUser || !strings.Contains(pr.Title, "1 dismissed") {
		t.Errorf("the dismissal's proposal: %+v %+v", pr, v.Recorded)
	}
}

// GET rules/source is main's bridle.yaml as written, comments included,
// at main's commit.
func TestRulesSource(t *testing.T) {
	dir := newRules(t, "alpha")
	g := start(t, map[string]string{"alpha": dir})
	var src RulesSource
	if code := g.api(t, adminToken, "GET", "/api/v1/projects/alpha/rules/source", nil, &src); code != 200 {
		t.Fatalf("rules/source: %d", code)
	}
	var ps ProjectStatus
	g.api(t, adminToken, "GET", "/api/v1/projects/alpha", nil, &ps)
	if src.Commit == "" || src.Commit != ps.Commit || !strings.Contains(src.Document, "#") || !strings.Contains(src.Document, "schema_version") {
		t.Errorf("rules/source = %+v (project commit %s)", src, ps.Commit)
	}
	if code := g.api(t, "", "GET", "/api/v1/projects/alpha/rules/source", nil, nil); code != http.StatusUnauthorized {
		t.Errorf("without the admin credential: %d", code)
	}
}

// The gateway's own refusals (the loopback host check, the cross-origin
// protection, a missing credential) carry the security headers a browser
// may meet them under: no script, no sniffing, no framing, no referrer.
func TestRefusalsCarryTheSecurityHeaders(t *testing.T) {
	g := twoProjects(t, unlimited)
	for name, c := range map[string]struct {
		method, path string
		headers      map[string]string
		code         int
	}{
		"a DNS-rebinding host":   {"GET", "/", map[string]string{"Host": "evil.example"}, http.StatusForbidden},
		"a rebinding host, API":  {"GET", "/api/v1/projects", map[string]string{"Host": "evil.example:7777"}, http.StatusForbidden},
		"another site's form":    {"POST", "/ui/projects/alpha/agents", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}, http.StatusForbidden},
		"no credential":          {"GET", "/api/v1/projects", nil, http.StatusUnauthorized},
		"another site's request": {"POST", "/api/v1/projects/alpha/agents", map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
	} {
		req, _ := http.NewRequest(c.method, g.url+c.path, strings.NewReader("agent=codex"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range c.headers {
			if k == "Host" {
				req.Host = v
				continue
			}
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		h := resp.Header
		if resp.StatusCode != c.code || h.Get("Content-Security-Policy") != RefusalCSP || h.Get("X-Content-Type-Options") != "nosniff" ||
			h.Get("X-Frame-Options") != "DENY" || h.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("%s: %d %v", name, resp.StatusCode, h)
		}
	}
	for _, want := range []string{"default-src 'none'", "script-src 'none'", "frame-ancestors 'none'"} {
		if !strings.Contains(RefusalCSP, want) {
			t.Errorf("RefusalCSP lacks %s", want)
		}
	}
}

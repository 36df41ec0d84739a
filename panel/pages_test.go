package panel_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/schema"
)

// pagesOf is every page of a signed-in admin for project.
func pagesOf(project string) []string {
	return []string{"/", "/ui/queue", "/ui/queue?state=all&source=agent&q=x", "/ui/audit", "/ui/audit?project=" + project + "&source=agent",
		"/ui/projects/" + project + "/rules", "/ui/projects/" + project + "/rules/claude", "/ui/projects/" + project + "/patterns",
		"/ui/projects/" + project + "/patterns?q=payout+retries&arch_tag=mvc",
		"/ui/projects/" + project + "/memory", "/ui/projects/" + project + "/memory?q=queue&kind=decision",
		"/ui/projects/" + project + "/agents", "/ui/secrets", "/ui/projects/" + project + "/secrets"}
}

func TestEveryPageRenders(t *testing.T) {
	e := start(t, []string{"alpha", "beta"})
	b := e.browser(t)
	b.login()
	for _, path := range pagesOf("alpha") {
		p := b.get(path)
		if p.code != http.StatusOK {
			t.Errorf("GET %s: %d %s", path, p.code, p.body)
			continue
		}
		if !strings.Contains(p.body, "</html>") {
			t.Errorf("GET %s: the page is cut: %s", path, p.body)
		}
	}
	// /ui/rules goes to the project last looked at.
	b.get("/ui/projects/beta/agents")
	if p := b.get("/ui/rules"); p.location != "/ui/projects/beta/rules" {
		t.Errorf("/ui/rules → %q", p.location)
	}
	if p := b.get("/ui/projects/nope/rules"); p.code != http.StatusNotFound {
		t.Errorf("an unknown project: %d", p.code)
	}
	if p := b.get("/no/such/page"); p.code != http.StatusNotFound {
		t.Errorf("an unknown page: %d", p.code)
	}
	_ = url.Values{}
}

// The Patterns page searches the examples' chunks through the admin API:
// nothing indexed is "Nothing found", a query the API refuses is its
// error on the page, never a broken page.
func TestPatternSearch(t *testing.T) {
	e := start(t, []string{"alpha"})
	b := e.browser(t)
	b.login()
	if p := b.get("/ui/projects/alpha/patterns?q=outbox+relay"); p.code != http.StatusOK || !strings.Contains(p.body, "Nothing found") {
		t.Errorf("a search with nothing indexed: %d %s", p.code, p.body)
	}
	if p := b.get("/ui/projects/alpha/patterns?q=" + strings.Repeat("x", 5000)); p.code != http.StatusOK || !strings.Contains(p.body, "flash err") {
		t.Errorf("an oversized query: %d %s", p.code, p.body)
	}
	if p := b.get("/ui/projects/alpha/patterns"); strings.Contains(p.body, "Nothing found") {
		t.Error("no query, yet a search result")
	}
	var e1 gateway.APIError
	if code := e.api(t, "GET", "/api/v1/projects/alpha/patterns/search", nil, &e1); code != http.StatusBadRequest {
		t.Errorf("a search without q: %d %+v", code, e1)
	}
	if code := e.api(t, "GET", "/api/v1/projects/alpha/patterns/search?q=x&limit=0", nil, nil); code != http.StatusBadRequest {
		t.Errorf("limit=0: %d", code)
	}
}

// copyProposals makes n-1 copies of project's proposal #1 (numbers 2…n),
// each created a minute after the one before: the local backend lists them
// as it lists any.
func copyProposals(t testing.TB, e *env, project string, n int, created time.Time) {
	t.Helper()
	var ps gateway.ProjectStatus
	e.api(t, "GET", "/api/v1/projects/"+project, nil, &ps)
	dir := filepath.Join(ps.Source, ".git", "bridle", "proposals")
	rec, err := os.ReadFile(filepath.Join(dir, "1.json"))
	if err != nil {
		t.Fatalf("the local proposal record: %v", err)
	}
	for i := 1; i <= n; i++ {
		var m map[string]any
		json.Unmarshal(rec, &m)
		m["number"], m["created_at"] = i, created.Add(time.Duration(i)*time.Minute)
		out, _ := json.Marshal(m)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.json", i)), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The queue shows one page, newest first, of one project or of all merged.
func TestQueuePages(t *testing.T) {
	e := start(t, []string{"alpha", "beta"})
	for _, p := range []string{"alpha", "beta"} {
		if code := e.api(t, "POST", "/api/v1/projects/"+p+"/proposals", gateway.ProposeRequest{Change: proposals.Change{Kind: proposals.KindGuardrail,
			Guardrail: &schema.Guardrail{ID: "paged-rule", Statement: "Page long lists.", Severity: schema.Guidance}, Rationale: "Speed."}}, nil); code != 201 {
			t.Fatalf("propose in %s: %d", p, code)
		}
	}
	t0 := time.Now().Add(-time.Hour)
	copyProposals(t, e, "alpha", 30, t0)                   // alpha's at t0+1…30 min
	copyProposals(t, e, "beta", 2, t0.Add(90*time.Second)) // beta's at t0+2.5 and 3.5 min
	b := e.browser(t)
	b.login()
	row := regexp.MustCompile(`href="/ui/projects/([a-z]+)/proposals/(\d+)">\d+</a>`)
	rows := func(path string) string {
		t.Helper()
		p := b.get(path)
		if p.code != 200 {
			t.Fatalf("GET %s: %d", path, p.code)
		}
		var out []string
		for _, m := range row.FindAllStringSubmatch(p.body, -1) {
			out = append(out, m[1][:1]+m[2])
		}
		return strings.Join(out, " ")
	}
	for path, want := range map[string]string{
		"/ui/queue?project=alpha&page=2":  "a5 a4 a3 a2 a1",
		"/ui/queue?project=alpha&page=99": "a5 a4 a3 a2 a1",
		"/ui/queue?page=2":                "a5 a4 b2 a3 b1 a2 a1",
		"/ui/queue?project=beta":          "b2 b1",
		"/ui/queue?project=alpha&q=nope":  "",
	} {
		if got := rows(path); got != want {
			t.Errorf("GET %s: %q, want %q", path, got, want)
		}
	}
	if got := strings.Fields(rows("/ui/queue")); len(got) != 25 || got[0] != "a30" || got[24] != "a6" {
		t.Errorf("the first page of all: %v", got)
	}
	// The Overview counts each project's open proposals, linking to them.
	ov := b.get("/").body
	for project, n := range map[string]string{"alpha": "30", "beta": "2"} {
		if !regexp.MustCompile(`<a href="/ui/queue\?project=` + project + `"[^>]*>` + n + `</a>`).MatchString(ov) {
			t.Errorf("the Overview does not count %s open proposals of %s", n, project)
		}
	}
}

package panel_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// pagesOf is every page of a signed-in admin for project.
func pagesOf(project string) []string {
	return []string{"/", "/ui/queue", "/ui/queue?state=all&source=agent&q=x", "/ui/audit", "/ui/audit?project=" + project + "&source=agent",
		"/ui/projects/" + project + "/rules", "/ui/projects/" + project + "/rules/claude", "/ui/projects/" + project + "/patterns",
		"/ui/projects/" + project + "/memory", "/ui/projects/" + project + "/memory?q=queue&kind=decision",
		"/ui/projects/" + project + "/agents"}
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

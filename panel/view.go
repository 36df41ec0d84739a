package panel

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/bridle-dev/bridle/gateway"
)

var funcs = template.FuncMap{
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04:05 UTC")
	},
	"ago":   ago,
	"short": func(s string) string { return shortSHA(s) },
	"join":  func(s []string, sep string) string { return strings.Join(s, sep) },
	"seconds": func(f float64) string {
		return ago(time.Now().Add(-time.Duration(f * float64(time.Second))))
	},
	"difflines": diffLines,
	// upstream is the name of an upstream MCP server's integration
	// ("upstream:NAME"), "" for any other.
	"upstream": func(integration string) string {
		name, ok := strings.CutPrefix(integration, "upstream:")
		if !ok {
			return ""
		}
		return name
	},
	"lookup": func(m map[string]string, k string) string { return m[k] },
	"add":    func(a, b int) int { return a + b },
	"list":   func(s ...string) []string { return s },
	"day": func(s string) string {
		if len(s) >= 10 {
			return s[:10]
		}
		return s
	},
	"kb": func(n int) string {
		if n < 1024 {
			return fmt.Sprintf("%d B", n)
		}
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	},
}

func shortSHA(s string) string {
	if len(s) > 10 {
		return s[:10]
	}
	return s
}

// ago is a coarse relative time: "just now", "5 min ago", "3 h ago".
func ago(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := time.Since(t)
	switch {
	case d < 5*time.Second:
		return "just now"
	case d < time.Minute:
		return fmt.Sprintf("%d s ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Hours()))
	}
	return fmt.Sprintf("%d days ago", int(d.Hours()/24))
}

// diffLine is one line of a unified diff and how to colour it.
type diffLine struct{ Class, Text string }

func diffLines(diff string) []diffLine {
	var out []diffLine
	for _, l := range strings.Split(strings.TrimRight(diff, "\n"), "\n") {
		c := "ctx"
		switch {
		case strings.HasPrefix(l, "@@"):
			c = "hunk"
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			c = "file"
		case strings.HasPrefix(l, "+"):
			c = "add"
		case strings.HasPrefix(l, "-"):
			c = "del"
		}
		out = append(out, diffLine{Class: c, Text: l})
	}
	return out
}

// pageNames are the templates in templates/, each a whole page built from
// the layout's "top" and "bottom".
var pageNames = []string{"login", "problem", "overview", "queue", "proposal", "rules", "render", "patterns", "reindex",
	"memory", "purge", "agents", "minted", "audit", "vendorsync", "secrets", "revoke", "account", "clilogin"}

func parsePages() map[string]*template.Template {
	out := map[string]*template.Template{}
	for _, name := range pageNames {
		out[name] = template.Must(template.New(name).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html"))
	}
	return out
}

// page is what every page's layout shows around its content.
type page struct {
	Title    string
	Nav      string // the active entry of the navigation
	Projects []gateway.ProjectStatus
	Project  string // the project in view ("" on cross-project pages)
	CSRF     string
	Flash    *flash
	Version  string
	// Human is whom the admin API attributes this admin's proposals,
	// approvals and rejections to; with none, Human.Missing says why
	// those actions are refused, and pages say so instead of offering them.
	Human gateway.Me
	Data  any
}

func (p *Panel) renderPage(w http.ResponseWriter, code int, name string, data any) {
	var b bytes.Buffer
	if err := p.pages[name].ExecuteTemplate(&b, name+".html", data); err != nil {
		p.log.Error("panel template", "page", name, "err", err)
		http.Error(w, "the page could not be drawn", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(b.Bytes())
}

// executePart writes one named part of a page (a streamed page's lines).
func (p *Panel) executePart(w io.Writer, page, part string, data any) {
	if err := p.pages[page].ExecuteTemplate(w, part, data); err != nil {
		p.log.Error("panel template", "page", page, "part", part, "err", err)
	}
}

// page builds the frame of a page for c: the projects (for the switcher),
// the CSRF token, the flash of the last action.
func (c *call) page(title, nav, project string, data any) page {
	pg := page{Title: title, Nav: nav, Project: project, CSRF: c.ss.csrf, Version: c.p.opts.Version, Data: data,
		Flash: c.p.sessions.takeFlash(c.ss)}
	if err := c.get("/api/v1/projects", &pg.Projects); err != nil {
		c.p.log.Warn("panel: projects", "err", err)
	}
	if me, err := c.whoami(); err != nil {
		c.p.log.Warn("panel: who acts", "err", err)
	} else {
		pg.Human = *me
	}
	if project != "" {
		c.p.sessions.setProject(c.ss, project)
	}
	return pg
}

func (c *call) render(w http.ResponseWriter, name, title, nav, project string, data any) {
	c.p.renderPage(w, http.StatusOK, name, c.page(title, nav, project, data))
}

type problemData struct {
	Heading, Detail string
	Role            gateway.Role // the role a refused page needs
}

// whoami is who the API says the session is, asked once per request.
func (c *call) whoami() (*gateway.Me, error) {
	if c.me != nil {
		return c.me, nil
	}
	var me gateway.Me
	if err := c.get("/api/v1/me", &me); err != nil {
		return nil, err
	}
	c.me = &me
	return c.me, nil
}

// refusedRole answers a page or form that needs a role the person does not
// have (403): what it needs, and that an admin can give it.
func (p *Panel) refusedRole(w http.ResponseWriter, r *http.Request, c *call, need gateway.Role) {
	who := "You"
	if c.me != nil && c.me.Name != "" {
		who = c.me.Name
	}
	p.renderPage(w, http.StatusForbidden, "problem", c.page("Not allowed", "", "", problemData{Heading: "Not allowed",
		Detail: fmt.Sprintf("%s may not do this: it needs the %s role. An admin gives roles in the gateway's configuration (auth.roles).", who, need),
		Role:   need}))
}

// problem answers a page saying what went wrong (the API's message, which
// the API has masked).
func (p *Panel) problem(w http.ResponseWriter, _ *http.Request, c *call, code int, heading, detail string) {
	p.renderPage(w, code, "problem", c.page(heading, "", "", problemData{Heading: heading, Detail: detail}))
}

// failed answers err from the API as a page, with the API's status.
func (c *call) failed(w http.ResponseWriter, what string, err error) {
	code := statusOf(err)
	if code == http.StatusUnauthorized {
		// The credential changed under the session: sign in again.
		c.p.sessions.end(c.ss.id)
		http.Redirect(w, c.r, "/login?next="+url.QueryEscape(c.r.URL.RequestURI()), http.StatusSeeOther)
		return
	}
	if code == 0 {
		code = http.StatusInternalServerError
	}
	c.p.problem(w, c.r, c, code, what, err.Error())
}

// pager is one page of a listing and the links to its neighbours.
type pager struct {
	Page, Pages, Total, From, To int
	Prev, Next                   string
}

const pageSize = 25

// requestedPage is the page r asks for (?page=), 1 at least.
func requestedPage(r *http.Request) int {
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	return max(page, 1)
}

// pageOf is page (clamped to the pages n items fill) of n items, with
// links to its neighbours that keep r's other query parameters.
func pageOf(r *http.Request, n, page int) (lo, hi int, pg pager) {
	pages := max(1, (n+pageSize-1)/pageSize)
	page = min(max(page, 1), pages)
	lo, hi = (page-1)*pageSize, min(page*pageSize, n)
	link := func(to int) string {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(to))
		return r.URL.Path + "?" + q.Encode()
	}
	pg = pager{Page: page, Pages: pages, Total: n, From: lo + 1, To: hi}
	if n == 0 {
		pg.From = 0
	}
	if page > 1 {
		pg.Prev = link(page - 1)
	}
	if page < pages {
		pg.Next = link(page + 1)
	}
	return lo, hi, pg
}

// auditLink is the audit page showing what the admin did between t0 and
// t1 in project: the entry an action wrote.
func auditLink(project string, t0, t1 time.Time) string {
	q := url.Values{"project": {project}, "source": {"user"},
		"since": {t0.Add(-time.Millisecond).UTC().Format(time.RFC3339Nano)}, "until": {t1.Add(time.Millisecond).UTC().Format(time.RFC3339Nano)}}
	return "/ui/audit?" + q.Encode()
}

func projectPath(project, rest string) string {
	return "/ui/projects/" + url.PathEscape(project) + rest
}

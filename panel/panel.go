package panel

import (
	"cmp"
	"embed"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/bridle-dev/bridle/gateway"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Options configures a Panel.
type Options struct {
	// API is the gateway's admin API handler (gateway.Options.UI is given
	// it); every page is built from its answers.
	API http.Handler
	// SignIn is the identity provider people sign in with (nil: the admin
	// credential only).
	SignIn  *gateway.SignIn
	Version string
	Logger  *slog.Logger // discarded when nil
	Now     func() time.Time
	// SessionIdle ends a session unused this long; 2 h. SessionMax ends any
	// session this long after sign-in; 12 h.
	SessionIdle, SessionMax time.Duration
}

// Panel is the web panel's http.Handler.
type Panel struct {
	opts     Options
	log      *slog.Logger
	now      func() time.Time
	api      http.Handler
	sessions *sessions
	oidc     *oidcFlow // nil without a provider
	cliCodes *cliCodes // bridle login's one-time codes
	pages    map[string]*template.Template
	mux      *http.ServeMux
}

// New builds the panel over o.API. It panics if the embedded templates do
// not parse (a build defect, caught by every test).
func New(o Options) *Panel {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.SessionIdle <= 0 {
		o.SessionIdle = 2 * time.Hour
	}
	if o.SessionMax <= 0 {
		o.SessionMax = 12 * time.Hour
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &Panel{opts: o, log: log, now: o.Now, api: o.API, sessions: newSessions(o.Now, o.SessionIdle, o.SessionMax), oidc: newOIDCFlow(o.SignIn, o.Now),
		cliCodes: &cliCodes{now: o.Now, byHash: map[string]cliCode{}}}
	p.pages = parsePages()
	p.mux = p.routes()
	return p
}

// CSP is the Content-Security-Policy of every panel response: no script
// at all, styles and images from the panel only, forms posted to it only,
// never framed.
const CSP = "default-src 'self'; script-src 'none'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"

// ServeHTTP serves the panel; every response carries the security headers.
func (p *Panel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", CSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	p.mux.ServeHTTP(w, r)
}

// route is one panel address: its pattern, the least role it needs (the
// API's role for what it does: see gateway.Role), and its handler. Public
// routes (the stylesheet, the sign-in) need no session; every other one
// needs a session whose person has Role, checked at every request.
type route struct {
	Pattern string
	Role    gateway.Role
	Public  http.Handler
	handle  func(http.ResponseWriter, *http.Request, *call)
	limit   int64 // the largest form it takes; gateway.MaxAPIBody when 0
}

// table is every panel address; routes() serves exactly these.
func (p *Panel) table() []route {
	static, _ := fs.Sub(staticFS, "static")
	files := http.StripPrefix("/ui/static/", http.FileServerFS(static))
	const (
		viewer   = gateway.RoleViewer
		approver = gateway.RoleApprover
		admin    = gateway.RoleAdmin
	)
	rs := []route{
		{Pattern: "GET /ui/static/", Public: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Cache-Control", "public, max-age=3600")
			files.ServeHTTP(w, r)
		})},
		{Pattern: "GET /login", Public: http.HandlerFunc(p.loginPage)},
		{Pattern: "POST /login", Public: http.HandlerFunc(p.login)},
		{Pattern: "GET " + gateway.SignInPath, Public: http.HandlerFunc(p.oidcLogin)},
		{Pattern: "GET " + gateway.CallbackPath, Public: http.HandlerFunc(p.oidcCallback)},
		{Pattern: "POST /logout", Role: gateway.RoleSignedIn, handle: p.logout},
		// A person's own: their tokens, and signing their CLI in.
		{Pattern: "GET /ui/account", Role: gateway.RoleSignedIn, handle: p.account},
		{Pattern: "POST /ui/account/tokens", Role: viewer, handle: p.mintMine, limit: 8 << 10},
		{Pattern: "POST /ui/account/tokens/{id}/revoke", Role: gateway.RoleSignedIn, handle: p.revokeMine},
		{Pattern: "POST /ui/tokens/{id}/revoke", Role: admin, handle: p.revokeAnyones},
		{Pattern: "GET " + gateway.CLILoginPath, Role: viewer, handle: p.cliConsent},
		{Pattern: "POST " + gateway.CLILoginPath, Role: viewer, handle: p.cliAllow, limit: 8 << 10},
		{Pattern: "POST " + gateway.CLITokenPath, Public: http.HandlerFunc(p.cliToken)},
		{Pattern: "GET /{$}", Role: viewer, handle: p.overview},
		{Pattern: "GET /ui/queue", Role: viewer, handle: p.queue},
		{Pattern: "GET /ui/audit", Role: viewer, handle: p.audit},
	}
	for _, base := range []string{"/ui", "/ui/projects/{project}"} {
		rs = append(rs,
			route{Pattern: "GET " + base + "/secrets", Role: viewer, handle: p.secrets},
			route{Pattern: "POST " + base + "/secrets", Role: admin, handle: p.addSecret, limit: secretFormLimit},
			route{Pattern: "POST " + base + "/secrets/{name}/rotate", Role: admin, handle: p.rotateSecret, limit: secretFormLimit},
			route{Pattern: "POST " + base + "/secrets/{name}/revoke", Role: admin, handle: p.revokeSecret})
	}
	for _, page := range []string{"rules", "patterns", "memory", "agents"} {
		rs = append(rs, route{Pattern: "GET /ui/" + page, Role: viewer, handle: p.toProject(page)})
	}
	pr := "/ui/projects/{project}"
	rs = append(rs,
		route{Pattern: "GET " + pr + "/proposals/{number}", Role: viewer, handle: p.proposal},
		route{Pattern: "POST " + pr + "/proposals/{number}/approve", Role: approver, handle: p.approve},
		route{Pattern: "POST " + pr + "/proposals/{number}/reject", Role: approver, handle: p.reject},
		route{Pattern: "GET " + pr + "/rules", Role: viewer, handle: p.rules},
		route{Pattern: "GET " + pr + "/rules/{agent}", Role: viewer, handle: p.agentRender},
		route{Pattern: "POST " + pr + "/propose", Role: approver, handle: p.propose},
		route{Pattern: "POST " + pr + "/guardrails/{id}/edit", Role: approver, handle: p.editGuardrailForm},
		route{Pattern: "POST " + pr + "/vendor/sync", Role: approver, handle: p.vendorSync},
		route{Pattern: "POST " + pr + "/upstreams/{name}/restart", Role: admin, handle: p.restartUpstream},
		route{Pattern: "GET " + pr + "/patterns", Role: viewer, handle: p.patterns},
		route{Pattern: "POST " + pr + "/patterns/reindex", Role: admin, handle: p.reindex},
		route{Pattern: "GET " + pr + "/memory", Role: viewer, handle: p.memory},
		route{Pattern: "POST " + pr + "/memory/{id}/forget", Role: admin, handle: p.forget},
		route{Pattern: "POST " + pr + "/memory/purge", Role: admin, handle: p.purge},
		route{Pattern: "GET " + pr + "/agents", Role: viewer, handle: p.agents},
		route{Pattern: "POST " + pr + "/agents", Role: admin, handle: p.mint},
		route{Pattern: "POST " + pr + "/agents/{agent}/rotate", Role: admin, handle: p.rotate},
		route{Pattern: "POST " + pr + "/agents/{agent}/revoke", Role: admin, handle: p.revoke},
		route{Pattern: "/", Role: gateway.RoleSignedIn, handle: func(w http.ResponseWriter, r *http.Request, c *call) {
			p.problem(w, r, c, http.StatusNotFound, "No such page", "There is no page at this address.")
		}},
	)
	return rs
}

func (p *Panel) routes() *http.ServeMux {
	mux := http.NewServeMux()
	for _, rt := range p.table() {
		if rt.Public != nil {
			mux.Handle(rt.Pattern, rt.Public)
			continue
		}
		mux.Handle(rt.Pattern, p.authLimit(rt.Role, cmp.Or(rt.limit, gateway.MaxAPIBody), rt.handle))
	}
	return mux
}

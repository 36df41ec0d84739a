package panel

import (
	"embed"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"time"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Options configures a Panel.
type Options struct {
	// API is the gateway's admin API handler (gateway.Options.UI is given
	// it); every page is built from its answers.
	API     http.Handler
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
	p := &Panel{opts: o, log: log, now: o.Now, api: o.API, sessions: newSessions(o.Now, o.SessionIdle, o.SessionMax)}
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

func (p *Panel) routes() *http.ServeMux {
	mux := http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	files := http.StripPrefix("/ui/static/", http.FileServerFS(static))
	mux.Handle("GET /ui/static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		files.ServeHTTP(w, r)
	}))
	mux.HandleFunc("GET /login", p.loginPage)
	mux.HandleFunc("POST /login", p.login)
	mux.Handle("POST /logout", p.auth(p.logout))

	mux.Handle("GET /{$}", p.auth(p.overview))
	mux.Handle("GET /ui/queue", p.auth(p.queue))
	mux.Handle("GET /ui/audit", p.auth(p.audit))
	for _, base := range []string{"/ui", "/ui/projects/{project}"} {
		mux.Handle("GET "+base+"/secrets", p.auth(p.secrets))
		mux.Handle("POST "+base+"/secrets", p.authLimit(secretFormLimit, p.addSecret))
		mux.Handle("POST "+base+"/secrets/{name}/rotate", p.authLimit(secretFormLimit, p.rotateSecret))
		mux.Handle("POST "+base+"/secrets/{name}/revoke", p.auth(p.revokeSecret))
	}
	for _, page := range []string{"rules", "patterns", "memory", "agents"} {
		mux.Handle("GET /ui/"+page, p.auth(p.toProject(page)))
	}
	pr := "/ui/projects/{project}"
	mux.Handle("GET "+pr+"/proposals/{number}", p.auth(p.proposal))
	mux.Handle("POST "+pr+"/proposals/{number}/approve", p.auth(p.approve))
	mux.Handle("POST "+pr+"/proposals/{number}/reject", p.auth(p.reject))
	mux.Handle("GET "+pr+"/rules", p.auth(p.rules))
	mux.Handle("GET "+pr+"/rules/{agent}", p.auth(p.agentRender))
	mux.Handle("POST "+pr+"/propose", p.auth(p.propose))
	mux.Handle("POST "+pr+"/guardrails/{id}/edit", p.auth(p.editGuardrailForm))
	mux.Handle("POST "+pr+"/vendor/sync", p.auth(p.vendorSync))
	mux.Handle("POST "+pr+"/upstreams/{name}/restart", p.auth(p.restartUpstream))
	mux.Handle("GET "+pr+"/patterns", p.auth(p.patterns))
	mux.Handle("POST "+pr+"/patterns/reindex", p.auth(p.reindex))
	mux.Handle("GET "+pr+"/memory", p.auth(p.memory))
	mux.Handle("POST "+pr+"/memory/{id}/forget", p.auth(p.forget))
	mux.Handle("POST "+pr+"/memory/purge", p.auth(p.purge))
	mux.Handle("GET "+pr+"/agents", p.auth(p.agents))
	mux.Handle("POST "+pr+"/agents", p.auth(p.mint))
	mux.Handle("POST "+pr+"/agents/{agent}/rotate", p.auth(p.rotate))
	mux.Handle("POST "+pr+"/agents/{agent}/revoke", p.auth(p.revoke))
	mux.Handle("/", p.auth(func(w http.ResponseWriter, r *http.Request, c *call) {
		p.problem(w, r, c, http.StatusNotFound, "No such page", "There is no page at this address.")
	}))
	return mux
}

package gateway

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/memory"
	"github.com/bridle-dev/bridle/redact"
	"github.com/bridle-dev/bridle/upstream"
	"github.com/bridle-dev/bridle/vault"
)

// Options configures a Server beyond its Config.
type Options struct {
	Version  string
	Redactor *redact.Redactor // the one redactor; every secret the server reads is added to it
	Logger   *slog.Logger     // discarded when nil
	// Memory is the server-wide memory configuration (QDRANT_URL,
	// EMBEDDINGS_URL, …); each project gets its own store or namespace.
	Memory   memory.Config
	Examples memory.ExampleOptions
	Refresh  time.Duration // how often rules are re-checked; 2 s
	// SessionTimeout closes an MCP session idle this long; 1 h. A client
	// that comes back later starts a new one (the bridge does it itself).
	SessionTimeout time.Duration
	// Grace is how long shutdown waits for in-flight calls; 10 s.
	Grace time.Duration
	// MaxFailures is how many failed authentications an address may make
	// within FailureWindow before it is refused (429) until the window has
	// passed; 10 a minute. The loopback (127.0.0.0/8, ::1) is one address,
	// and so is an IPv6 /64; every address together may make ten times as
	// many.
	MaxFailures int
	// MaxSessions is how many MCP sessions one agent's token may hold
	// open in its project at once; 64. A new one beyond is refused (429).
	MaxSessions int
	// BodyTimeout is how long a client may take to send a request's body
	// once its headers are in; 30 s.
	BodyTimeout time.Duration
	// HeaderTimeout is how long a client may take to send its request's
	// headers (slow-loris); 10 s.
	HeaderTimeout time.Duration
	Now           func() time.Time
	// UI, when set, builds the web panel from the admin API's handler
	// (authenticated by the admin credential, or by a person the panel
	// signed in and put in the request's context; role-checked and audited
	// as over HTTP): the panel is a client of that handler and has no other
	// way in. Its
	// handler is mounted at / behind the same host check and cross-origin
	// protection as every endpoint; /api/v1, /p/…/mcp, /healthz, /readyz and
	// /metrics keep their own.
	//
	// signIn is the identity provider people sign in with (auth.oidc), nil
	// when none is configured.
	UI func(api http.Handler, signIn *SignIn) http.Handler
	// Getenv lets the vault read NAME_FILE and NAME (development); nil: the
	// environment is no source of secrets.
	Getenv func(string) string
	// NewCodec opens SOPS files; nil: the bridle-sops helper (vault.FindHelper).
	NewCodec func() (vault.Codec, error)
	// Executable is the binary served at DownloadPath; nil: the running
	// one.
	Executable func() (string, error)
	// DownloadRate is the slowest, in bytes a second on average, a client
	// may read the binary at DownloadPath once DownloadGrace has passed;
	// a slower one is cut off. DownloadRate (32 KiB/s) and DownloadGrace
	// (10 s) when zero.
	DownloadRate  int
	DownloadGrace time.Duration
}

// Server is the gateway.
type Server struct {
	cfg   Config
	opts  Options
	log   *slog.Logger
	red   *redact.Redactor
	now   func() time.Time
	start time.Time

	tokens *Tokens
	people *PersonTokens // people's own API tokens (bridle login, the account page)
	admin  *Admin
	// auth is the configuration's auth: (roles, break-glass), swapped
	// whole by SetAuth; read at every request.
	auth     atomic.Pointer[AuthConfig]
	vault    *vault.Scope // server-wide; each project's falls back to it
	vaultKey []byte
	// serverAudit records server-wide vault changes.
	serverAudit *audit.Log
	projects    map[string]*Project
	ids         []string // sorted

	sessions *sessions
	// slotsMu orders taking a session slot and recording the session it
	// opened; opening counts the requests holding a slot, by project and
	// agent.
	slotsMu sync.Mutex
	opening map[string]int
	metrics *metrics
	limiter *limiter
	dl      *downloads
	origins *http.CrossOriginProtection
	ui      http.Handler // the web panel, nil without one

	ctx    context.Context // the server's lifetime: upstream children run under it
	cancel context.CancelFunc

	background sync.WaitGroup // the scheduled vendor sync
	inflight   sync.WaitGroup // MCP and admin requests being answered
	closeMu    sync.RWMutex   // closing and inflight.Add together
	closing    bool
}

// New builds the server: it validates cfg, opens the token store and the
// admin credential, and builds every project (no rules are fetched yet).
func New(cfg Config, opts Options) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if opts.Redactor == nil {
		opts.Redactor = redact.New()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Refresh <= 0 {
		opts.Refresh = 2 * time.Second
	}
	if opts.SessionTimeout <= 0 {
		opts.SessionTimeout = time.Hour
	}
	if opts.Grace <= 0 {
		opts.Grace = 10 * time.Second
	}
	if opts.MaxFailures <= 0 {
		opts.MaxFailures = MaxFailures
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = 64
	}
	if opts.BodyTimeout <= 0 {
		opts.BodyTimeout = 30 * time.Second
	}
	if opts.HeaderTimeout <= 0 {
		opts.HeaderTimeout = 10 * time.Second
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = slog.New(opts.Redactor.Handler(log.Handler()))
	s := &Server{cfg: cfg, opts: opts, log: log, red: opts.Redactor, now: opts.Now, start: opts.Now(),
		projects: map[string]*Project{}, sessions: newSessions(), opening: map[string]int{}, limiter: newLimiter(opts.Now, opts.MaxFailures)}
	auth := cfg.Auth
	s.auth.Store(&auth)
	s.dl = newDownloads(opts.Now, opts.Executable, opts.DownloadRate, opts.DownloadGrace)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	var err error
	if s.tokens, err = OpenTokens(filepath.Join(cfg.StateDir, "gateway", "agents.json"), opts.Now); err != nil {
		return nil, err
	}
	if s.people, err = OpenPersonTokens(filepath.Join(cfg.StateDir, "gateway", "people.json"), opts.Now); err != nil {
		return nil, err
	}
	if s.admin, err = LoadAdmin(cfg.Admin.TokenFile, filepath.Join(cfg.StateDir, "gateway"), s.red); err != nil {
		return nil, err
	}
	// Agent tokens are stored hashed: after a restart only their shape
	// tells them apart, and it is enough to mask them anywhere.
	s.red.AddPattern(tokenShape.Regexp())
	if err := s.openVault(); err != nil {
		return nil, err
	}
	s.origins = http.NewCrossOriginProtection()
	s.origins.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		refusal(w, "forbidden: a cross-origin request (another site's page or form)", http.StatusForbidden)
	}))
	for _, o := range cfg.AllowedOrigins {
		if err := s.origins.AddTrustedOrigin(o); err != nil {
			return nil, fmt.Errorf("%w: allowed_origins: %w", ErrConfig, err)
		}
	}
	s.ids = slices.Sorted(maps.Keys(cfg.Projects))
	for _, id := range s.ids {
		p, err := s.newProject(id, cfg.Projects[id])
		if err != nil {
			s.Close()
			return nil, err
		}
		s.projects[id] = p
	}
	s.sessions.live = s.openSessions
	s.metrics = newMetrics(s)
	if opts.UI != nil {
		si, err := s.signIn()
		if err != nil {
			s.Close()
			return nil, err
		}
		s.ui = opts.UI(s.track(s.personAuth(s.api())), si)
	}
	go s.watchVaults()
	return s, nil
}

// Admin is the admin credential's file and whether this start generated it.
func (s *Server) Admin() (path string, generated bool) { return s.admin.Path, s.admin.Generated }

// Tokens is the agents' token store.
func (s *Server) Tokens() *Tokens { return s.tokens }

// Handler is every endpoint: /healthz, /readyz, /metrics, /p/{project}/mcp,
// the admin API under /api/v1, the gateway's own binary for CI at
// DownloadPath (public, rate-limited: see downloads) and, with Options.UI,
// the web panel at /.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.Handle("GET /metrics", s.metrics.handler())
	mux.HandleFunc("GET "+DownloadPath, s.dl.serve(false))
	mux.HandleFunc("GET "+DownloadPath+".sha256", s.dl.serve(true))
	mux.Handle("/p/{project}/mcp", s.track(http.HandlerFunc(s.serveMCP)))
	mux.Handle("/api/v1/", s.adminAPI())
	if s.ui != nil {
		// Tracked like the API: header and body timeouts, and shutdown
		// waits for its requests in flight.
		mux.Handle("/", s.track(s.ui))
	}
	return s.hostCheck(oneCredential(s.origins.Handler(mux)))
}

// oneCredential refuses a request with more than one Authorization header
// (400), before any credential is checked: which one counts would be up to
// each reader of the request (Go's first, a proxy's or a log's another).
func oneCredential(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.Header.Values("Authorization")) > 1 {
			refusal(w, "bad request: more than one Authorization header", http.StatusBadRequest)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// adminAPI is the admin API: the admin credential, then the routes.
func (s *Server) adminAPI() http.Handler { return s.track(s.adminAuth(s.api())) }

// hostCheck refuses, on a loopback listener, a request whose Host is not a
// loopback name (a DNS-rebinding page), on every endpoint.
func (s *Server) hostCheck(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil && loopback(local.String()) && !loopback(r.Host) {
			refusal(w, "forbidden: this server answers only to a loopback host name", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// RefusalCSP is the Content-Security-Policy of the gateway's own
// refusals (the host check's, the cross-origin protection's): plain text
// that needs nothing, so it may load, run, frame and post nothing. A
// refusal on a panel path is thus no weaker than the panel's own pages.
const RefusalCSP = "default-src 'none'; script-src 'none'; style-src 'none'; img-src 'none'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"

// refusal answers a refusal as plain text with the security headers a
// browser may meet it under: no script, no sniffing, no framing, no
// referrer.
func refusal(w http.ResponseWriter, msg string, code int) {
	h := w.Header()
	h.Set("Content-Security-Policy", RefusalCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	http.Error(w, msg, code)
}

// loopback reports whether hostport names this machine's loopback.
func loopback(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// track counts a request as in flight, for a graceful shutdown, and gives
// its body BodyTimeout to arrive.
func (s *Server) track(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/mcp") {
			h.ServeHTTP(w, r) // a standalone event stream is not a call
			return
		}
		if !s.enter() {
			w.Header().Set("Connection", "close")
			http.Error(w, "shutting down", http.StatusServiceUnavailable)
			return
		}
		defer s.inflight.Done()
		if r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(w)
			if rc.SetReadDeadline(s.now().Add(s.opts.BodyTimeout)) == nil {
				r.Body = &deadlineBody{ReadCloser: r.Body, clear: func() { rc.SetReadDeadline(time.Time{}) }}
			}
		}
		h.ServeHTTP(w, r)
	})
}

// enter counts one more request in flight, unless the server is closing.
func (s *Server) enter() bool {
	s.closeMu.RLock()
	defer s.closeMu.RUnlock()
	if s.closing {
		return false
	}
	s.inflight.Add(1)
	return true
}

// deadlineBody lifts the connection's read deadline once the body is read
// whole: an answer streamed for minutes is not cut.
type deadlineBody struct {
	io.ReadCloser
	clear func()
	done  bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		b.clear()
	}
	return n, err
}

// serveMCP authenticates the token against the path's project and hands
// the request to that project's MCP handler. An unknown project, no
// token, an unknown token and another project's token get the same 401.
func (s *Server) serveMCP(w http.ResponseWriter, r *http.Request) {
	p, ok := s.projects[r.PathValue("project")]
	if !ok {
		s.refuse(w, r, "mcp")
		return
	}
	a, ok := s.tokens.Verify(bearer(r))
	if !ok || a.Project != p.ID {
		s.refuse(w, r, "mcp")
		return
	}
	if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" {
		// A request without a session may open one: its slot is taken
		// before the session exists, so initializes sent together cannot
		// all pass the count.
		n, ok := s.reserveSession(p, a.Agent)
		if !ok {
			w.Header().Set("Retry-After", "60")
			http.Error(w, fmt.Sprintf("agent %s already has %d sessions open in project %s: close one first (idle sessions close after %s)",
				a.Agent, n, p.ID, s.opts.SessionTimeout), http.StatusTooManyRequests)
			return
		}
		defer s.settleSession(p, a.Agent, w)
	}
	info := &auth.TokenInfo{UserID: a.Project + "/" + a.Agent, Extra: map[string]any{mcp.TokenAgent: a.Agent},
		Expiration: s.now().Add(24 * time.Hour)}
	withToken(p.handler, info).ServeHTTP(w, r)
}

// withToken hands info to the SDK the only way it takes one: through its
// own bearer middleware, with a verifier that returns it.
func withToken(h http.Handler, info *auth.TokenInfo) http.Handler {
	return auth.RequireBearerToken(func(context.Context, string, *http.Request) (*auth.TokenInfo, error) {
		return info, nil
	}, nil)(h)
}

// bearer is the request's bearer token, "" when it has none.
func bearer(r *http.Request) string {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}

// refuse answers a request without a valid credential: 401 with no
// detail, or 429 once its address has failed too often lately. Only
// failures count: a valid credential is always admitted, so that one client
// failing on purpose (a web page's <img> at the loopback, a hostile agent)
// cannot lock out every other client of the same address. Every failure
// counts, whatever headers the request carries (Sec-Fetch-* are the
// client's to choose); only a preflight, which carries no credential, is
// refused uncounted.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, endpoint string) {
	s.metrics.authFailures.WithLabelValues(endpoint).Inc()
	ip := ClientKey(r)
	if wait := s.limiter.blocked(ip); wait > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(int(wait.Seconds())+1))
		refusal(w, "too many failed attempts; try again later", http.StatusTooManyRequests)
		return
	}
	if r.Method != http.MethodOptions {
		s.limiter.fail(ip)
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="bridle"`)
	refusal(w, "unauthorized", http.StatusUnauthorized)
}

// openSessions is every open session, by project and id (the session
// table's key).
func (s *Server) openSessions() map[string]bool {
	open := map[string]bool{}
	for _, id := range s.ids {
		for ss := range s.projects[id].mcp.SDK().Sessions() {
			open[id+"\x00"+ss.ID()] = true
		}
	}
	return open
}

// reserveSession takes one of agent's session slots in p for a request
// that may open a session, when the open sessions and the slots already
// taken leave one; n is how many are held.
func (s *Server) reserveSession(p *Project, agent string) (n int, ok bool) {
	s.slotsMu.Lock()
	defer s.slotsMu.Unlock()
	key := p.ID + "\x00" + agent
	n = s.agentSessions(p, agent) + s.opening[key]
	if n >= s.opts.MaxSessions {
		return n, false
	}
	s.opening[key]++
	return n, true
}

// settleSession gives back the slot reserveSession took, once the request
// is answered; a session it opened (the SDK names it in the response) is
// recorded as agent's first, so that it is counted from then on.
func (s *Server) settleSession(p *Project, agent string, w http.ResponseWriter) {
	s.slotsMu.Lock()
	defer s.slotsMu.Unlock()
	if id := w.Header().Get("Mcp-Session-Id"); id != "" {
		s.sessions.claim(p.ID, id, agent, s.now())
	}
	key := p.ID + "\x00" + agent
	if s.opening[key]--; s.opening[key] <= 0 {
		delete(s.opening, key)
	}
}

// agentSessions is how many open sessions agent holds in p, not counting
// those whose opening request still holds its slot (reserveSession counts
// those).
func (s *Server) agentSessions(p *Project, agent string) int {
	n := 0
	for ss := range p.mcp.SDK().Sessions() {
		if s.sessions.claimedBy(p.ID, ss.ID()) == agent {
			n++
		}
	}
	return n
}

// closeSessions ends every open session of agent in p (its token was
// revoked or rotated): its event stream stops at once.
func (s *Server) closeSessions(p *Project, agent string) int {
	n := 0
	for ss := range p.mcp.SDK().Sessions() {
		if s.sessions.agentOf(p.ID, ss.ID()) == agent {
			ss.Close()
			n++
		}
	}
	return n
}

// ClientKey is which client a request is from, for every per-client bound
// (failed tokens, downloads, the panel's sign-ins in progress): its IPv4 address,
// its IPv6 /64 (one host commonly holds a whole /64, and would otherwise
// rotate through it for fresh guesses), or the loopback: 127.0.0.0/8 and
// ::1 are all this machine, one client.
func ClientKey(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	addr = addr.Unmap()
	if addr.IsLoopback() {
		return "loopback"
	}
	if addr.Is6() {
		if p, err := addr.Prefix(64); err == nil {
			return p.String()
		}
	}
	return addr.String()
}

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "version": s.opts.Version})
}

// Ready is /readyz's answer.
type Ready struct {
	Ready    bool            `json:"ready"`
	Projects []ProjectStatus `json:"projects"`
	Backends []BackendStatus `json:"backends"`
}

// BackendStatus is one backend's reachability.
type BackendStatus struct {
	Name    string    `json:"name"`
	Project string    `json:"project,omitempty"`
	Up      bool      `json:"up"`
	Detail  string    `json:"detail,omitempty"`
	Since   time.Time `json:"since,omitzero"`
}

// readyz is 200 when every project's rules are loaded and fresh, 503 with
// what is not otherwise: a stale project (its source down) is still
// served, and named.
// With the admin credential it says everything (sources, commits, errors);
// without, only which project and backend is up.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	rd := s.ready(r.Context())
	code := http.StatusOK
	if !rd.Ready {
		code = http.StatusServiceUnavailable
	}
	if s.adminCredential(bearer(r)) {
		s.ok(w, code, rd)
		return
	}
	pub := Ready{Ready: rd.Ready, Projects: []ProjectStatus{}, Backends: []BackendStatus{}}
	for _, p := range rd.Projects {
		pub.Projects = append(pub.Projects, ProjectStatus{ID: p.ID, Backend: p.Backend, Loaded: p.Loaded, Approved: p.Approved, Stale: p.Stale})
	}
	for _, b := range rd.Backends {
		pub.Backends = append(pub.Backends, BackendStatus{Name: b.Name, Project: b.Project, Up: b.Up, Since: b.Since})
	}
	s.ok(w, code, pub)
}

func (s *Server) ready(ctx context.Context) Ready {
	rd := Ready{Ready: true, Projects: []ProjectStatus{}, Backends: []BackendStatus{}}
	for _, b := range s.backends(ctx) {
		rd.Backends = append(rd.Backends, b)
		if !b.Up {
			rd.Ready = false
		}
	}
	for _, id := range s.ids {
		rd.Projects = append(rd.Projects, s.projectStatus(s.projects[id]))
	}
	return rd
}

func (s *Server) projectStatus(p *Project) ProjectStatus {
	ps := p.Status(s.now())
	ps.Agents = len(s.tokens.List(p.ID))
	ps.Sessions = p.liveSessions()
	return ps
}

// backends is each project's rules source and memory store, and the
// embedding server, up or down, and since when it is so.
func (s *Server) backends(ctx context.Context) []BackendStatus {
	var out []BackendStatus
	if u := s.opts.Memory.EmbeddingsURL; u != "" {
		b := BackendStatus{Name: "embeddings", Up: true}
		if err := s.pingEmbeddings(ctx, u); err != nil {
			b.Up, b.Detail = false, s.red.Redact(err.Error())
		}
		out = append(out, s.sessions.transition(b))
	}
	for _, id := range s.ids {
		p := s.projects[id]
		ps := p.Status(s.now())
		b := BackendStatus{Name: "rules:" + ps.Backend, Project: id, Up: ps.Loaded && !ps.Stale}
		switch {
		case !ps.Loaded:
			b.Detail = ps.Error
		case ps.Stale:
			b.Detail = "serving the last rules, stale: " + ps.Reason
		}
		out = append(out, s.sessions.transition(b))
		if p.kanboard != nil {
			k := BackendStatus{Name: "kanboard", Project: id, Up: true}
			kctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			if _, err := p.kanboard.Version(kctx); err != nil {
				k.Up, k.Detail = false, s.red.Redact(err.Error())
			}
			cancel()
			out = append(out, s.sessions.transition(k))
		}
		for _, u := range p.upstreams {
			st := u.Status()
			out = append(out, s.sessions.transition(BackendStatus{Name: "upstream:" + st.Name, Project: id,
				Up: st.State == upstream.StateUp, Detail: s.red.Redact(st.LastError)}))
		}
		if s.opts.Memory.QdrantURL != "" {
			m := BackendStatus{Name: "memory:qdrant", Project: id, Up: true}
			if err := pingMemory(ctx, p); err != nil {
				m.Up, m.Detail = false, s.red.Redact(err.Error())
			}
			out = append(out, s.sessions.transition(m))
		}
	}
	return out
}

// pingEmbeddings asks an OpenAI-compatible server for its models: any
// answer but a server error means it is up.
func (s *Server) pingEmbeddings(ctx context.Context, base string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+"/models", nil)
	if err != nil {
		return err
	}
	if k := s.opts.Memory.EmbeddingsKey; k != "" {
		req.Header.Set("Authorization", "Bearer "+k)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode >= 500 {
		return fmt.Errorf("embeddings: %s answered %s", base, resp.Status)
	}
	return nil
}

// warmMemory loads each project's embedded memory index in the
// background, so that the first search after a start is as fast as the
// rest. A store that cannot warm (Qdrant) or fails is left to open on first
// use, as it would anyway.
func (s *Server) warmMemory(ctx context.Context) {
	for _, id := range s.ids {
		if ctx.Err() != nil {
			return
		}
		st, _, err := s.projects[id].memory()
		if err != nil {
			continue
		}
		if w, ok := st.(interface{ Warm(context.Context) error }); ok {
			if err := w.Warm(ctx); err != nil && ctx.Err() == nil {
				s.log.Debug("memory index not warmed; it loads on the first search", "project", id, "err", s.red.Error(err))
			}
		}
	}
}

func pingMemory(ctx context.Context, p *Project) error {
	st, _, err := p.memory()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if _, err := st.Count(ctx, memory.MemoryCollection, memory.Filter{}); err != nil && !errors.Is(err, memory.ErrNoCollection) {
		return err
	}
	return nil
}

// Serve serves on ln until ctx is done, then shuts down gracefully: it
// stops accepting, lets the calls in flight finish (for up to Grace),
// closes every MCP session (which ends their event streams) and returns.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: s.opts.HeaderTimeout, // slow-loris headers
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	tlsOn := s.cfg.TLS.CertFile != ""
	if tlsOn {
		hs.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	if every, _ := s.cfg.Vendor.Interval(); every > 0 {
		s.background.Go(func() { s.vendorLoop(s.ctx, every) })
	}
	s.background.Go(func() { s.warmMemory(s.ctx) })
	s.background.Go(func() { s.checkBots(s.ctx) })
	errc := make(chan error, 1)
	go func() {
		if tlsOn {
			errc <- hs.ServeTLS(ln, s.cfg.TLS.CertFile, s.cfg.TLS.KeyFile)
		} else {
			errc <- hs.Serve(ln)
		}
	}()
	select {
	case err := <-errc:
		s.Close()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	s.closeMu.Lock()
	s.closing = true
	s.closeMu.Unlock()
	s.log.Info("shutting down: letting calls in flight finish", "grace", s.opts.Grace.String())
	sctx, cancel := context.WithTimeout(context.Background(), s.opts.Grace)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- hs.Shutdown(sctx) }()
	idle := make(chan struct{})
	go func() { s.inflight.Wait(); close(idle) }()
	select {
	case <-idle:
	case <-sctx.Done():
		s.log.Warn("shutdown: calls still in flight after the grace period", "grace", s.opts.Grace.String())
	}
	for _, id := range s.ids {
		for ss := range s.projects[id].mcp.SDK().Sessions() {
			ss.Close()
		}
	}
	if err := <-done; err != nil {
		hs.Close()
	}
	s.Close()
	s.log.Info("stopped")
	return nil
}

// Close stops what the server started besides listening: the scheduled
// vendor sync and the upstream MCP servers' children. Serve calls it on its way out.
func (s *Server) Close() {
	s.cancel()
	s.background.Wait()
	for _, p := range s.projects {
		for _, u := range p.upstreams {
			u.Close()
		}
	}
}

// URL is how a client reaches a listener at addr.
func (s *Server) URL(addr net.Addr) string {
	scheme := "http"
	if s.cfg.TLS.CertFile != "" {
		scheme = "https"
	}
	return scheme + "://" + addr.String()
}

// Projects is the served projects' ids, sorted.
func (s *Server) Projects() []string { return slices.Clone(s.ids) }

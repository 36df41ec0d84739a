package panel

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/bridle-dev/bridle/actor"
	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/internal/lazyregexp"
)

// CookieName is the session cookie's name.
const CookieName = "bridle_session"

// maxSessions bounds the store: signing in beyond it ends the oldest.
const maxSessions = 1000

type session struct {
	id, csrf string
	token    string // the admin credential (a break-glass session): server side only
	// person is who signed in through an identity provider (token is
	// empty then): the API acts as them, with the role the configuration
	// gives them at each request.
	person actor.Actor
	// providerToken is the OAuth access token the provider gave person
	// (server side only; never logged or shown), until providerExpiry: the
	// gateway merges with it on that provider's own Gitea.
	providerToken  string
	providerExpiry time.Time
	// groups are the provider's groups of person at sign-in (roles may be
	// given by group).
	groups  []string
	created time.Time
	seen    time.Time
	project string // the project last looked at
	flash   *flash
}

// flash is what the last action did, shown once on the next page.
type flash struct {
	OK    bool
	Text  string
	Link  string // its audit entry, or where to go on (a Gitea merge page)
	Label string
}

type sessions struct {
	mu        sync.Mutex
	now       func() time.Time
	idle, max time.Duration
	byID      map[string]*session
}

func newSessions(now func() time.Time, idle, max time.Duration) *sessions {
	return &sessions{now: now, idle: idle, max: max, byID: map[string]*session{}}
}

func randomID() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails: crypto/rand panics instead
	return base64.RawURLEncoding.EncodeToString(b)
}

// create starts a session holding the admin credential token, or one of
// person.
func (s *sessions) create(token string, person actor.Actor) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	// A person (or the credential) keeps at most perPerson sessions, their
	// own least recently used going first; only when every person's fill
	// the store does anyone else's go — signing in a thousand times does
	// not end the others' sessions.
	var oldest, oldestMine *session
	mine := 0
	for id, ss := range s.byID {
		switch {
		case s.expired(ss, now):
			delete(s.byID, id)
		case samePrincipal(ss, token, person):
			mine++
			if oldestMine == nil || ss.seen.Before(oldestMine.seen) {
				oldestMine = ss
			}
		case oldest == nil || ss.seen.Before(oldest.seen):
			oldest = ss
		}
	}
	if mine >= perPerson {
		delete(s.byID, oldestMine.id)
	} else if len(s.byID) >= maxSessions && oldest != nil {
		delete(s.byID, oldest.id)
	}
	ss := &session{id: randomID(), csrf: randomID(), token: token, person: person, created: now, seen: now}
	s.byID[ss.id] = ss
	return ss
}

// perPerson is the most sessions one person (or the admin credential)
// holds at once.
const perPerson = 16

// samePrincipal reports whether ss is a session of the credential token,
// or of person.
func samePrincipal(ss *session, token string, person actor.Actor) bool {
	if token != "" || ss.token != "" {
		return token != "" && ss.token != "" && subtle.ConstantTimeCompare([]byte(token), []byte(ss.token)) == 1
	}
	return ss.person.Subject != "" && ss.person.Subject == person.Subject
}

func (s *sessions) expired(ss *session, now time.Time) bool {
	return now.Sub(ss.seen) > s.idle || now.Sub(ss.created) > s.max
}

// get is the live session of id, marked used now.
func (s *sessions) get(id string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.byID[id]
	if ss == nil {
		return nil
	}
	now := s.now()
	if s.expired(ss, now) {
		delete(s.byID, id)
		return nil
	}
	ss.seen = now
	return ss
}

func (s *sessions) end(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byID, id)
}

// setFlash and takeFlash pass what an action did to the page it
// redirects to, through the session (never the URL).
func (s *sessions) setFlash(ss *session, f flash) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss.flash = &f
}

func (s *sessions) takeFlash(ss *session) *flash {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := ss.flash
	ss.flash = nil
	return f
}

func (s *sessions) setProject(ss *session, project string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss.project = project
}

func (s *sessions) lastProject(ss *session) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ss.project
}

func cookie(r *http.Request, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: CookieName, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil}
}

// call is one request of a signed-in person: the session and the API.
type call struct {
	p  *Panel
	r  *http.Request
	ss *session
	me *gateway.Me // who the API says the session is, asked once a request
}

// authLimit admits a request with a live session whose person has role
// (asked of the API at every request: a change of the configuration holds
// at once); without a session a GET is sent to /login (and back), anything
// else is 401; below role it is 403. Every POST must carry the session's
// CSRF token (403 without), and a form may be up to limit bytes (a
// secret's value, form-encoded, is larger than the API's own limit on the
// wire): a larger one is refused, saying so, before anything reads it.
func (p *Panel) authLimit(role gateway.Role, limit int64, h func(http.ResponseWriter, *http.Request, *call)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ss *session
		if ck, err := r.Cookie(CookieName); err == nil {
			ss = p.sessions.get(ck.Value)
		}
		if ss == nil {
			if r.Method == http.MethodGet || r.Method == http.MethodHead {
				http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			http.Error(w, "unauthorized: sign in at /login", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, limit)
			var tooLarge *http.MaxBytesError
			if err := r.ParseForm(); errors.As(err, &tooLarge) {
				http.Error(w, fmt.Sprintf("request entity too large: this form is larger than %d KB, the most the panel takes here; nothing was changed", limit>>10),
					http.StatusRequestEntityTooLarge)
				return
			}
			if subtle.ConstantTimeCompare([]byte(r.PostFormValue("csrf")), []byte(ss.csrf)) != 1 {
				http.Error(w, "forbidden: this form is stale or was not sent by the panel (no valid CSRF token); reload the page and try again", http.StatusForbidden)
				return
			}
		}
		c := &call{p: p, r: r, ss: ss}
		me, err := c.whoami()
		if err != nil {
			c.failed(w, "Who you are", err)
			return
		}
		if !me.Role.Allows(role) {
			p.log.Info("panel: refused for role", "method", r.Method, "path", r.URL.Path, "actor", me.String(), "role", string(me.Role), "needs", string(role))
			p.refusedRole(w, r, c, role)
			return
		}
		if !p.pathValuesOK(c) {
			p.problem(w, r, c, http.StatusNotFound, "No such page", "There is no page at this address.")
			return
		}
		h(w, r, c)
	})
}

// segment is what a path value of a panel address may hold: the charset of
// project ids, agent names, proposal numbers, memory ids and secret names. Nothing that
// could change a URL's structure (/ ? # % \) gets into a page, so a value
// drawn into a form's action can never aim the form at another route.
var segment = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// pathValuesOK is whether every path value of the request is a plain
// segment and its {project} one the gateway serves (an unknown project
// draws no page, and never becomes the session's last project).
func (p *Panel) pathValuesOK(c *call) bool {
	for _, name := range []string{"project", "agent", "number", "id", "name"} {
		if v := c.r.PathValue(name); v != "" && !segment.MatchString(v) {
			return false
		}
	}
	project := c.r.PathValue("project")
	if project == "" {
		return true
	}
	var ps []gateway.ProjectStatus
	if c.get("/api/v1/projects", &ps) != nil {
		return true // the page's own call reports why the API failed
	}
	for _, s := range ps {
		if s.ID == project {
			return true
		}
	}
	return false
}

// localPath is next when it is a path on this server, else "/": no
// scheme, no host, no protocol-relative //host, no backslash tricks.
func localPath(next string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n\t") {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || strings.HasPrefix(next, "/login") {
		return "/"
	}
	return next
}

type loginData struct {
	Next, Error string
	Version     string
	// Provider is the identity provider's name (Gitea) when people sign
	// in with one: the page offers it beside the admin credential.
	Provider string
}

func (p *Panel) loginData(next string) loginData {
	d := loginData{Next: localPath(next), Version: p.opts.Version}
	if p.oidc != nil {
		d.Provider = p.oidc.si.Name
	}
	return d
}

func (p *Panel) loginPage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	p.renderPage(w, http.StatusOK, "login", p.loginData(r.URL.Query().Get("next")))
}

// login checks the credential by asking the admin API with it, from the
// browser's address: a wrong one counts against the gateway's limit of
// failed credentials, and past it the API's 429 is the answer.
func (p *Panel) login(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	r.Body = http.MaxBytesReader(w, r.Body, 8<<10)
	token := strings.TrimSpace(r.PostFormValue("token"))
	next := localPath(r.PostFormValue("next"))
	data := p.loginData(next)
	if token == "" {
		data.Error = "Enter the admin credential."
		p.renderPage(w, http.StatusBadRequest, "login", data)
		return
	}
	c := &call{p: p, r: r, ss: &session{token: token}}
	var projects []gateway.ProjectStatus
	switch err := c.get("/api/v1/projects", &projects); {
	case err == nil:
	case statusOf(err) == http.StatusTooManyRequests:
		w.Header().Set("Retry-After", "60")
		data.Error = "Too many failed sign-ins from your address. Wait a minute, then try again."
		p.renderPage(w, http.StatusTooManyRequests, "login", data)
		return
	case statusOf(err) == http.StatusUnauthorized:
		p.log.Warn("panel sign-in refused", "addr", r.RemoteAddr)
		data.Error = "That is not the admin credential."
		p.renderPage(w, http.StatusUnauthorized, "login", data)
		return
	default:
		data.Error = "The gateway could not check the credential: " + err.Error()
		p.renderPage(w, http.StatusBadGateway, "login", data)
		return
	}
	if ck, err := r.Cookie(CookieName); err == nil {
		p.sessions.end(ck.Value) // a new id at every sign-in: no fixation
	}
	ss := p.sessions.create(token, actor.Actor{})
	if len(projects) > 0 {
		p.sessions.setProject(ss, projects[0].ID)
	}
	p.log.Info("panel sign-in", "addr", r.RemoteAddr)
	http.SetCookie(w, cookie(r, ss.id, int(p.opts.SessionMax.Seconds())))
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (p *Panel) logout(w http.ResponseWriter, r *http.Request, c *call) {
	p.sessions.end(c.ss.id)
	http.SetCookie(w, cookie(r, "", -1))
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

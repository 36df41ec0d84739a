package panel

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/bridle-dev/bridle/actor"
	"github.com/bridle-dev/bridle/gateway"
)

// The sign-in through an OpenID Connect provider (gateway.SignIn): the
// authorization code flow with PKCE (S256). /auth/login keeps a
// pre-session server side — state, nonce and the PKCE verifier, for
// signInTTL — bound to the browser by a cookie of its own, and sends the
// browser to the provider; /auth/callback takes that pre-session once
// (a replayed or forged state finds none), checks state, exchanges the
// code with the verifier, verifies the ID token (the provider's keys,
// issuer, audience, expiry) and its nonce, and starts a session of the
// person it names. No token the provider gives is kept, logged or shown.

// SignInCookie binds a browser to its pending sign-in.
const SignInCookie = "bridle_signin"

// signInTTL is how long a sign-in may take at the provider.
const signInTTL = 10 * time.Minute

// maxPending bounds the pending sign-ins: beyond it a new one is refused.
// perAddress bounds one client address's: beyond it that address's oldest
// is dropped, so one client cannot fill the store and push out others'.
const (
	maxPending = 1000
	perAddress = 8
)

type pending struct {
	state, nonce, verifier, next string
	addr                         string // the client (gateway.ClientKey: an IPv6 /64 is one client)
	created                      time.Time
}

// oidcFlow is the panel's side of the provider.
type oidcFlow struct {
	si     *gateway.SignIn
	now    func() time.Time
	client *http.Client

	mu       sync.Mutex
	provider *oidc.Provider // discovered at the first sign-in that reaches the provider
	pending  map[string]pending
}

func newOIDCFlow(si *gateway.SignIn, now func() time.Time) *oidcFlow {
	if si == nil {
		return nil
	}
	return &oidcFlow{si: si, now: now, client: &http.Client{Timeout: 15 * time.Second}, pending: map[string]pending{}}
}

// errProvider is a provider that could not be reached or answered
// nonsense: the sign-in page says so, and the admin credential still works.
var errProvider = errors.New("the identity provider did not answer")

// discover is the provider, found through its discovery document once.
func (f *oidcFlow) discover(ctx context.Context) (*oidc.Provider, error) {
	f.mu.Lock()
	pv := f.provider
	f.mu.Unlock()
	if pv != nil {
		return pv, nil
	}
	ctx, cancel := context.WithTimeout(oidc.ClientContext(ctx, f.client), 15*time.Second)
	defer cancel()
	pv, err := oidc.NewProvider(ctx, f.si.Issuer)
	if err != nil {
		return nil, fmt.Errorf("%w: discover %s: %w", errProvider, f.si.Issuer, err)
	}
	f.mu.Lock()
	f.provider = pv
	f.mu.Unlock()
	return pv, nil
}

// reachable asks the provider for its discovery document again: sending a
// browser to a provider that is down would leave the person on an error
// page of their browser's, not one that says what to do.
func (f *oidcFlow) reachable(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(f.si.Issuer, "/")+"/.well-known/openid-configuration", nil)
	if err != nil {
		return fmt.Errorf("%w: %w", errProvider, err)
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %w", errProvider, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: its discovery document answered %s", errProvider, resp.Status)
	}
	return nil
}

func (f *oidcFlow) config(pv *oidc.Provider, r *http.Request, secret string) *oauth2.Config {
	redirect := f.si.RedirectURL
	if redirect == "" {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		redirect = scheme + "://" + r.Host + gateway.CallbackPath
	}
	scopes := []string{oidc.ScopeOpenID, "profile", "email"}
	if f.si.Groups != nil && f.si.Groups() {
		scopes = append(scopes, "groups") // Gitea's, Dex's: organisations and teams
	}
	return &oauth2.Config{ClientID: f.si.ClientID, ClientSecret: secret, Endpoint: pv.Endpoint(), RedirectURL: redirect, Scopes: scopes}
}

// start records a pending sign-in and answers its id; "" when the store is
// full of other addresses' sign-ins.
func (f *oidcFlow) start(p pending) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var oldest string // of p's address
	mine := 0
	for id, q := range f.pending {
		switch {
		case f.now().Sub(q.created) > signInTTL:
			delete(f.pending, id)
		case q.addr == p.addr:
			mine++
			if oldest == "" || q.created.Before(f.pending[oldest].created) {
				oldest = id
			}
		}
	}
	if mine >= perAddress {
		delete(f.pending, oldest)
	} else if len(f.pending) >= maxPending {
		return ""
	}
	id := randomID()
	f.pending[id] = p
	return id
}

// take is the pending sign-in of id, removed: each is used at most once.
func (f *oidcFlow) take(id string) (pending, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.pending[id]
	delete(f.pending, id)
	if !ok || f.now().Sub(p.created) > signInTTL {
		return pending{}, false
	}
	return p, true
}

func (f *oidcFlow) signInCookie(r *http.Request, value string, maxAge int) *http.Cookie {
	// Lax, not Strict: the provider's redirect back is a navigation from
	// another site, and a Strict cookie would not come with it. Secure over
	// TLS, the gateway's own or a proxy's in front of it (an https
	// redirect_url says there is one).
	return &http.Cookie{Name: SignInCookie, Value: value, Path: "/auth/", MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil || strings.HasPrefix(f.si.RedirectURL, "https://")}
}

// oidcLogin sends the browser to the provider.
func (p *Panel) oidcLogin(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	f := p.oidc
	if f == nil {
		p.signInProblem(w, http.StatusNotFound, "No identity provider is configured here: sign in with the admin credential.")
		return
	}
	pv, err := f.discover(r.Context())
	if err == nil {
		err = f.reachable(r.Context())
	}
	if err != nil {
		p.log.Warn("panel sign-in: provider down", "issuer", f.si.Issuer, "err", err)
		p.signInProblem(w, http.StatusBadGateway, providerDown(f.si))
		return
	}
	verifier := oauth2.GenerateVerifier()
	pd := pending{state: randomID(), nonce: randomID(), verifier: verifier, next: localPath(r.URL.Query().Get("next")), created: f.now(), addr: gateway.ClientKey(r)}
	id := f.start(pd)
	if id == "" {
		p.signInProblem(w, http.StatusServiceUnavailable, "Too many sign-ins are in progress right now; try again in a few minutes.")
		return
	}
	http.SetCookie(w, f.signInCookie(r, id, int(signInTTL.Seconds())))
	to := f.config(pv, r, "").AuthCodeURL(pd.state, oidc.Nonce(pd.nonce), oauth2.S256ChallengeOption(verifier))
	http.Redirect(w, r, to, http.StatusSeeOther)
}

func providerDown(si *gateway.SignIn) string {
	return fmt.Sprintf("%s (%s) did not answer, so signing in with it does not work right now. Try again in a while; "+
		"if you hold the admin credential, it still signs you in (unless auth.break_glass is off).", si.Name, si.Issuer)
}

// claims are what Bridle reads of a verified ID token.
type claims struct {
	PreferredUsername string `json:"preferred_username"`
	Name              string `json:"name"`
	Email             string `json:"email"`
	EmailVerified     bool   `json:"email_verified"`
	// Groups are the provider's groups of the person (with the "groups"
	// scope; Gitea: "ORG" and "ORG:TEAM"). A claim that is not a list of
	// strings is ignored, not refused: roles by name still hold.
	Groups json.RawMessage `json:"groups"`
}

// groups is the claim's groups, when it is a list of strings.
func (c claims) groups() []string {
	var g []string
	if len(c.Groups) == 0 || json.Unmarshal(c.Groups, &g) != nil {
		return nil
	}
	return gateway.CleanGroups(g)
}

// oidcCallback finishes a sign-in: see the comment at the top of the file.
func (p *Panel) oidcCallback(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	f := p.oidc
	if f == nil {
		p.signInProblem(w, http.StatusNotFound, "No identity provider is configured here: sign in with the admin credential.")
		return
	}
	refuse := func(why string) {
		p.log.Warn("panel sign-in refused", "addr", r.RemoteAddr, "why", why)
		p.signInProblem(w, http.StatusBadRequest, "The sign-in could not be completed ("+why+"). Start again from the sign-in page.")
	}
	ck, err := r.Cookie(SignInCookie)
	if err != nil {
		refuse("this browser started no sign-in here, or it took longer than " + signInTTL.String())
		return
	}
	http.SetCookie(w, f.signInCookie(r, "", -1))
	pd, ok := f.take(ck.Value)
	if !ok {
		refuse("this sign-in was already used, or it expired")
		return
	}
	q := r.URL.Query()
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(pd.state)) != 1 {
		refuse("the state the provider sent back is not this sign-in's")
		return
	}
	if e := q.Get("error"); e != "" {
		refuse(f.si.Name + " said " + oneLine(e, 60))
		return
	}
	code := q.Get("code")
	if code == "" {
		refuse("the provider sent no code")
		return
	}
	pv, err := f.discover(r.Context())
	if err != nil {
		p.log.Warn("panel sign-in: provider down", "issuer", f.si.Issuer, "err", err)
		p.signInProblem(w, http.StatusBadGateway, providerDown(f.si))
		return
	}
	secret, err := f.si.Secret()
	if err != nil {
		p.log.Error("panel sign-in: the client secret", "err", err)
		p.signInProblem(w, http.StatusInternalServerError, "The gateway cannot read its client secret for "+f.si.Name+" (auth.oidc): see its log.")
		return
	}
	ctx, cancel := context.WithTimeout(oidc.ClientContext(r.Context(), f.client), 20*time.Second)
	defer cancel()
	tok, err := f.config(pv, r, secret).Exchange(ctx, code, oauth2.VerifierOption(pd.verifier))
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			p.log.Warn("panel sign-in: the provider refused the code", "error", oneLine(re.ErrorCode, 80), "description", oneLine(re.ErrorDescription, 300))
			refuse(f.si.Name + " refused the code (used already, expired, or not for this client)")
			return
		}
		p.log.Warn("panel sign-in: token exchange", "issuer", f.si.Issuer, "err", err)
		p.signInProblem(w, http.StatusBadGateway, providerDown(f.si))
		return
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		refuse(f.si.Name + " sent no ID token")
		return
	}
	idt, err := pv.VerifierContext(ctx, &oidc.Config{ClientID: f.si.ClientID, Now: f.now}).Verify(ctx, raw)
	if err != nil {
		refuse("the ID token did not verify: " + verifyReason(err))
		return
	}
	if subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(pd.nonce)) != 1 {
		refuse("the ID token's nonce is not this sign-in's")
		return
	}
	var c claims
	if err := idt.Claims(&c); err != nil {
		refuse("the ID token's claims do not decode")
		return
	}
	// Roles are given by the provider's user name, never by the display
	// name, which anyone sets to anything.
	name := strings.TrimSpace(c.PreferredUsername)
	if name == "" {
		refuse(f.si.Name + " gave no user name (preferred_username): roles are given by it, so nobody signs in without one")
		return
	}
	person := actor.Person("oidc:"+idt.Issuer+"|"+idt.Subject, oneLine(name, 200), oneLine(c.Email, 320), c.EmailVerified, actor.ViaOIDC)
	if ck, err := r.Cookie(CookieName); err == nil {
		p.sessions.end(ck.Value) // a new id at every sign-in: no fixation
	}
	ss := p.sessions.create("", person)
	p.sessions.setGroups(ss, c.groups())
	// A person with no role gets no session: sessions are few (the oldest
	// goes), and anyone the provider lets register could sign in.
	if me, err := (&call{p: p, r: r, ss: ss}).whoami(); err != nil || !me.Role.Allows(gateway.RoleViewer) {
		p.sessions.end(ss.id)
		if err != nil {
			refuse("the gateway could not say what " + person.Name + " may do")
			return
		}
		p.log.Info("panel sign-in refused: no role", "addr", r.RemoteAddr, "person", person.Name)
		p.signInProblem(w, http.StatusForbidden, person.Name+" signed in through "+f.si.Name+", but has no role on this gateway: an admin gives roles in its configuration (auth.roles).")
		return
	}
	p.sessions.setProviderToken(ss, tok.AccessToken, tok.Expiry)
	p.log.Info("panel sign-in", "addr", r.RemoteAddr, "person", person.Name, "via", string(actor.ViaOIDC))
	http.SetCookie(w, cookie(r, ss.id, int(p.opts.SessionMax.Seconds())))
	http.Redirect(w, r, pd.next, http.StatusSeeOther)
}

// setGroups keeps the provider's groups of the person in the session.
func (s *sessions) setGroups(ss *session, groups []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss.groups = groups
}

// groupsOf is the session's groups.
func (s *sessions) groupsOf(ss *session) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ss.groups
}

// setProviderToken keeps the provider's access token in the session.
func (s *sessions) setProviderToken(ss *session, tok string, expiry time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss.providerToken, ss.providerExpiry = tok, expiry
}

// providerToken is the session's provider token while it is good.
func (s *sessions) providerToken(ss *session) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss.providerToken == "" || (!ss.providerExpiry.IsZero() && !s.now().Before(ss.providerExpiry)) {
		return ""
	}
	return ss.providerToken
}

// verifyReason says why an ID token failed, without the token.
func verifyReason(err error) string {
	if exp := (*oidc.TokenExpiredError)(nil); errors.As(err, &exp) {
		return "it expired"
	}
	return "its signature, issuer or audience is not this provider's for this gateway"
}

// oneLine is s on one line, at most n bytes (claims are the provider's
// data: shown and recorded, never trusted as markup).
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n]
	}
	return strings.ToValidUTF8(s, "")
}

func (p *Panel) signInProblem(w http.ResponseWriter, code int, detail string) {
	data := loginData{Error: detail, Version: p.opts.Version, Next: "/"}
	if p.oidc != nil {
		data.Provider = p.oidc.si.Name
	}
	p.renderPage(w, code, "login", data)
}

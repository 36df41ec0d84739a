package panel

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bridle-dev/bridle/actor"
	"github.com/bridle-dev/bridle/gateway"
)

// The account page (a person's own API tokens) and the CLI's sign-in
// (bridle login; see gateway.CLILoginPath for the flow). The panel holds
// the CLI's one-time codes server side, by hash: each is good once (taken
// at the first exchange, right or wrong), for cliCodeTTL, for the
// challenge and redirect_uri it was made for; the token is minted at the
// exchange, through the admin API as the person who allowed it, and is
// answered only there.

// cliCodeTTL is how long the CLI has to exchange its code.
const cliCodeTTL = time.Minute

// maxCLICodes bounds the codes waiting to be exchanged.
const maxCLICodes = 1000

type cliCode struct {
	person              actor.Actor
	groups              []string // the provider's, of the session that allowed it
	challenge, redirect string
	name                string
	created             time.Time
}

type cliCodes struct {
	mu     sync.Mutex
	now    func() time.Time
	byHash map[string]cliCode
}

func codeHash(code string) string {
	h := sha256.Sum256([]byte(code))
	return hex.EncodeToString(h[:])
}

// add records c and answers its code; "" when too many wait.
func (s *cliCodes) add(c cliCode) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for h, old := range s.byHash {
		if s.now().Sub(old.created) > cliCodeTTL {
			delete(s.byHash, h)
		}
	}
	if len(s.byHash) >= maxCLICodes {
		return ""
	}
	code := randomID()
	c.created = s.now()
	s.byHash[codeHash(code)] = c
	return code
}

// take is code's record, removed whatever follows: a code is tried once.
func (s *cliCodes) take(code string) (cliCode, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := codeHash(code)
	c, ok := s.byHash[h]
	delete(s.byHash, h)
	if !ok || s.now().Sub(c.created) > cliCodeTTL {
		return cliCode{}, false
	}
	return c, true
}

// cliRequest is what the CLI asks in the browser: where to send the code,
// its state, its PKCE challenge and the token's name.
type cliRequest struct {
	Redirect, State, Challenge, Name string
	// Origin is the redirect's scheme and host: the consent page's forms
	// may go there (its CSP's form-action), and the page names it.
	Origin string
}

// cliParams reads and checks a cliRequest from v (the query, or the
// consent form's fields).
func cliParams(v url.Values) (cliRequest, error) {
	u, err := gateway.LoopbackRedirect(v.Get("redirect_uri"))
	if err != nil {
		return cliRequest{}, err
	}
	q := cliRequest{Redirect: u.String(), State: v.Get("state"), Challenge: v.Get("code_challenge"), Origin: u.Scheme + "://" + u.Host}
	switch {
	case !gateway.CLIState(q.State):
		return q, fmt.Errorf("%w: state: 16 to 128 letters, digits, '.', '_', '~' or '-'", gateway.ErrInput)
	case v.Get("code_challenge_method") != "S256":
		return q, fmt.Errorf("%w: code_challenge_method: S256 only", gateway.ErrInput)
	case !gateway.PKCEChallenge(q.Challenge):
		return q, fmt.Errorf("%w: code_challenge: an S256 challenge (43 base64url characters)", gateway.ErrInput)
	}
	q.Name = oneLine(v.Get("name"), gateway.MaxTokenName)
	if q.Name == "" {
		q.Name = "bridle login"
	}
	return q, nil
}

type cliConsentData struct {
	cliRequest
	Person  gateway.Me
	Days    int
	Signed  bool   // a person signed in through the provider (not the admin credential)
	Again   string // the sign-in through the provider, back to this page
	Problem string
}

// cliConsent is the page that asks the signed-in person to allow the CLI.
func (p *Panel) cliConsent(w http.ResponseWriter, r *http.Request, c *call) {
	q, err := cliParams(r.URL.Query())
	if err != nil {
		p.problem(w, r, c, http.StatusBadRequest, "Not a sign-in request", "This address is not one bridle login makes: "+err.Error()+". Run bridle login again.")
		return
	}
	me, _ := c.whoami()
	d := cliConsentData{cliRequest: q, Days: gateway.DefaultPersonTokenDays, Signed: me != nil && me.Via == actor.ViaOIDC}
	if me != nil {
		d.Person = *me
	}
	if !d.Signed && p.oidc != nil {
		d.Again = gateway.SignInPath + "?" + url.Values{"next": {r.URL.RequestURI()}}.Encode()
	}
	// The forms below go to this panel, which redirects to the CLI: a
	// browser holds a form's redirect to the form-action of the page.
	w.Header().Set("Content-Security-Policy", strings.Replace(CSP, "form-action 'self'", "form-action 'self' "+q.Origin, 1))
	c.render(w, "clilogin", "Sign in the CLI", "", "", d)
}

// cliAllow answers the consent form: allowed, the browser goes to the
// CLI with a one-time code; denied, with access_denied.
func (p *Panel) cliAllow(w http.ResponseWriter, r *http.Request, c *call) {
	q, err := cliParams(r.PostForm)
	if err != nil {
		p.problem(w, r, c, http.StatusBadRequest, "Not a sign-in request", "This form is not one the panel drew: "+err.Error()+". Run bridle login again.")
		return
	}
	back := url.Values{"state": {q.State}}
	if r.PostFormValue("deny") != "" {
		back.Set("error", "access_denied")
		http.Redirect(w, r, q.Redirect+"?"+back.Encode(), http.StatusSeeOther)
		return
	}
	me, err := c.whoami()
	if err != nil {
		c.failed(w, "Who you are", err)
		return
	}
	if me.Via != actor.ViaOIDC || !actor.SignedInSubject(me.Subject) {
		p.problem(w, r, c, http.StatusForbidden, "Sign in as yourself",
			"The CLI signs in as a person, and the admin credential names no one: sign out, then sign in through the identity provider.")
		return
	}
	code := p.cliCodes.add(cliCode{person: c.ss.person, groups: p.sessions.groupsOf(c.ss), challenge: q.Challenge, redirect: q.Redirect, name: q.Name})
	if code == "" {
		p.problem(w, r, c, http.StatusServiceUnavailable, "Too many sign-ins", "Too many CLI sign-ins are waiting right now; try again in a minute.")
		return
	}
	p.log.Info("panel: CLI sign-in allowed", "person", me.Name, "redirect", q.Origin)
	back.Set("code", code)
	http.Redirect(w, r, q.Redirect+"?"+back.Encode(), http.StatusSeeOther)
}

// cliExchangeError answers the CLI's exchange with a refusal.
func cliExchangeError(w http.ResponseWriter, code int, name, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(gateway.APIError{Error: msg, Code: name})
}

// errCode is every refused code: unknown, used, expired, or for another
// verifier or redirect — one answer, so a probe learns nothing.
const errCode = "the code is unknown, used, expired, or not for this verifier and redirect_uri: run bridle login again"

// cliToken trades a code for a person token (JSON in, JSON out).
func (p *Panel) cliToken(w http.ResponseWriter, r *http.Request) {
	var in gateway.CLIExchange
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 8<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil || dec.More() {
		cliExchangeError(w, http.StatusBadRequest, "bad_request", "the body is not one JSON object {code, code_verifier, redirect_uri} of at most 8 KB")
		return
	}
	if len(in.Code) > 200 || !gateway.PKCEVerifier(in.CodeVerifier) {
		cliExchangeError(w, http.StatusBadRequest, "bad_request", "code_verifier: 43 to 128 letters, digits, '.', '_', '~' or '-'")
		return
	}
	c, ok := p.cliCodes.take(in.Code)
	sum := sha256.Sum256([]byte(in.CodeVerifier))
	challenge := base64.RawURLEncoding.EncodeToString(sum[:])
	if !ok || subtle.ConstantTimeCompare([]byte(challenge), []byte(c.challenge)) != 1 || in.RedirectURI != c.redirect {
		p.log.Warn("panel: CLI code refused", "addr", r.RemoteAddr)
		cliExchangeError(w, http.StatusBadRequest, "invalid_grant", errCode)
		return
	}
	as := &call{p: p, r: r, ss: &session{person: c.person, groups: c.groups}}
	var m gateway.MintedPersonToken
	if err := as.do(http.MethodPost, "/api/v1/me/tokens", gateway.PersonTokenRequest{Name: c.name}, &m); err != nil {
		code := statusOf(err)
		if code == 0 {
			code = http.StatusInternalServerError
		}
		var ae *apiError
		name := "internal"
		if errors.As(err, &ae) {
			name = ae.API.Code
		}
		cliExchangeError(w, code, name, err.Error())
		return
	}
	p.log.Info("panel: CLI signed in", "person", c.person.Name, "token", m.Info.ID)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(m)
}

// Account page.

type accountData struct {
	Tokens []gateway.PersonTokenInfo
	// Everyone is every person's tokens, for an admin (nil for others).
	Everyone []gateway.PersonTokenOwner
	Signed   bool // may mint (signed in through the provider)
	Minted   *gateway.MintedPersonToken
	MaxDays  int
	Default  int
}

func (p *Panel) account(w http.ResponseWriter, r *http.Request, c *call) {
	p.renderAccount(w, c, nil)
}

func (p *Panel) renderAccount(w http.ResponseWriter, c *call, minted *gateway.MintedPersonToken) {
	d := accountData{Minted: minted, MaxDays: gateway.MaxPersonTokenDays, Default: gateway.DefaultPersonTokenDays}
	if err := c.get("/api/v1/me/tokens", &d.Tokens); err != nil {
		c.failed(w, "Your tokens", err)
		return
	}
	if me, err := c.whoami(); err == nil {
		d.Signed = me.Via == actor.ViaOIDC
		if me.Role.Allows(gateway.RoleAdmin) {
			if err := c.get("/api/v1/tokens", &d.Everyone); err != nil {
				c.failed(w, "Everyone's tokens", err)
				return
			}
		}
	}
	c.render(w, "account", "Your account", "account", "", d)
}

func (p *Panel) mintMine(w http.ResponseWriter, r *http.Request, c *call) {
	days := 0
	if v := strings.TrimSpace(r.PostFormValue("days")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			c.done(w, "/ui/account", flash{Text: "Expires in: a number of days, 1 to " + strconv.Itoa(gateway.MaxPersonTokenDays)})
			return
		}
		days = n
	}
	var m gateway.MintedPersonToken
	if _, err := c.action("", "POST", "/api/v1/me/tokens", gateway.PersonTokenRequest{Name: r.PostFormValue("name"), ExpiresInDays: days}, &m); err != nil {
		c.done(w, "/ui/account", flash{Text: err.Error()})
		return
	}
	p.renderAccount(w, c, &m)
}

func (p *Panel) revokeMine(w http.ResponseWriter, r *http.Request, c *call) {
	id := r.PathValue("id")
	var info gateway.PersonTokenInfo
	f, err := c.action("", "DELETE", "/api/v1/me/tokens/"+url.PathEscape(id), nil, &info)
	if err == nil {
		f.Text = "Revoked the token " + info.Name + ": it is refused from now on."
	}
	c.done(w, "/ui/account", f)
}

// revokeAnyones revokes any person's token (an admin's form).
func (p *Panel) revokeAnyones(w http.ResponseWriter, r *http.Request, c *call) {
	var o gateway.PersonTokenOwner
	f, err := c.action("", "DELETE", "/api/v1/tokens/"+url.PathEscape(r.PathValue("id")), nil, &o)
	if err == nil {
		f.Text = "Revoked " + o.Person.Name + "'s token " + o.Name + ": it is refused from now on."
	}
	c.done(w, "/ui/account", f)
}

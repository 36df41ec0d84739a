package panel_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/panel"
)

// Canaries of the sign-in: none may appear in a page, a log line or an
// audit event.
const (
	clientSecret = "oidc-client-secret-CANARY-3b9f1e7a"
	accessCanary = "oidc-access-token-CANARY-8c2d4e6f"
)

// fakeIdP is a small OpenID Connect provider for the attack tests, in the
// manner of go-oidc's own tests: discovery, keys, an authorization
// endpoint that consents at once as user, and a token endpoint that checks
// the client, the PKCE verifier and that a code is used once. mutate
// changes the ID token's claims before it is signed (another audience,
// issuer, expiry or nonce).
type fakeIdP struct {
	t      testing.TB
	srv    *httptest.Server
	key    *rsa.PrivateKey
	mu     sync.Mutex
	user   string
	codes  map[string]grant
	used   map[string]bool
	mutate func(map[string]any)
	down   bool
	// signWith signs ID tokens with a key the provider does not publish.
	signWith *rsa.PrivateKey
}

type grant struct {
	clientID, redirect, nonce, challenge, user string
}

func newFakeIdP(t testing.TB) *fakeIdP {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeIdP{t: t, key: key, user: "abe", codes: map[string]grant{}, used: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": f.srv.URL, "authorization_endpoint": f.srv.URL + "/authorize",
			"token_endpoint": f.srv.URL + "/token", "jwks_uri": f.srv.URL + "/keys", "id_token_signing_alg_values_supported": []string{"RS256"},
			"code_challenge_methods_supported": []string{"S256"}})
	})
	mux.HandleFunc("GET /keys", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &f.key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
	})
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("response_type") != "code" {
			http.Error(w, "PKCE S256 and the code flow are required", http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		code := base64.RawURLEncoding.EncodeToString([]byte(q.Get("state")))[:8] + "-" + itoa(len(f.codes))
		f.codes[code] = grant{clientID: q.Get("client_id"), redirect: q.Get("redirect_uri"), nonce: q.Get("nonce"), challenge: q.Get("code_challenge"), user: f.user}
		f.mu.Unlock()
		to, _ := url.Parse(q.Get("redirect_uri"))
		back := url.Values{"code": {code}, "state": {q.Get("state")}}
		to.RawQuery = back.Encode()
		http.Redirect(w, r, to.String(), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		id, secret, ok := r.BasicAuth()
		if !ok {
			id, secret = r.PostFormValue("client_id"), r.PostFormValue("client_secret")
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		code := r.PostFormValue("code")
		g, known := f.codes[code]
		sum := sha256.Sum256([]byte(r.PostFormValue("code_verifier")))
		switch {
		case id != "bridle-client" || secret != clientSecret:
			tokenError(w, "invalid_client")
			return
		case !known || f.used[code]:
			f.used[code] = true
			tokenError(w, "invalid_grant")
			return
		case g.redirect != r.PostFormValue("redirect_uri") || base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
			tokenError(w, "invalid_grant")
			return
		}
		f.used[code] = true
		now := time.Now()
		c := map[string]any{"iss": f.srv.URL, "sub": "uid-" + g.user, "aud": g.clientID, "exp": now.Add(time.Hour).Unix(), "iat": now.Unix(),
			"nonce": g.nonce, "preferred_username": g.user, "name": strings.ToUpper(g.user[:1]) + g.user[1:], "email": g.user + "@example.org", "email_verified": true}
		if f.mutate != nil {
			f.mutate(c)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": accessCanary, "token_type": "Bearer", "expires_in": 3600, "id_token": f.sign(c)})
	})
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		down := f.down
		f.mu.Unlock()
		if down {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func tokenError(w http.ResponseWriter, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	json.NewEncoder(w).Encode(map[string]string{"error": code})
}

func (f *fakeIdP) sign(claims map[string]any) string {
	key := f.key
	if f.signWith != nil {
		key = f.signWith
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "k1"))
	if err != nil {
		f.t.Fatal(err)
	}
	b, _ := json.Marshal(claims)
	jws, err := s.Sign(b)
	if err != nil {
		f.t.Fatal(err)
	}
	out, err := jws.CompactSerialize()
	if err != nil {
		f.t.Fatal(err)
	}
	return out
}

func (f *fakeIdP) set(fn func(f *fakeIdP)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// withIdP configures the gateway to sign people in with f.
func withIdP(t testing.TB, f *fakeIdP) envOption {
	file := filepath.Join(t.TempDir(), "oidc-secret")
	if err := os.WriteFile(file, []byte(clientSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return func(c *gateway.Config, _ *gateway.Options) {
		c.Auth.OIDC = &gateway.OIDCConfig{Issuer: f.srv.URL, ClientID: "bridle-client", ClientSecretFile: file, Name: "Gitea"}
		c.Auth.Roles = gateway.RolesConfig{Admin: []string{"ada"}, Approver: []string{"abe", "carol"}, Viewer: []string{"*"}}
	}
}

// provider follows the panel's redirect to the provider and answers where
// the provider sends the browser back to (a path and query on the panel).
func (b *browser) provider(p page) string {
	b.t.Helper()
	if p.code != http.StatusSeeOther || !strings.Contains(p.location, "/authorize?") {
		b.t.Fatalf("sign-in did not go to the provider: %d %q %s", p.code, p.location, p.body)
	}
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Get(p.location)
	if err != nil {
		b.t.Fatal(err)
	}
	resp.Body.Close()
	back, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || resp.StatusCode != http.StatusFound {
		b.t.Fatalf("the provider answered %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	return back.RequestURI()
}

// signIn signs b in through the provider and answers the callback's page.
func (b *browser) signIn() page {
	b.t.Helper()
	return b.get(b.provider(b.get(gateway.SignInPath + "?next=/ui/queue")))
}

func TestSignInWithTheProvider(t *testing.T) {
	f := newFakeIdP(t)
	e := start(t, []string{"alpha"}, withIdP(t, f))
	b := e.browser(t)
	if lp := b.get("/login"); !strings.Contains(lp.body, `id="sign-in-provider"`) || !strings.Contains(lp.body, "Sign in with Gitea") {
		t.Fatalf("the sign-in page offers no provider:\n%s", lp.body)
	}
	p := b.signIn()
	if p.code != http.StatusSeeOther || p.location != "/ui/queue" {
		t.Fatalf("callback: %d %q %s", p.code, p.location, p.body)
	}
	if q := b.get("/ui/queue"); q.code != http.StatusOK || !strings.Contains(q.body, "abe") {
		t.Fatalf("the queue as abe: %d", q.code)
	}
	// No page abe sees holds the client secret or a token the provider gave.
	for _, rt := range e.panel.Routes() {
		method, pattern, _ := strings.Cut(rt.Pattern, " ")
		if method != "GET" || rt.Public {
			continue
		}
		p := b.get(concrete(pattern))
		for _, c := range []string{clientSecret, accessCanary, adminToken} {
			if strings.Contains(p.body, c) || strings.Contains(p.location, c) {
				t.Errorf("GET %s as abe shows %s…", pattern, c[:12])
			}
		}
	}
	// abe is an approver: a proposal from the panel is abe's, and the
	// audit names abe as the provider knows them.
	pr := b.post("/ui/projects/alpha/propose", url.Values{"kind": {"guardrail"}, "id": {"abe-rule"}, "statement": {"Ask abe."},
		"severity": {"guidance"}, "rationale": {"Because."}})
	if pr.code != http.StatusSeeOther {
		t.Fatalf("propose as abe: %d %s", pr.code, pr.body)
	}
	var events []audit.Event
	e.api(t, "GET", "/api/v1/audit?project=alpha&kind=admin", nil, &events)
	if len(events) == 0 || events[0].Actor == nil || events[0].Actor.Name != "abe" || events[0].Actor.Via != "oidc" ||
		!strings.HasPrefix(events[0].Actor.Subject, "oidc:"+f.srv.URL+"|") || events[0].Actor.Email != "abe@example.org" {
		t.Fatalf("the audit does not name abe: %+v", events)
	}
	// Logged out, the cookie is nothing: replaying it lands on /login.
	ck := sessionCookie(t, b, e)
	if out := b.post("/logout", nil); out.code != http.StatusSeeOther {
		t.Fatalf("logout: %d", out.code)
	}
	replay := e.browser(t)
	u, _ := url.Parse(e.url)
	replay.c.Jar.SetCookies(u, []*http.Cookie{{Name: panel.CookieName, Value: ck, Path: "/"}})
	if got := replay.get("/ui/queue"); got.code != http.StatusSeeOther || !strings.HasPrefix(got.location, "/login") {
		t.Errorf("a session cookie replayed after logout: %d %q", got.code, got.location)
	}
	canaries(t, e)
}

func sessionCookie(t testing.TB, b *browser, e *env) string {
	t.Helper()
	u, _ := url.Parse(e.url)
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == panel.CookieName {
			return c.Value
		}
	}
	t.Fatal("no session cookie")
	return ""
}

// canaries: the client secret, the provider's tokens and the admin
// credential are in no log line and no audit event.
func canaries(t testing.TB, e *env) {
	t.Helper()
	var events []audit.Event
	e.api(t, "GET", "/api/v1/audit?limit=1000", nil, &events)
	all, _ := json.Marshal(events)
	for _, c := range []string{clientSecret, accessCanary, adminToken} {
		if strings.Contains(e.logs.String(), c) || strings.Contains(string(all), c) {
			t.Errorf("%s… appears in the logs or the audit", c[:12])
		}
	}
}

// TestSignInAttacks: each way of forging or replaying a sign-in is
// refused, and none signs anyone in.
func TestSignInAttacks(t *testing.T) {
	f := newFakeIdP(t)
	e := start(t, []string{"alpha"}, withIdP(t, f))
	refused := func(t *testing.T, b *browser, p page) {
		t.Helper()
		if p.code != http.StatusBadRequest || !strings.Contains(p.body, "could not be completed") {
			t.Errorf("not refused: %d %q %s", p.code, p.location, p.body)
		}
		for _, c := range []string{clientSecret, accessCanary} {
			if strings.Contains(p.body, c) {
				t.Errorf("the refusal shows %s…", c[:12])
			}
		}
		if got := b.get("/"); got.code != http.StatusSeeOther {
			t.Errorf("signed in after all: %d", got.code)
		}
	}
	t.Run("forged state", func(t *testing.T) {
		b := e.browser(t)
		back := b.provider(b.get(gateway.SignInPath))
		u, _ := url.Parse(back)
		q := u.Query()
		q.Set("state", "forged")
		refused(t, b, b.get(u.Path+"?"+q.Encode()))
		refused(t, b, b.get(back)) // and the real one is spent
	})
	t.Run("replayed state", func(t *testing.T) {
		b := e.browser(t)
		back := b.provider(b.get(gateway.SignInPath))
		pre := signInCookieOf(t, b, e)
		if p := b.get(back); p.code != http.StatusSeeOther {
			t.Fatalf("the first callback: %d %s", p.code, p.body)
		}
		other := e.browser(t)
		u, _ := url.Parse(e.url + "/auth/")
		other.c.Jar.SetCookies(u, []*http.Cookie{{Name: panel.SignInCookie, Value: pre, Path: "/auth/"}})
		refused(t, other, other.get(back))
	})
	t.Run("no pre-session cookie", func(t *testing.T) {
		b := e.browser(t)
		back := b.provider(b.get(gateway.SignInPath))
		refused(t, e.browser(t), e.browser(t).get(back))
	})
	t.Run("code used twice", func(t *testing.T) {
		b := e.browser(t)
		back := b.provider(b.get(gateway.SignInPath))
		if p := b.get(back); p.code != http.StatusSeeOther {
			t.Fatalf("the first callback: %d %s", p.code, p.body)
		}
		code, _ := url.Parse(back)
		c := e.browser(t)
		again, _ := url.Parse(c.provider(c.get(gateway.SignInPath)))
		q := again.Query()
		q.Set("code", code.Query().Get("code"))
		refused(t, c, c.get(again.Path+"?"+q.Encode()))
	})
	for name, mutate := range map[string]func(map[string]any){
		"wrong nonce":      func(c map[string]any) { c["nonce"] = "not-the-nonce" },
		"another audience": func(c map[string]any) { c["aud"] = "another-client" },
		"another issuer":   func(c map[string]any) { c["iss"] = "https://evil.example" },
		"expired":          func(c map[string]any) { c["exp"] = time.Now().Add(-time.Minute).Unix() },
		"no nonce":         func(c map[string]any) { delete(c, "nonce") },
	} {
		t.Run(name, func(t *testing.T) {
			f.set(func(f *fakeIdP) { f.mutate = mutate })
			defer f.set(func(f *fakeIdP) { f.mutate = nil })
			b := e.browser(t)
			refused(t, b, b.get(b.provider(b.get(gateway.SignInPath))))
		})
	}
	t.Run("a token signed by another key", func(t *testing.T) {
		other, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			t.Fatal(err)
		}
		f.set(func(f *fakeIdP) { f.signWith = other })
		defer f.set(func(f *fakeIdP) { f.signWith = nil })
		b := e.browser(t)
		refused(t, b, b.get(b.provider(b.get(gateway.SignInPath))))
	})
	canaries(t, e)
}

func signInCookieOf(t testing.TB, b *browser, e *env) string {
	t.Helper()
	u, _ := url.Parse(e.url + "/auth/")
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == panel.SignInCookie {
			return c.Value
		}
	}
	t.Fatal("no sign-in cookie")
	return ""
}

// TestProviderDown: at sign-in a clear page (and the admin credential
// still works); a person already signed in goes on.
func TestProviderDown(t *testing.T) {
	f := newFakeIdP(t)
	e := start(t, []string{"alpha"}, withIdP(t, f))
	signedIn := e.browser(t)
	if p := signedIn.signIn(); p.code != http.StatusSeeOther {
		t.Fatalf("sign-in: %d %s", p.code, p.body)
	}
	f.set(func(f *fakeIdP) { f.down = true })
	fresh := e.browser(t)
	p := fresh.get(gateway.SignInPath)
	if p.code != http.StatusBadGateway || !strings.Contains(p.body, "did not answer") || !strings.Contains(p.body, "admin credential") {
		t.Errorf("the provider down at sign-in: %d %s", p.code, p.body)
	}
	fresh.login()
	if q := signedIn.get("/ui/queue"); q.code != http.StatusOK {
		t.Errorf("a signed-in person with the provider down: %d", q.code)
	}
}

package gateway

// Attacks on the admin API's credential checks from the panel's release
// review; each test is one exploit attempt and passes when the defence
// holds.

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// guess sends one wrong credential to path through the gateway's handler
// from remote, with headers; it returns the status.
func guess(h http.Handler, path, remote string, headers map[string]string) int {
	req := httptest.NewRequest("GET", path, nil)
	req.RemoteAddr = remote
	req.Header.Set("Authorization", "Bearer bridle_"+strings.Repeat("x", 43))
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w.Code
}

// refuse does not count a failure that says it comes from a cross-site
// page (Sec-Fetch-Site: cross-site, or Sec-Fetch-Mode: no-cors). Those are
// request headers: a script (curl, not a browser) sends them on every
// guess and is never limited, on the admin API and on every project's MCP
// endpoint. A valid credential is admitted whatever its address's count,
// so counting these failures too would lock no client out.
func TestAttackBrowserHeadersBuyUnlimitedGuesses(t *testing.T) {
	g := start(t, map[string]string{"alpha": newRules(t, "alpha")})
	tok := g.mint(t, "alpha", "claude")
	h := g.srv.Handler()
	client := 0
	for _, headers := range []map[string]string{{"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Mode": "no-cors"}} {
		for _, path := range []string{"/api/v1/projects", "/p/alpha/mcp"} {
			client++ // each attempt from an address of its own
			remote := fmt.Sprintf("192.0.2.%d:4000", client)
			limited := false
			for range 5 * MaxFailures {
				if guess(h, path, remote, headers) == http.StatusTooManyRequests {
					limited = true
					break
				}
			}
			if !limited {
				t.Errorf("GET %s: %d wrong credentials with %v were all answered 401, never 429", path, 5*MaxFailures, headers)
			}
		}
	}
	// Whatever was counted, the valid credentials are still admitted.
	if code := g.api(t, adminToken, "GET", "/api/v1/projects", nil, nil); code != http.StatusOK {
		t.Errorf("the admin credential after the guesses: %d", code)
	}
	if code, _ := post(t, g.url+"/p/alpha/mcp", tok, fmt.Sprintf(reviewInit, "claude-code"), nil); code != http.StatusOK {
		t.Errorf("the agent's token after the guesses: %d", code)
	}
}

// The limit is per exact address: an IPv6 client owns at least a /64 (2^64
// addresses) and takes a fresh one for every batch of guesses.
func TestAttackIPv6RotationIsLimited(t *testing.T) {
	g := start(t, map[string]string{"alpha": newRules(t, "alpha")})
	h := g.srv.Handler()
	limited := false
	for i := range 5 * MaxFailures {
		if guess(h, "/api/v1/projects", fmt.Sprintf("[2001:db8:1:2::%x]:4000", i+1), nil) == http.StatusTooManyRequests {
			limited = true
			break
		}
	}
	if !limited {
		t.Errorf("%d wrong admin credentials from one /64, one address each, were never limited", 5*MaxFailures)
	}
}

// What does hold: a client cannot pick its address by header, and the
// scheme, spelling or place of a credential does not get around the limit.
func TestAttackSpoofedAddressesAreLimited(t *testing.T) {
	g := start(t, map[string]string{"alpha": newRules(t, "alpha")})
	h := g.srv.Handler()
	limited := false
	for i := range 3 * MaxFailures {
		headers := map[string]string{"X-Forwarded-For": fmt.Sprintf("203.0.113.%d", i), "X-Real-Ip": fmt.Sprintf("203.0.113.%d", i),
			"Forwarded": fmt.Sprintf("for=203.0.113.%d", i), "True-Client-Ip": fmt.Sprintf("203.0.113.%d", i)}
		if guess(h, "/api/v1/projects", "198.51.100.7:5000", headers) == http.StatusTooManyRequests {
			limited = true
			break
		}
	}
	if !limited {
		t.Errorf("guesses with a new X-Forwarded-For each were never limited: the limiter trusts the header")
	}
	// Same address, a new source port for every guess.
	limited = false
	for i := range 3 * MaxFailures {
		remote := fmt.Sprintf("198.51.100.8:%d", 1000+i)
		if guess(h, "/api/v1/projects", remote, nil) == http.StatusTooManyRequests {
			limited = true
			break
		}
	}
	if !limited {
		t.Errorf("guesses from one address over several ports were never limited")
	}
}

// The admin credential is accepted as a bearer token only: not in the
// query string, a cookie, Basic auth or another header, and an agent's
// token never is.
func TestAttackAdminCredentialOnlyAsBearer(t *testing.T) {
	g := start(t, map[string]string{"alpha": newRules(t, "alpha")}, unlimited)
	agent := g.mint(t, "alpha", "claude")
	h := g.srv.Handler()
	for name, set := range map[string]func(*http.Request){
		"query access_token": func(r *http.Request) { r.URL.RawQuery = "access_token=" + adminToken },
		"query token":        func(r *http.Request) { r.URL.RawQuery = "token=" + adminToken },
		"cookie":             func(r *http.Request) { r.AddCookie(&http.Cookie{Name: "bridle_session", Value: adminToken}) },
		"basic":              func(r *http.Request) { r.SetBasicAuth("admin", adminToken) },
		"x-api-key":          func(r *http.Request) { r.Header.Set("X-Api-Key", adminToken) },
		"token scheme":       func(r *http.Request) { r.Header.Set("Authorization", "Token "+adminToken) },
		"bare":               func(r *http.Request) { r.Header.Set("Authorization", adminToken) },
		"two values":         func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+agent+" "+adminToken) },
		"agent token":        func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+agent) },
		"prefix":             func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+adminToken[:len(adminToken)-1]) },
		"nul":                func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+adminToken+"\x00") },
	} {
		req := httptest.NewRequest("GET", "/api/v1/projects", nil)
		req.RemoteAddr = "192.0.2.99:1"
		set(req)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusUnauthorized {
			t.Errorf("the admin API with the credential as %s: %d, want 401", name, w.Code)
		}
	}
	// An admin route never answers an agent, even on the MCP path's prefix.
	req := httptest.NewRequest("GET", "/p/alpha/mcp/../../api/v1/projects", nil)
	req.Header.Set("Authorization", "Bearer "+agent)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code == http.StatusOK {
		t.Errorf("an agent's token reached the admin API through a dotted path: %s", w.Body)
	}
}

package panel

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/actor"
)

// fakeAPI admits one credential, as the gateway's admin API does.
func fakeAPI(token string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/api/v1/me" {
			w.Write([]byte(`{"kind":"human","subject":"break-glass","name":"Mira","via":"break-glass","role":"admin"}`))
			return
		}
		w.Write([]byte(`[{"id":"alpha","source":"x","backend":"local","loaded":true,"approved":true,"stale":false,"age_seconds":1,"agents":0,"sessions":0}]`))
	})
}

func TestTheSessionCookieIsSecureUnderTLS(t *testing.T) {
	p := New(Options{API: fakeAPI("right")})
	req := httptest.NewRequest("POST", "https://127.0.0.1/login", strings.NewReader(url.Values{"token": {"right"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.TLS = &tls.ConnectionState{}
	w := httptest.NewRecorder()
	p.ServeHTTP(w, req)
	ck := w.Header().Get("Set-Cookie")
	for _, want := range []string{"Secure", "HttpOnly", "SameSite=Strict", "Path=/"} {
		if !strings.Contains(ck, want) {
			t.Errorf("cookie %q lacks %s", ck, want)
		}
	}
}

func TestSessionsExpire(t *testing.T) {
	now := time.Unix(1e9, 0)
	s := newSessions(func() time.Time { return now }, time.Hour, 3*time.Hour)
	a := s.create("tok", actor.Actor{})
	now = now.Add(59 * time.Minute)
	if s.get(a.id) == nil {
		t.Fatal("a session used within the idle time ended")
	}
	now = now.Add(61 * time.Minute)
	if s.get(a.id) != nil {
		t.Error("an idle session lives on")
	}
	b := s.create("tok", actor.Actor{})
	for range 4 {
		now = now.Add(50 * time.Minute)
		s.get(b.id)
	}
	if s.get(b.id) != nil {
		t.Error("a session outlives its maximum age")
	}
}

func TestLocalPath(t *testing.T) {
	for in, want := range map[string]string{
		"/ui/audit?project=a": "/ui/audit?project=a", "/": "/", "": "/", "//evil.example": "/", "/\\evil": "/",
		"https://evil.example": "/", "evil": "/", "/login?next=/x": "/", "/ui/x\n": "/", "/%2F%2Fevil.example": "/%2F%2Fevil.example",
	} {
		if got := localPath(in); got != want {
			t.Errorf("localPath(%q) = %q, want %q", in, got, want)
		}
	}
}

package mirror

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/gitea"
)

// TestSyncFailuresAreToldApart: a revoked token, a Gitea that is down, and
// a token git refuses give errors naming the step, matchable by what they
// mean (not the same "sync failed"), never holding the token, and leave no
// mirror behind.
func TestSyncFailuresAreToldApart(t *testing.T) {
	const canary = "tok-canary-5e1d2c"
	revoked := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"message":"token `+canary+` is invalid"}`, http.StatusUnauthorized)
	}))
	defer revoked.Close()
	gitRefuses := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/v1/") {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"name":"main","commit":{"id":"` + strings.Repeat("a", 40) + `"}}`))
			return
		}
		w.Header().Set("WWW-Authenticate", `Basic realm="Gitea"`)
		http.Error(w, "Unauthorized "+canary, http.StatusUnauthorized)
	}))
	defer gitRefuses.Close()
	for _, c := range []struct {
		url, step string
		want      error
	}{
		{revoked.URL, "read branch main", gitea.ErrUnauthorized},
		{"http://127.0.0.1:1", "read branch main", gitea.ErrUnavailable},
		{gitRefuses.URL, "clone o/r", gitea.ErrUnauthorized},
	} {
		m, err := New(Options{Gitea: gitea.Options{URL: c.url, Token: canary, Retry: time.Millisecond}, Owner: "o", Repo: "r"}, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Sync(context.Background())
		if !errors.Is(err, c.want) || strings.Contains(err.Error(), canary) || !strings.Contains(err.Error(), c.step) {
			t.Errorf("%s: %v, want %v at %q", c.url, err, c.want, c.step)
		}
	}
}

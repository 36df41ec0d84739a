package mirror

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
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

// The bot is the bot token's user, read from Gitea once and recorded beside
// the mirror, where a mirror with another token (bridle audit, a person's)
// finds it; until Gitea answers, it is an error, never "no bot".
func TestBotIsReadOnceAndRecorded(t *testing.T) {
	var asked, down atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/user" {
			http.NotFound(w, r)
			return
		}
		if down.Load() != 0 {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		asked.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":3,"login":"bridle-bot"}`))
	}))
	defer srv.Close()
	cache := t.TempDir()
	mk := func(bot bool, token string) *Mirror {
		m, err := New(Options{Gitea: gitea.Options{URL: srv.URL, Token: token, Retry: time.Millisecond}, Owner: "o", Repo: "r", Bot: bot}, cache)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	ctx := context.Background()
	down.Store(1)
	if _, err := mk(true, "bot-token").Bot(ctx); !errors.Is(err, gitea.ErrUnavailable) {
		t.Errorf("the bot with Gitea down: %v, want gitea.ErrUnavailable", err)
	}
	down.Store(0)
	m := mk(true, "bot-token")
	for range 3 {
		if bot, err := m.Bot(ctx); err != nil || bot != "bridle-bot" {
			t.Fatalf("bot = %q, %v", bot, err)
		}
	}
	if asked.Load() != 1 {
		t.Errorf("Gitea was asked %d times for the bot's user, want once", asked.Load())
	}
	if bot, err := mk(false, "a-persons-token").Bot(ctx); err != nil || bot != "bridle-bot" {
		t.Errorf("another token's mirror on the same cache: bot %q, %v", bot, err)
	}
	if bot, _ := mk(false, "x").Bot(ctx); asked.Load() != 1 || bot != "bridle-bot" {
		t.Errorf("a mirror that does not hold the bot's token asked Gitea who it is")
	}
}

package mirror

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/proposals"
)

// TestSyncFailuresKeepTheTokenOut: an unreachable or refusing Gitea gives
// an error naming the step, never the token, and leaves no mirror behind.
func TestSyncFailuresKeepTheTokenOut(t *testing.T) {
	const canary = "tok-canary-5e1d2c"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"message":"token `+canary+` is invalid"}`, http.StatusUnauthorized)
	}))
	defer srv.Close()
	for _, url := range []string{srv.URL, "http://127.0.0.1:1"} {
		m, err := New(proposals.GiteaOptions{URL: url, Token: canary, Owner: "o", Repo: "r"}, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Sync(context.Background())
		if err == nil || strings.Contains(err.Error(), canary) || !strings.Contains(err.Error(), "read branch main") {
			t.Errorf("%s: %v", url, err)
		}
	}
}

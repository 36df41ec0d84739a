package gitea

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TokenSource is read at every request: a rotated token is sent from the
// next request on, and git transport gets it too.
func TestTokenSource(t *testing.T) {
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	tok := "first-token-1111"
	c, err := New(Options{URL: srv.URL, TokenSource: func() string { return tok }})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"first-token-1111", "second-token-2222"} {
		tok = want
		req, _ := http.NewRequest("GET", srv.URL+"/api/v1/version", nil)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got.Load() != "token "+want || c.GitAuth().Password != want {
			t.Errorf("sent %v and git auth %q, want %s", got.Load(), c.GitAuth().Password, want)
		}
		if c.Redact("x "+want) != "x [REDACTED]" {
			t.Errorf("the token from the source is not redacted")
		}
	}
}

package kanboard

// Attacks found by a review: a hostile or misbehaving Kanboard (or a
// proxy in front of it) echoes the credentials back in an error, and the
// client masks them.

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const reviewToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789ab" // 60 hex, like Kanboard's

func hostile(t *testing.T, body func(r *http.Request) string) *Client {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body(r))
	}))
	t.Cleanup(srv.Close)
	c, err := New(Options{URL: srv.URL, Token: reviewToken, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A token prefix survives because clean() cuts to maxMessage (or 40) bytes
// before the redactor runs, and the redactor matches whole values only.
func TestNoTokenPrefixThroughTruncation(t *testing.T) {
	cases := map[string]func(r *http.Request) string{
		// error message cut at 300 bytes in Decode, before c.fail redacts
		"error message": func(*http.Request) string {
			return `{"jsonrpc":"2.0","error":{"code":-32000,"message":"` + strings.Repeat("x", 250) + reviewToken + `"},"id":1}`
		},
		// the id of another call, cut at 40 bytes
		"id": func(*http.Request) string {
			return `{"jsonrpc":"2.0","result":"1.2.53","id":"` + reviewToken + `"}`
		},
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			c := hostile(t, body)
			_, err := c.Version(context.Background())
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), reviewToken[:24]) {
				t.Errorf("error holds a %d+ byte prefix of the token: %s", 24, err)
			}
		})
	}
	// an Int field echoing the token: %.40q keeps 40 runes
	t.Run("int field", func(t *testing.T) {
		c := hostile(t, func(*http.Request) string {
			return `{"jsonrpc":"2.0","result":{"id":"` + reviewToken + `","title":"x","project_id":1},"id":1}`
		})
		_, err := c.Task(context.Background(), 1)
		if err == nil {
			t.Fatal("no error")
		}
		if strings.Contains(err.Error(), reviewToken[:24]) {
			t.Errorf("error holds a prefix of the token: %s", err)
		}
	})
}

// A proxy or Kanboard plugin that echoes the Authorization header: the
// redactor knows base64(token), not base64("jsonrpc:"+token).
func TestEchoedBasicAuthIsMasked(t *testing.T) {
	c := hostile(t, func(r *http.Request) string {
		return `{"jsonrpc":"2.0","error":{"code":-32000,"message":"bad header: ` + r.Header.Get("Authorization") + `"},"id":1}`
	})
	_, err := c.Version(context.Background())
	if err == nil {
		t.Fatal("no error")
	}
	basic := base64.StdEncoding.EncodeToString([]byte(AppUser + ":" + reviewToken))
	if strings.Contains(err.Error(), basic) {
		t.Errorf("the Basic credential (base64 of user:token) reaches the error: %s", err)
	}
}

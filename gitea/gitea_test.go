package gitea

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	sdk "code.gitea.io/sdk/gitea"
)

var kinds = map[string]error{
	"unauthorized": ErrUnauthorized, "forbidden": ErrForbidden, "not found": ErrNotFound, "conflict": ErrConflict,
	"not ready": ErrNotReady, "not open": ErrNotOpen, "protected": ErrProtected, "unavailable": ErrUnavailable,
}

type fixture struct {
	Name   string          `json:"name"`
	Status int             `json:"status"`
	Body   json.RawMessage `json:"body"`
	Want   string          `json:"want"`
	Source string          `json:"source"`
}

func fixtures(t *testing.T) []fixture {
	t.Helper()
	b, err := os.ReadFile("testdata/responses.json")
	if err != nil {
		t.Fatal(err)
	}
	var fs []fixture
	if err := json.Unmarshal(b, &fs); err != nil {
		t.Fatal(err)
	}
	return fs
}

// TestClassifyRecordedResponses replays Gitea's answers (recorded from a
// real Gitea 1.26.0, or quoted from its source where they cannot be
// provoked on purpose) through the SDK and through Do: each gets its one
// meaning, and the token never shows.
func TestClassifyRecordedResponses(t *testing.T) {
	const token = "0123456789abcdef0123456789abcdef01234567"
	for _, f := range fixtures(t) {
		t.Run(f.Name, func(t *testing.T) {
			body := f.Body
			var s string
			if json.Unmarshal(body, &s) == nil {
				body = []byte(s) // a non-JSON body, as a proxy sends
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(f.Status)
				w.Write(body)
			}))
			defer srv.Close()
			c, _ := New(Options{URL: srv.URL, Token: token, Retry: time.Millisecond})
			_, resp, err := c.SDK(context.Background()).GetRepo("o", "r")
			got := c.Classify("read repo", resp, err)
			req, _ := http.NewRequest("POST", srv.URL+"/api/v1/repos/o/r/pulls/1/merge", nil)
			raw, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			viaDo := c.ClassifyResponse("merge #1", raw)
			for _, e := range []error{got, viaDo} {
				var ge *Error
				if !errors.Is(e, kinds[f.Want]) || !errors.As(e, &ge) || ge.Status != f.Status {
					t.Errorf("classified as %v, want %s", e, f.Want)
				}
				for k, other := range kinds {
					if k != f.Want && errors.Is(e, other) {
						t.Errorf("%v also matches %s", e, k)
					}
				}
				if strings.Contains(e.Error(), token) {
					t.Errorf("the token shows: %v", e)
				}
			}
		})
	}
}

// TestClassifyNetwork: a server that is not there is unavailable, and Retry
// retries it (three times) but nothing else.
func TestClassifyNetwork(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	c, _ := New(Options{URL: "http://" + addr, Token: "secret-token-value", Retry: time.Millisecond})
	calls := 0
	_, err := Retry(context.Background(), c, "read branch main", func() (*sdk.Branch, *sdk.Response, error) {
		calls++
		return c.SDK(context.Background()).GetRepoBranch("o", "r", "main")
	})
	if !errors.Is(err, ErrUnavailable) || calls != 3 {
		t.Errorf("down: %v after %d calls", err, calls)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(401) }))
	defer srv.Close()
	c, _ = New(Options{URL: srv.URL, Token: "secret-token-value", Retry: time.Millisecond})
	calls = 0
	_, err = Retry(context.Background(), c, "read branch main", func() (*sdk.Branch, *sdk.Response, error) {
		calls++
		return c.SDK(context.Background()).GetRepoBranch("o", "r", "main")
	})
	if !errors.Is(err, ErrUnauthorized) || calls != 1 {
		t.Errorf("revoked: %v after %d calls", err, calls)
	}
}

func TestNewRefusesBadOptions(t *testing.T) {
	for _, u := range []string{"", "gitea.example.com", "ftp://x", "http://"} {
		if _, err := New(Options{URL: u}); !errors.Is(err, ErrBadOptions) {
			t.Errorf("New(%q) = %v", u, err)
		}
	}
}

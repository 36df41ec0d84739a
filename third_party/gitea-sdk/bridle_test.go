package gitea

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestVersionsOnFirstUse (Bridle's patch): the predefined versions, parsed
// on first use, gate calls as upstream's did: NewClient refuses a server
// older than 1.11, and a call that needs a newer server than it has is
// refused, as upstream refuses it.
func TestVersionsOnFirstUse(t *testing.T) {
	if !version1_11_0().LessThan(version1_26_0()) || !version1_11_0().Equal(version1_11_0()) || version1_11_0() != version1_11_0() {
		t.Fatal("predefined versions compare wrongly or are parsed twice")
	}
	serve := func(v string) *httptest.Server {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/api/v1/version" {
				w.Write([]byte(`{"version":"` + v + `"}`))
				return
			}
			http.NotFound(w, r)
		}))
		t.Cleanup(s.Close)
		return s
	}
	if _, err := NewClient(serve("1.10.0").URL); err == nil {
		t.Fatal("a 1.10 server was accepted")
	}
	c, err := NewClient(serve("1.22.0").URL)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.checkServerVersionGreaterThanOrEqual(version1_21_0()); err != nil {
		t.Errorf("1.22 >= 1.21: %v", err)
	}
	err = c.checkServerVersionGreaterThanOrEqual(version1_26_0())
	if err == nil {
		t.Error("1.22 passed a check for 1.26")
	}
	var unknown *ErrUnknownVersion
	if errors.As(err, &unknown) {
		t.Errorf("a known version reported unknown: %v", err)
	}
}

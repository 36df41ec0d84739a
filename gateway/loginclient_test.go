package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
)

// loginAgainst runs Login against a gateway at base, driving the
// "browser" with browse (given the address Login shows).
func loginAgainst(t *testing.T, base string, browse func(address string)) (MintedPersonToken, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return Login(ctx, LoginOptions{Server: base, Name: "test", Timeout: 10 * time.Second, Show: func(a string) { go browse(a) }})
}

func getStatus(t *testing.T, u string) int {
	resp, err := http.Get(u)
	if err != nil {
		t.Error(err)
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestLoginCallback: the CLI's loopback answers a callback with another
// state 400 and goes on waiting (any page may aim a browser there); with
// its state, a denial ends the login (ErrLoginDenied) and a code is
// exchanged with the verifier of the challenge it sent, at the redirect
// it named.
func TestLoginCallback(t *testing.T) {
	var sent url.Values
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in CLIExchange
		json.NewDecoder(r.Body).Decode(&in)
		sum := sha256.Sum256([]byte(in.CodeVerifier))
		if r.URL.Path != CLITokenPath || in.Code != "the-code" || base64.RawURLEncoding.EncodeToString(sum[:]) != sent.Get("code_challenge") ||
			in.RedirectURI != sent.Get("redirect_uri") {
			writeJSON(w, http.StatusBadRequest, APIError{Error: "no", Code: "invalid_grant"})
			return
		}
		writeJSON(w, http.StatusOK, MintedPersonToken{Token: NewToken(), Info: PersonTokenInfo{ID: "0123456789abcdef", Name: "test"}})
	}))
	defer gw.Close()
	read := func(address string) url.Values {
		u, err := url.Parse(address)
		if err != nil || u.Path != CLILoginPath {
			t.Errorf("the address shown: %q", address)
		}
		q := u.Query()
		if _, err := LoopbackRedirect(q.Get("redirect_uri")); err != nil || !CLIState(q.Get("state")) || !PKCEChallenge(q.Get("code_challenge")) || q.Get("code_challenge_method") != "S256" {
			t.Errorf("the address's parameters: %v %v", q, err)
		}
		return q
	}

	m, err := loginAgainst(t, gw.URL, func(address string) {
		sent = read(address)
		cb := sent.Get("redirect_uri")
		if code := getStatus(t, cb+"?"+url.Values{"state": {"forged-state-0123456789"}, "code": {"the-code"}}.Encode()); code != http.StatusBadRequest {
			t.Errorf("a forged state: %d", code)
		}
		if code := getStatus(t, cb+"?"+url.Values{"code": {"the-code"}}.Encode()); code != http.StatusBadRequest {
			t.Errorf("no state: %d", code)
		}
		getStatus(t, cb+"?"+url.Values{"state": {sent.Get("state")}, "code": {"the-code"}}.Encode())
	})
	if err != nil || !tokenShape.MatchString(m.Token) {
		t.Fatalf("login: %+v %v", m, err)
	}

	_, err = loginAgainst(t, gw.URL, func(address string) {
		q := read(address)
		getStatus(t, q.Get("redirect_uri")+"?"+url.Values{"state": {q.Get("state")}, "error": {"access_denied"}}.Encode())
	})
	if !errors.Is(err, ErrLoginDenied) {
		t.Errorf("a denial: %v", err)
	}
	_, err = loginAgainst(t, gw.URL, func(address string) {
		q := read(address)
		getStatus(t, q.Get("redirect_uri")+"?"+url.Values{"state": {q.Get("state")}, "code": {"another-code"}}.Encode())
	})
	if err == nil || strings.Contains(err.Error(), "bridle_") {
		t.Errorf("a refused code: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := Login(ctx, LoginOptions{Server: gw.URL, Timeout: 200 * time.Millisecond}); !errors.Is(err, ErrLoginTimeout) {
		t.Errorf("nobody signs in: %v", err)
	}
	if _, err := Login(ctx, LoginOptions{Server: "ftp://x"}); !errors.Is(err, ErrInput) {
		t.Errorf("a bad server: %v", err)
	}
}

// TestCredentials: one file per gateway (its URL normalised), 0600 in a
// 0700 directory, replaced whole; none is fs.ErrNotExist.
func TestCredentials(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadCredential(dir, "http://127.0.0.1:7777"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("none: %v", err)
	}
	path, err := SaveCredential(dir, Credential{Server: "HTTP://127.0.0.1:7777/", Token: "bridle_a", ID: "1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SaveCredential(dir, Credential{Server: "http://127.0.0.1:7777", Token: "bridle_b", ID: "2"}); err != nil {
		t.Fatal(err)
	}
	c, err := LoadCredential(dir, "http://127.0.0.1:7777")
	if err != nil || c.Token != "bridle_b" || c.Server != "http://127.0.0.1:7777" {
		t.Errorf("loaded %+v %v", c, err)
	}
	fi, _ := os.Stat(path)
	di, _ := os.Stat(strings.TrimSuffix(path, "/"+fi.Name()))
	if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Errorf("modes: file %v, directory %v", fi.Mode(), di.Mode())
	}
	if all, _ := StoredCredentials(dir); len(all) != 1 {
		t.Errorf("stored: %+v", all)
	}
	if err := DeleteCredential(dir, "http://127.0.0.1:7777"); err != nil {
		t.Fatal(err)
	}
	if err := DeleteCredential(dir, "http://127.0.0.1:7777"); err != nil {
		t.Errorf("deleting none: %v", err)
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCredential(dir, "http://127.0.0.1:7777"); err == nil || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a damaged file: %v", err)
	}
}

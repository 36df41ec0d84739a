package gateway

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/renameio/v2"

	"github.com/bridle-dev/bridle/actor"
)

// The CLI's side of the sign-in (see CLILoginPath) and where it keeps the
// token it gets: one 0600 file per gateway in the user's configuration
// directory. Nothing here prints, logs or returns the token in an error.

// LoginOptions configures Login.
type LoginOptions struct {
	// Server is the gateway's URL.
	Server string
	// Name names the token (where it is used: "bridle login on HOST").
	Name string
	// Show is given the address the person must open in a browser
	// (printed for a headless machine, whether or not Open opens it).
	Show func(address string)
	// Open opens address in the person's browser; nil: none is opened.
	Open func(address string) error
	// Timeout is how long the person has to sign in; 5 minutes.
	Timeout time.Duration
}

// Errors of Login, for errors.Is.
var (
	// ErrLoginDenied: the person cancelled on the gateway's page.
	ErrLoginDenied = errors.New("the sign-in was cancelled in the browser")
	// ErrLoginTimeout: nobody signed in within LoginOptions.Timeout.
	ErrLoginTimeout = errors.New("no sign-in arrived in time")
)

// Login signs the CLI in as a person: it listens on 127.0.0.1 (a free
// port), shows (and opens) the gateway's CLILoginPath with that redirect,
// a fresh state and an S256 challenge, waits for the browser to come back
// with a code and the same state (a request with another state is
// answered 400 and ignored: any page may aim a browser at the loopback),
// and exchanges the code with its verifier for a person token.
func Login(ctx context.Context, o LoginOptions) (MintedPersonToken, error) {
	c, err := NewClient(o.Server, "")
	if err != nil {
		return MintedPersonToken{}, err
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Minute
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return MintedPersonToken{}, fmt.Errorf("login: listen on the loopback: %w", err)
	}
	defer ln.Close()
	redirect := "http://" + ln.Addr().String() + "/callback"
	state, verifier := random43(), random43()
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"redirect_uri": {redirect}, "state": {state}, "code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])},
		"code_challenge_method": {"S256"}, "name": {o.Name}}
	address := c.base + CLILoginPath + "?" + q.Encode()

	type result struct {
		code string
		err  error
	}
	got := make(chan result, 1)
	var once sync.Once
	mux := http.NewServeMux()
	mux.HandleFunc("GET /callback", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'none'")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Referrer-Policy", "no-referrer")
		v := r.URL.Query()
		if subtle.ConstantTimeCompare([]byte(v.Get("state")), []byte(state)) != 1 {
			http.Error(w, "This is not the sign-in bridle login is waiting for (its state differs); it was ignored.", http.StatusBadRequest)
			return
		}
		res := result{code: v.Get("code")}
		switch {
		case v.Get("error") != "":
			res = result{err: ErrLoginDenied}
		case res.code == "" || len(res.code) > 200:
			res = result{err: fmt.Errorf("login: the gateway sent no code")}
		}
		once.Do(func() { got <- res })
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if res.err != nil {
			fmt.Fprint(w, "<!doctype html><title>Bridle</title><p>The sign-in was not completed. You may close this tab; the terminal says what to do.</p>")
			return
		}
		fmt.Fprint(w, "<!doctype html><title>Bridle</title><p>Signed in. You may close this tab and go back to the terminal.</p>")
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()

	if o.Show != nil {
		o.Show(address)
	}
	if o.Open != nil {
		o.Open(address) // the address is shown: a browser that does not open is no failure
	}
	timer := time.NewTimer(o.Timeout)
	defer timer.Stop()
	var res result
	select {
	case res = <-got:
	case <-timer.C:
		return MintedPersonToken{}, fmt.Errorf("login: %w (%s): run bridle login again", ErrLoginTimeout, o.Timeout)
	case <-ctx.Done():
		return MintedPersonToken{}, ctx.Err()
	}
	if res.err != nil {
		return MintedPersonToken{}, res.err
	}
	m, err := c.ExchangeLoginCode(ctx, CLIExchange{Code: res.code, CodeVerifier: verifier, RedirectURI: redirect})
	if err != nil {
		return MintedPersonToken{}, fmt.Errorf("login: %w", err)
	}
	if !tokenShape.MatchString(m.Token) {
		return MintedPersonToken{}, fmt.Errorf("login: the gateway answered no token")
	}
	return m, nil
}

// random43 is 256 random bits, base64url: a state or a PKCE verifier.
func random43() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Credential is what bridle login keeps for one gateway.
type Credential struct {
	Server  string      `json:"server"`
	Token   string      `json:"token"`
	ID      string      `json:"id"`
	Name    string      `json:"name"`
	Person  actor.Actor `json:"person"`
	Expires time.Time   `json:"expires"`
}

// normalServer is server as credentials are keyed by: scheme and host in
// lower case, no trailing slash.
func normalServer(server string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(server))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%w: --server %q is not an http(s) URL", ErrInput, server)
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) + strings.TrimRight(u.Path, "/"), nil
}

// CredentialPath is the file of server's credential under dir (the
// user's bridle configuration directory).
func CredentialPath(dir, server string) (string, error) {
	s, err := normalServer(server)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256([]byte(s))
	return filepath.Join(dir, "credentials", hex.EncodeToString(h[:8])+".json"), nil
}

// SaveCredential writes c (0600, in a 0700 directory), replacing
// server's previous one; it answers the file.
func SaveCredential(dir string, c Credential) (string, error) {
	s, err := normalServer(c.Server)
	if err != nil {
		return "", err
	}
	c.Server = s
	path, _ := CredentialPath(dir, s)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("credential: %w", err)
	}
	b, _ := json.MarshalIndent(c, "", "  ")
	t, err := renameio.NewPendingFile(path, renameio.WithStaticPermissions(0o600))
	if err != nil {
		return "", fmt.Errorf("credential: %w", err)
	}
	defer t.Cleanup()
	if _, err := t.Write(append(b, '\n')); err != nil {
		return "", fmt.Errorf("credential: %w", err)
	}
	if err := t.CloseAtomicallyReplace(); err != nil {
		return "", fmt.Errorf("credential: %w", err)
	}
	return path, nil
}

// LoadCredential is server's credential under dir; an error wrapping
// fs.ErrNotExist when there is none.
func LoadCredential(dir, server string) (Credential, error) {
	path, err := CredentialPath(dir, server)
	if err != nil {
		return Credential{}, err
	}
	return readCredential(path)
}

func readCredential(path string) (Credential, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Credential{}, fmt.Errorf("credential: %w", err)
	}
	var c Credential
	if err := json.Unmarshal(b, &c); err != nil || c.Token == "" {
		return Credential{}, fmt.Errorf("credential: %s is not one bridle login wrote: delete it and sign in again", path)
	}
	return c, nil
}

// StoredCredentials is every credential under dir, by server.
func StoredCredentials(dir string) ([]Credential, error) {
	files, err := filepath.Glob(filepath.Join(dir, "credentials", "*.json"))
	if err != nil {
		return nil, err
	}
	var out []Credential
	for _, f := range files {
		if c, err := readCredential(f); err == nil {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b Credential) int { return strings.Compare(a.Server, b.Server) })
	return out, nil
}

// DeleteCredential removes server's credential under dir (none is no
// error).
func DeleteCredential(dir, server string) error {
	path, err := CredentialPath(dir, server)
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("credential: %w", err)
	}
	return nil
}

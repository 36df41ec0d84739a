package gateway

import (
	"fmt"
	"net"
	"net/url"
	"strconv"

	"github.com/bridle-dev/bridle/internal/lazyregexp"
)

// The CLI's sign-in (bridle login), in the manner of OAuth 2.0 for native
// apps (RFC 8252) with PKCE (RFC 7636): the CLI listens on the loopback
// and opens the browser at CLILoginPath with its redirect_uri (the
// loopback only), a state and an S256 code_challenge; the panel signs the
// person in through the provider as usual, asks them to allow the sign-in,
// and sends the browser to the redirect_uri with a one-time code (and the
// state); the CLI posts the code, its code_verifier and the same
// redirect_uri to CLITokenPath and gets a person token (MintedPersonToken).
// A code is good once, for CLICodeTTL, bound to the challenge and the
// redirect_uri; the token is only ever in that answer.
const (
	CLILoginPath = "/auth/cli"
	CLITokenPath = "/auth/cli/token"
)

// CLIExchange is the CLI's request for its token at CLITokenPath.
type CLIExchange struct {
	Code         string `json:"code"`
	CodeVerifier string `json:"code_verifier"`
	RedirectURI  string `json:"redirect_uri"`
}

var (
	// cliState is what a state may be: unreserved characters, 16 to 128.
	cliState = lazyregexp.New(`^[A-Za-z0-9._~-]{16,128}$`)
	// pkceChallenge is an S256 challenge: 32 bytes, base64url unpadded.
	pkceChallenge = lazyregexp.New(`^[A-Za-z0-9_-]{43}$`)
	// pkceVerifier is a verifier (RFC 7636 §4.1).
	pkceVerifier = lazyregexp.New(`^[A-Za-z0-9._~-]{43,128}$`)
)

// LoopbackRedirect is u when it is a loopback redirect a CLI may be sent
// to: http to the IP literal 127.0.0.1 or [::1] (never a name, which
// could resolve elsewhere) with a port, a path, no user, query or
// fragment; else an error (ErrInput) saying why.
func LoopbackRedirect(raw string) (*url.URL, error) {
	bad := func(why string) (*url.URL, error) {
		return nil, fmt.Errorf("%w: redirect_uri: %s", ErrInput, why)
	}
	if len(raw) > 300 {
		return bad("longer than 300 bytes")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return bad("not a URL")
	}
	if u.Scheme != "http" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return bad("http://127.0.0.1:PORT/PATH, with no user, query or fragment")
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil {
		return bad("it names no port")
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() || (host != "127.0.0.1" && host != "::1") {
		return bad("only the loopback address 127.0.0.1 or [::1] (this machine's CLI)")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return bad("its port is not 1 to 65535")
	}
	if u.Path == "" || u.Path[0] != '/' {
		return bad("it has no path")
	}
	return u, nil
}

// CLIState reports whether state is one a CLI may send.
func CLIState(state string) bool { return cliState.MatchString(state) }

// PKCEChallenge reports whether challenge is an S256 code challenge.
func PKCEChallenge(challenge string) bool { return pkceChallenge.MatchString(challenge) }

// PKCEVerifier reports whether verifier is a code verifier.
func PKCEVerifier(verifier string) bool { return pkceVerifier.MatchString(verifier) }

// Package kanboard is Bridle's client of Kanboard's JSON-RPC API
// (jsonrpc.php): a thin, typed layer over the methods the Kanboard tools
// need, which turns every quirk of the real server into an error matched
// with errors.Is.
//
// Promises:
//
//   - A failed call returns an *Error wrapping exactly one of the sentinels
//     (ErrNotFound, ErrRejected, ErrUnauthorized, ErrForbidden, ErrBadParams,
//     ErrUnavailable, ErrTooLarge, ErrProtocol). Kanboard's domain failures
//     are results, not errors — false, 0 or null — and become ErrNotFound
//     where they mean something is missing and ErrRejected where a value
//     was refused.
//   - The token is sent only to the configured endpoint, in the
//     Authorization header, and never appears in an error: every message
//     passes through a redactor that knows it in every encoding.
//   - Every attempt has a deadline (Options.Timeout): a Kanboard that hangs
//     is ErrUnavailable, never a hung caller. A response is read up to
//     Options.MaxResponse bytes; a larger one is ErrTooLarge.
//   - Reads are retried, with back-off, when Kanboard is unavailable; a
//     write is sent once, never again, since Kanboard may have applied it.
//     A 401 is never retried: a Kanboard user (not the application identity)
//     is locked out after six failed logins, and a client that had three
//     401s in a row sends nothing more (ErrUnauthorized at once).
//   - Ids and flags are accepted as JSON numbers or numeric strings (older
//     PHP and MySQL or Postgres drivers send "1").
//
// The package holds Kanboard's text as it came: callers that show it to a
// model treat it as hostile data (Bridle's mcp package caps and cleans it).
package kanboard

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bridle-dev/bridle/redact"
)

// AppUser is the user name of Kanboard's application identity: its
// password is the API token, and it has no user session (no project
// membership checks, no getMe).
const AppUser = "jsonrpc"

// Defaults of Options.
const (
	DefaultTimeout     = 10 * time.Second
	DefaultMaxResponse = 16 << 20
	DefaultRetries     = 2
	DefaultBackoff     = 200 * time.Millisecond
)

// maxAuthFailures is how many 401s in a row a user identity's client takes
// before it stops sending: Kanboard locks the user after six.
const maxAuthFailures = 3

// Options say which Kanboard to talk to, as whom.
type Options struct {
	// URL is Kanboard's base URL (https://kanboard.example.com) or its
	// endpoint (…/jsonrpc.php).
	URL string
	// User is AppUser (the default) with the API token, or a Kanboard user
	// name with that user's personal API token.
	User  string
	Token string // never printed: errors are redacted of it
	// HTTP sends the requests; default a client without its own timeout
	// (Timeout bounds each attempt).
	HTTP *http.Client
	// Timeout bounds one attempt, from sending to the last byte read;
	// default DefaultTimeout.
	Timeout time.Duration
	// MaxResponse is the largest response body read, in bytes; default
	// DefaultMaxResponse.
	MaxResponse int64
	// Retries is how many times a read is tried again when Kanboard is
	// unavailable; default DefaultRetries, negative for none.
	Retries int
	// Backoff is the wait before the first retry, doubled for each next;
	// default DefaultBackoff.
	Backoff time.Duration
}

// Client talks to one Kanboard as one identity. It is safe for concurrent
// use.
type Client struct {
	o        Options
	endpoint string
	red      *redact.Redactor
	nextID   atomic.Int64
	authFail atomic.Int32 // consecutive 401s

	meOnce sync.Mutex
	me     *User
}

// New returns a client. It does not contact the server.
func New(o Options) (*Client, error) {
	if strings.TrimSpace(o.URL) == "" {
		return nil, fmt.Errorf("%w: no URL (set KANBOARD_URL)", ErrBadOptions)
	}
	u, err := url.Parse(strings.TrimSpace(o.URL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: %q is not an http(s) URL", ErrBadOptions, redact.New(o.Token).Redact(o.URL))
	}
	if o.Token == "" {
		return nil, fmt.Errorf("%w: no token (set KANBOARD_TOKEN or KANBOARD_TOKEN_FILE)", ErrBadOptions)
	}
	if o.User == "" {
		o.User = AppUser
	}
	if !strings.HasSuffix(u.Path, "/jsonrpc.php") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/jsonrpc.php"
	}
	if o.HTTP == nil {
		o.HTTP = &http.Client{}
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxResponse <= 0 {
		o.MaxResponse = DefaultMaxResponse
	}
	if o.Retries == 0 {
		o.Retries = DefaultRetries
	}
	if o.Backoff <= 0 {
		o.Backoff = DefaultBackoff
	}
	red := redact.New(o.Token, BasicAuth(o.User, o.Token))
	if pw, ok := u.User.Password(); ok {
		red.Add(pw)
	}
	return &Client{o: o, endpoint: u.String(), red: red}, nil
}

// Endpoint is the jsonrpc.php URL the client posts to.
func (c *Client) Endpoint() string { return c.red.Redact(c.endpoint) }

// User is the identity the client acts as: AppUser or a Kanboard user name.
func (c *Client) User() string { return c.o.User }

// IsApp reports whether the client acts as the application identity, which
// Kanboard does not check project membership for.
func (c *Client) IsApp() bool { return c.o.User == AppUser }

type request struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	ID      int64  `json:"id"`
	Params  any    `json:"params,omitempty"`
}

// call sends one JSON-RPC call and returns its result; read calls are
// retried while Kanboard is unavailable.
//
// fast, if given, may decode a body itself (a large list, in one pass
// instead of two); when it reports true the result is nil and taken.
func (c *Client) call(ctx context.Context, method string, params any, read bool, fast ...func(body []byte, id int64) bool) (json.RawMessage, error) {
	attempts := 1
	if read && c.o.Retries > 0 {
		attempts += c.o.Retries
	}
	wait := c.o.Backoff
	var err error
	for i := 0; i < attempts; i++ {
		if i > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, c.fail(method, 0, ErrUnavailable, ctx.Err().Error())
			case <-t.C:
			}
			wait *= 2
		}
		var res json.RawMessage
		res, err = c.attempt(ctx, method, params, fast...)
		if err == nil || !errors.Is(err, ErrUnavailable) || ctx.Err() != nil {
			return res, err
		}
	}
	return nil, err
}

func (c *Client) attempt(ctx context.Context, method string, params any, fast ...func([]byte, int64) bool) (json.RawMessage, error) {
	if c.authFail.Load() >= maxAuthFailures {
		msg := fmt.Sprintf("not sent: Kanboard refused the application token %d times in a row; fix KANBOARD_TOKEN, then restart", maxAuthFailures)
		if !c.IsApp() {
			msg = fmt.Sprintf("not sent: Kanboard refused user %q %d times in a row, and a user is locked out after 6 failed logins; fix the token, then restart", c.o.User, maxAuthFailures)
		}
		return nil, c.fail(method, 0, ErrUnauthorized, msg)
	}
	id := c.nextID.Add(1)
	body, err := json.Marshal(request{JSONRPC: "2.0", Method: method, ID: id, Params: params})
	if err != nil {
		return nil, c.fail(method, 0, ErrBadParams, err.Error())
	}
	ctx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, c.fail(method, 0, ErrBadOptions, err.Error())
	}
	req.SetBasicAuth(c.o.User, c.o.Token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "bridle")
	resp, err := c.o.HTTP.Do(req)
	if err != nil {
		if errors.Is(err, context.Canceled) && ctx.Err() == nil {
			return nil, c.fail(method, 0, ErrUnavailable, "cancelled")
		}
		msg := err.Error()
		if errors.Is(err, context.DeadlineExceeded) {
			msg = fmt.Sprintf("no answer within %s", c.o.Timeout)
		}
		return nil, c.fail(method, 0, ErrUnavailable, msg)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, c.o.MaxResponse+1))
	if err != nil {
		msg := err.Error()
		if errors.Is(err, context.DeadlineExceeded) {
			msg = fmt.Sprintf("the answer did not complete within %s", c.o.Timeout)
		}
		return nil, c.fail(method, resp.StatusCode, ErrUnavailable, msg)
	}
	if int64(len(b)) > c.o.MaxResponse {
		return nil, c.fail(method, resp.StatusCode, ErrTooLarge, fmt.Sprintf("the answer is larger than %d bytes", c.o.MaxResponse))
	}
	// The credentials are masked in the whole answer before anything reads
	// it: a message cut short later could otherwise keep most of a token.
	if c.red.Contains(string(b)) {
		b = []byte(c.red.Redact(string(b)))
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		n := c.authFail.Add(1)
		msg := fmt.Sprintf("Kanboard rejected the credentials of %q (check KANBOARD_USER and KANBOARD_TOKEN)", c.o.User)
		if !c.IsApp() {
			msg += fmt.Sprintf("; a Kanboard user is locked out for 15 minutes after 6 failed logins, and then even the right token gets 401 (%d failed in a row here)", n)
		}
		return nil, c.fail(method, resp.StatusCode, ErrUnauthorized, msg)
	case resp.StatusCode == http.StatusForbidden:
		c.authFail.Store(0)
		msg := "Kanboard refused the call"
		if c.IsApp() {
			msg += " (the application identity may not call user methods such as getMe)"
		} else {
			msg += fmt.Sprintf(" (user %q is not a member of the project, or it does not exist)", c.o.User)
		}
		return nil, c.fail(method, resp.StatusCode, ErrForbidden, msg)
	case resp.StatusCode >= 500:
		return nil, c.fail(method, resp.StatusCode, ErrUnavailable, strings.TrimSpace(resp.Status))
	case resp.StatusCode != http.StatusOK:
		return nil, c.fail(method, resp.StatusCode, ErrProtocol, fmt.Sprintf("%s: is %s Kanboard's JSON-RPC endpoint?", strings.TrimSpace(resp.Status), c.red.Redact(c.endpoint)))
	}
	c.authFail.Store(0)
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct == "text/html" || looksHTML(b) {
		return nil, c.fail(method, resp.StatusCode, ErrUnavailable, "answered an HTML page, not JSON-RPC (a proxy's error or login page, or KANBOARD_URL is not Kanboard)")
	}
	if len(fast) > 0 && fast[0](b, id) {
		return nil, nil
	}
	res, err := Decode(b, id)
	if err != nil {
		var de *decodeError
		if errors.As(err, &de) {
			return nil, c.fail(method, resp.StatusCode, de.kind, de.msg)
		}
		return nil, c.fail(method, resp.StatusCode, ErrProtocol, err.Error())
	}
	return res, nil
}

// BasicAuth is the credential as the Authorization header carries it
// (base64 of user:token): a proxy that echoes request headers echoes this,
// so it is masked like the token.
func BasicAuth(user, token string) string {
	if token == "" {
		return ""
	}
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + token))
}

func looksHTML(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '<'
}

// fail builds the *Error of a call, redacted of the credentials.
func (c *Client) fail(method string, status int, kind error, msg string) error {
	return &Error{Method: method, Status: status, Kind: kind, Message: c.red.Redact(clean(msg, maxMessage))}
}

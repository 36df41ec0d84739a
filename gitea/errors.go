package gitea

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	sdk "code.gitea.io/sdk/gitea"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// What Gitea's answers mean, for errors.Is. A classified error wraps one.
var (
	ErrUnauthorized = errors.New("gitea rejected the token (401)")
	ErrForbidden    = errors.New("gitea refused the operation (403)")
	ErrNotFound     = errors.New("gitea has no such thing (404)")
	ErrConflict     = errors.New("gitea reports a conflict")
	// ErrNotReady: Gitea is still checking whether a pull request can be
	// merged; the same merge succeeds a moment later.
	ErrNotReady = errors.New("gitea is not ready to merge yet")
	// ErrNotOpen: the pull request is already merged, or a draft.
	ErrNotOpen = errors.New("the pull request cannot be merged in its state")
	// ErrProtected: branch protection blocks the merge (approvals or
	// status checks still missing).
	ErrProtected = errors.New("branch protection blocks the merge")
	// ErrUnavailable: Gitea could not be reached or failed (5xx, timeout,
	// connection refused). Safe calls are retried.
	ErrUnavailable = errors.New("gitea is unavailable")
)

// Error is a failed Gitea call: which step, what HTTP status (0 when none
// came back), Gitea's message (redacted), and what it means (Kind).
type Error struct {
	Step    string
	Status  int
	Message string
	Kind    error // one of the sentinels, or nil when nothing is known
}

func (e *Error) Error() string {
	if e.Kind == nil {
		return fmt.Sprintf("gitea %s: %s", e.Step, e.Message)
	}
	return fmt.Sprintf("gitea %s: %s: %s", e.Step, e.Kind, e.Message)
}

// Unwrap returns Kind, for errors.Is.
func (e *Error) Unwrap() error { return e.Kind }

// Classify turns a failed SDK call into an *Error. The SDK's error text
// carries Gitea's message.
func (c *Client) Classify(step string, resp *sdk.Response, err error) error {
	if err == nil {
		return nil
	}
	status := 0
	if resp != nil && resp.Response != nil {
		status = resp.StatusCode
	}
	return c.classify(step, status, err.Error(), err)
}

// ClassifyResponse classifies a raw API response (from Do) whose status is
// not 2xx, reading Gitea's JSON message from its body (at most 1 MiB). It
// closes the body. It returns nil for a 2xx response.
func (c *Client) ClassifyResponse(step string, resp *http.Response) error {
	defer resp.Body.Close()
	if resp.StatusCode < 300 {
		return nil
	}
	var answer struct {
		Message string `json:"message"`
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if json.Unmarshal(b, &answer) != nil || answer.Message == "" {
		answer.Message = strings.TrimSpace(resp.Status)
	}
	return c.classify(step, resp.StatusCode, answer.Message, nil)
}

// ClassifyGit classifies a failed git transport call (clone, fetch) to the
// server: go-git's authentication and not-found errors, network errors.
func (c *Client) ClassifyGit(step string, err error) error {
	if err == nil {
		return nil
	}
	e := &Error{Step: step, Message: c.Redact(err.Error())}
	switch {
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrInvalidAuthMethod):
		e.Kind = ErrUnauthorized
	case errors.Is(err, transport.ErrAuthorizationFailed):
		e.Kind = ErrForbidden
	case errors.Is(err, transport.ErrRepositoryNotFound):
		e.Kind = ErrNotFound
	case unreachable(err):
		e.Kind = ErrUnavailable
	}
	return e
}

// classify is the one place Gitea's answers get a meaning. A 405 from the
// merge endpoint says several things, told apart only by Gitea's message
// (its API gives no code): the recorded answers in testdata pin them.
func (c *Client) classify(step string, status int, msg string, err error) error {
	e := &Error{Step: step, Status: status, Message: c.Redact(msg)}
	lower := strings.ToLower(msg)
	switch {
	case status == 401:
		e.Kind = ErrUnauthorized
	case status == 403:
		e.Kind = ErrForbidden
	case status == 404:
		e.Kind = ErrNotFound
	case status == 405 && strings.Contains(lower, "try again later"):
		e.Kind = ErrNotReady
	case status == 405 && strings.Contains(lower, "not allowed to merge"):
		e.Kind = ErrForbidden
	case status == 405 && (strings.Contains(lower, "already merged") || strings.Contains(lower, "work in progress")):
		e.Kind = ErrNotOpen
	case status == 405 && strings.Contains(lower, "not ready to merge"):
		e.Kind = ErrProtected
	case status == 405, status == 409, status == 422:
		e.Kind = ErrConflict
	case status >= 500:
		e.Kind = ErrUnavailable
	case status == 0 && err != nil && unreachable(err):
		e.Kind = ErrUnavailable
	}
	return e
}

// unreachable reports a transport failure worth retrying: a timeout, a
// refused or reset connection, a name that did not resolve. A certificate
// Gitea's TLS presents that does not verify, or a call the caller cancelled,
// is not: retrying changes nothing.
func unreachable(err error) bool {
	var cert *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	switch {
	case errors.Is(err, context.Canceled), errors.As(err, &cert), errors.As(err, &unknown),
		errors.As(err, &hostname), errors.As(err, &invalid):
		return false
	case errors.Is(err, context.DeadlineExceeded):
		return true
	}
	var op *net.OpError
	var dns *net.DNSError
	var nerr net.Error
	return errors.As(err, &op) || errors.As(err, &dns) || errors.As(err, &nerr) && nerr.Timeout() ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

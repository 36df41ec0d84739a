// Package bridge connects a coding agent that speaks MCP over stdio to
// Bridle's gateway (bridle serve), which speaks MCP over streamable HTTP:
// bridle mcp --server runs it, so an agent that can only launch a command
// reaches the gateway as it would reach the embedded sidecar. It is a
// JSON-RPC proxy: messages are forwarded one by one, both ways, unchanged
// (server→client notifications such as notifications/tools/list_changed
// and server requests included); the bridge adds no tools and decides
// nothing. The token is the agent's identity at the gateway; the bridge
// only carries it.
//
// Promises:
//
//   - Every HTTP request to the gateway's origin carries
//     Authorization: Bearer TOKEN, and no other origin ever gets it
//     (redirects are not followed). The token is added to the Redactor,
//     which masks every line written to the agent and every log line.
//   - A gateway restart is invisible to the agent. When the session is gone
//     (HTTP 404 for its Mcp-Session-Id) or the gateway does not answer
//     (connection refused, 502/503/504 from a proxy), the bridge reconnects
//     with backoff, replays the agent's initialize — its answer is
//     swallowed, the agent never sees a second initialize result — and
//     notifications/initialized, then re-sends the request. After a
//     reconnect it sends the agent notifications/tools/list_changed when
//     the gateway offers it, since a restarted gateway may serve other
//     tools.
//   - Every call is answered, never left hanging: one the gateway cannot
//     take within RetryBudget (10 s) gets CodeUnavailable; one the gateway
//     refuses for its token (HTTP 401) gets CodeTokenRefused at once and is
//     never retried. The bridge then keeps running, so that every later
//     call says so too (an agent shows a call's error; a vanished server is
//     only "failed"); the token is read once, so after rotating it the
//     agent is restarted.
//   - A request the gateway may have received but did not answer (its
//     stream was cut, its connection closed) is re-sent only when repeating
//     it is harmless: any method but tools/call, and a tools/call of a tool
//     the gateway listed as read-only or idempotent. Any other tools/call is
//     answered with CodeInterrupted: it may have run, and is not run twice.
//   - Bad input from the agent (not JSON, not JSON-RPC, a batch, a line over
//     MaxLine, an id already in flight) is answered with a JSON-RPC error
//     and skipped; only the end of input ends the bridge. Then it waits for
//     the calls in flight (up to 10 s) and closes the gateway session
//     (HTTP DELETE).
package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/bridle-dev/bridle/redact"
)

// Options configure Run.
type Options struct {
	// URL is the gateway's MCP endpoint, SERVER/p/PROJECT/mcp.
	URL string
	// Token is the agent's gateway token (bridle_…), sent as a bearer token.
	Token string
	// In and Out are the agent's side: newline-delimited JSON-RPC.
	In  io.Reader
	Out io.Writer
	// Logger gets the bridge's own events (reconnects, refused lines); nil
	// logs nothing.
	Logger *slog.Logger
	// HTTP is the client whose transport reaches the gateway; nil is one
	// with a 5 s dial timeout. Its redirect policy is replaced (redirects
	// are not followed, so the token goes nowhere else).
	HTTP *http.Client
	// Redactor masks what the bridge writes and logs; the token is added to
	// it (nil: a new one holding only the token).
	Redactor *redact.Redactor
	// MaxLine is the longest line accepted from the agent (0:
	// DefaultMaxLine); MaxLine is also the largest event taken from the
	// gateway's stream.
	MaxLine int
	// RetryBudget bounds how long one message is retried while the gateway
	// is unreachable (0: DefaultRetryBudget).
	RetryBudget time.Duration
}

const (
	// DefaultMaxLine is the longest JSON-RPC line the bridge accepts.
	DefaultMaxLine = 4 << 20
	// DefaultRetryBudget is how long one message waits for the gateway.
	DefaultRetryBudget = 10 * time.Second
	// drainTimeout is how long the end of input waits for calls in flight.
	drainTimeout = 10 * time.Second
)

// JSON-RPC error codes the bridge answers with (the implementation-defined
// server-error range of JSON-RPC 2.0).
const (
	// CodeTokenRefused: the gateway refused the token (HTTP 401).
	CodeTokenRefused = -32001
	// CodeUnavailable: the gateway could not be reached within the retry
	// budget, or has no MCP endpoint at the URL.
	CodeUnavailable = -32003
	// CodeInterrupted: the connection was lost while the gateway ran a
	// tools/call; it may or may not have run.
	CodeInterrupted = -32004
)

// Errors, matched with errors.Is.
var (
	// ErrTokenRefused is the gateway's HTTP 401: the token is unknown,
	// rotated or revoked.
	ErrTokenRefused = errors.New("the gateway refused the token")
	// ErrNoEndpoint is an HTTP 404 outside a session: no MCP endpoint (no
	// such project) at the URL.
	ErrNoEndpoint = errors.New("the gateway has no MCP endpoint at this URL")
	// ErrUnavailable is the gateway (or a proxy before it) answering
	// 502, 503 or 504.
	ErrUnavailable = errors.New("the gateway is unavailable")
	// ErrOptions marks Options Run cannot work with.
	ErrOptions = errors.New("bridge options")
)

// Run forwards messages between the agent (In, Out) and the gateway until
// In ends or ctx is done. It returns nil at the end of input, ctx's error
// when cancelled, and an error wrapping ErrOptions for unusable Options.
func Run(ctx context.Context, opts Options) error {
	u, err := url.Parse(opts.URL)
	switch {
	case err != nil:
		return fmt.Errorf("%w: url %q: %w", ErrOptions, opts.URL, err)
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return fmt.Errorf("%w: url %q is not an http(s) URL", ErrOptions, opts.URL)
	case opts.Token == "":
		return fmt.Errorf("%w: no token", ErrOptions)
	case opts.In == nil || opts.Out == nil:
		return fmt.Errorf("%w: In and Out are required", ErrOptions)
	}
	b := newBridge(ctx, opts, u)
	defer b.cancel()
	return b.run()
}

type bridge struct {
	opts   Options
	origin string // scheme://host of the endpoint: the only origin that gets the token
	ctx    context.Context
	cancel context.CancelFunc
	log    *slog.Logger
	red    *redact.Redactor
	base   http.RoundTripper
	budget time.Duration
	max    int

	wmu sync.Mutex // one line at a time to the agent

	dialMu sync.Mutex // one dial at a time

	mu          sync.Mutex
	cur         *session         // nil: dial on the next message
	sessions    int              // sessions dialled, for replay ids
	initReq     *jsonrpc.Request // the agent's initialize, once answered with a result
	initialized bool             // the agent sent notifications/initialized
	pending     map[string]*call // calls read from the agent, not yet answered
	safe        map[string]bool  // tool → repeatable (read-only or idempotent), from tools/list
	idle        chan struct{}    // closed when pending empties (at the end of input)
}

// call is a request from the agent awaiting its answer.
type call struct {
	req  *jsonrpc.Request
	sess *session // the session it was written to; nil while it is not
}

func newBridge(ctx context.Context, opts Options, u *url.URL) *bridge {
	b := &bridge{opts: opts, origin: u.Scheme + "://" + u.Host, pending: map[string]*call{}, safe: map[string]bool{}}
	b.ctx, b.cancel = context.WithCancel(ctx)
	b.red = opts.Redactor
	if b.red == nil {
		b.red = redact.New()
	}
	b.red.Add(opts.Token)
	b.log = opts.Logger
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	b.log = slog.New(b.red.Handler(b.log.Handler()))
	b.base = http.DefaultTransport
	if opts.HTTP != nil && opts.HTTP.Transport != nil {
		b.base = opts.HTTP.Transport
	} else if t, ok := http.DefaultTransport.(*http.Transport); ok {
		t = t.Clone()
		t.DialContext = (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext
		b.base = t
	}
	b.budget = opts.RetryBudget
	if b.budget <= 0 {
		b.budget = DefaultRetryBudget
	}
	b.max = opts.MaxLine
	if b.max <= 0 {
		b.max = DefaultMaxLine
	}
	return b
}

func (b *bridge) run() error {
	lines := make(chan jsonrpc.Message)
	readErr := make(chan error, 1)
	go func() { readErr <- readAgent(b.ctx, b.opts.In, b.max, b, lines) }()
	for {
		select {
		case <-b.ctx.Done():
			b.close()
			return b.ctx.Err()
		case msg := <-lines:
			b.fromAgent(msg)
		case err := <-readErr:
			b.drain()
			b.close()
			if err != nil {
				return fmt.Errorf("bridge: reading from the agent: %w", err)
			}
			return nil
		}
	}
}

// fromAgent forwards one message from the agent.
func (b *bridge) fromAgent(msg jsonrpc.Message) {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.IsCall() {
			b.mu.Lock()
			key := idKey(m.ID)
			_, dup := b.pending[key]
			if !dup {
				b.pending[key] = &call{req: m}
			}
			b.mu.Unlock()
			if dup {
				b.log.Warn("refused a call whose id is already in flight", "method", m.Method)
				b.reply(m.ID, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: request id %s is already in flight; use a new id for every call", idJSON(m.ID)))
				return
			}
		} else if m.Method == "notifications/initialized" {
			b.mu.Lock()
			b.initialized = true
			b.mu.Unlock()
		}
		b.send(m)
	case *jsonrpc.Response:
		// The agent's answer to a request of the gateway's: it belongs to
		// the session that asked, so it is not retried on another.
		b.mu.Lock()
		s := b.cur
		b.mu.Unlock()
		if s == nil {
			b.log.Warn("dropped an answer to the gateway: its session is gone")
			return
		}
		if err := s.conn.Write(b.ctx, m); err != nil {
			b.log.Warn("could not forward an answer to the gateway", "err", err)
		}
	}
}

// send writes req to the gateway once now, and retries in the background
// when the gateway could not take it.
func (b *bridge) send(req *jsonrpc.Request) {
	deadline := time.Now().Add(b.budget)
	err := b.trySend(req, deadline)
	switch {
	case err == nil:
	case retryable(err, b.repeatable(req)):
		go b.retry(req, deadline, err)
	default:
		b.fail(req, err)
	}
}

// retry sends req again, with backoff, until it goes through, fails for
// good, or its deadline would pass.
func (b *bridge) retry(req *jsonrpc.Request, deadline time.Time, err error) {
	delay := time.Duration(0) // a session found gone is re-dialled at once
	for {
		if time.Now().Add(delay).After(deadline) {
			b.fail(req, fmt.Errorf("%w: gave up after %s: %w", errGaveUp, b.budget, err))
			return
		}
		select {
		case <-b.ctx.Done():
			return
		case <-time.After(delay):
		}
		delay = min(max(2*delay, 50*time.Millisecond), time.Second)
		if err = b.trySend(req, deadline); err == nil {
			return
		}
		if !retryable(err, b.repeatable(req)) {
			b.fail(req, err)
			return
		}
		b.log.Info("gateway not reachable; retrying", "method", req.Method, "err", err)
	}
}

var errGaveUp = errors.New("the gateway did not answer")

// trySend writes req to the current session, dialling one if needed.
func (b *bridge) trySend(req *jsonrpc.Request, deadline time.Time) error {
	s, err := b.session(deadline)
	if err != nil {
		return err
	}
	var c *call
	if req.IsCall() {
		b.mu.Lock()
		c = b.pending[idKey(req.ID)]
		b.mu.Unlock()
		if c == nil {
			return nil // answered meanwhile (a duplicate's retry)
		}
	}
	// The call is marked sent before the write: its answer can arrive
	// before Write returns. A session that dies meanwhile hands it back
	// (cut) or the write fails and it is retried here — not both, as
	// claim decides under mu.
	if c != nil {
		b.mu.Lock()
		c.sess = s
		b.mu.Unlock()
	}
	if err := s.conn.Write(b.ctx, req); err != nil {
		if c != nil && !b.claim(c, s) {
			return nil // the session died and handed the call back already
		}
		if gone(err) {
			b.kill(s, err)
		}
		return err
	}
	if req.Method == "notifications/initialized" {
		s.listen(b)
	}
	return nil
}

// claim takes c back from session s; false if someone else already did.
func (b *bridge) claim(c *call, s *session) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if c.sess != s {
		return false
	}
	c.sess = nil
	return true
}

// cut handles a call whose session died (or whose stream was cut) while
// the gateway had it.
func (b *bridge) cut(c *call) {
	if !b.repeatable(c.req) {
		b.answered(c.req.ID)
		b.reply(c.req.ID, CodeInterrupted, interrupted)
		return
	}
	go b.retry(c.req, time.Now().Add(b.budget), errCut)
}

var errCut = errors.New("the connection to the gateway was lost")

const interrupted = "the connection to Bridle's gateway was lost before it answered this tool call: it may or may not have run; check, then call again if needed"

// fail answers req (a call) with err; a notification is only logged.
func (b *bridge) fail(req *jsonrpc.Request, err error) {
	b.log.Warn("gateway request failed", "method", req.Method, "err", err)
	if !req.IsCall() {
		return
	}
	if !b.answered(req.ID) {
		return
	}
	code, msg := int64(CodeUnavailable), "Bridle's gateway at "+b.opts.URL+" could not be reached: "+err.Error()
	switch {
	case mayHaveArrived(err):
		code, msg = CodeInterrupted, interrupted
	case errors.Is(err, ErrTokenRefused):
		code, msg = CodeTokenRefused, "Bridle's gateway refused this agent's token (HTTP 401): it is unknown, rotated or revoked. Get a new one with bridle agents add --server URL --project P --agent NAME, put it in the token file the agent's config names (bridle mcp --token-file, or the variable of --token-file-env), and restart the agent"
	case errors.Is(err, ErrNoEndpoint):
		msg = "Bridle's gateway has no MCP endpoint at " + b.opts.URL + " (HTTP 404): check --server and --project"
	default:
		if wire := gatewayError(err); wire != nil {
			b.write(&jsonrpc.Response{ID: req.ID, Error: wire})
			return
		}
	}
	b.reply(req.ID, code, msg)
}

// codeRejected is the code of the SDK's own "rejected by transport"
// marker, which its client connection wraps into every failed write: not
// an answer of the gateway's.
const codeRejected = -32005

// gatewayError is the JSON-RPC error the gateway answered a failed POST
// with (an HTTP error whose body is one), or nil.
func gatewayError(err error) *jsonrpc.Error {
	var found *jsonrpc.Error
	var walk func(error) bool
	walk = func(err error) bool {
		if w, ok := err.(*jsonrpc.Error); ok && w.Code != codeRejected {
			found = w
			return true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			return u.Unwrap() != nil && walk(u.Unwrap())
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if walk(e) {
					return true
				}
			}
		}
		return false
	}
	walk(err)
	return found
}

// answered removes a call from pending; false if it was not there.
func (b *bridge) answered(id jsonrpc.ID) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	key := idKey(id)
	if _, ok := b.pending[key]; !ok {
		return false
	}
	delete(b.pending, key)
	if len(b.pending) == 0 && b.idle != nil {
		close(b.idle)
		b.idle = nil
	}
	return true
}

// retryable reports whether a failed send may go through later: the
// session is gone, or the gateway did not answer. A request that is not
// repeatable is retried only when it cannot have arrived (nothing answered
// the dial, a 404 for the session, a proxy's 502–504).
func retryable(err error, repeatable bool) bool {
	switch {
	case errors.Is(err, ErrTokenRefused), errors.Is(err, ErrNoEndpoint), errors.Is(err, context.Canceled):
		return false
	case gone(err), errors.Is(err, ErrUnavailable), errors.Is(err, errCut), notSent(err):
		return true
	}
	return repeatable && mayHaveArrived(err)
}

// notSent reports an error before the request could reach the gateway:
// nothing answered the dial.
func notSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// mayHaveArrived reports an HTTP exchange that failed after the request
// may have reached the gateway (a connection closed before the answer).
func mayHaveArrived(err error) bool {
	var ue *url.Error
	return errors.As(err, &ue) && !notSent(err) &&
		!errors.Is(err, ErrTokenRefused) && !errors.Is(err, ErrNoEndpoint) && !errors.Is(err, ErrUnavailable)
}

// repeatable reports whether req may reach the gateway twice without harm:
// every request but tools/call, and a tools/call of a tool the gateway
// lists as read-only or idempotent (learnt from the tools/list answers
// that pass through; a tool not listed yet is not repeatable).
func (b *bridge) repeatable(req *jsonrpc.Request) bool {
	if req.Method != "tools/call" {
		return true
	}
	var p struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(req.Params, &p) != nil {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.safe[p.Name]
}

// learnTools records which listed tools are repeatable.
func (b *bridge) learnTools(result json.RawMessage) {
	var r struct {
		Tools []struct {
			Name        string `json:"name"`
			Annotations *struct {
				ReadOnly   bool `json:"readOnlyHint"`
				Idempotent bool `json:"idempotentHint"`
			} `json:"annotations"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &r) != nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, t := range r.Tools {
		b.safe[t.Name] = t.Annotations != nil && (t.Annotations.ReadOnly || t.Annotations.Idempotent)
	}
}

// reply writes a JSON-RPC error response to the agent.
// A message that had no usable id is answered with id null.
func (b *bridge) reply(id jsonrpc.ID, code int64, msg string) {
	data, err := json.Marshal(struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      any            `json:"id"`
		Error   *jsonrpc.Error `json:"error"`
	}{"2.0", id.Raw(), &jsonrpc.Error{Code: code, Message: msg}})
	if err != nil {
		b.log.Error("could not encode an error for the agent", "err", err)
		return
	}
	b.writeLine(data)
}

// write sends one message to the agent, masked.
func (b *bridge) write(msg jsonrpc.Message) {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		b.log.Error("could not encode a message for the agent", "err", err)
		return
	}
	b.writeLine(data)
}

func (b *bridge) writeLine(data []byte) {
	b.wmu.Lock()
	defer b.wmu.Unlock()
	if _, err := b.opts.Out.Write(append(b.red.JSON(data), '\n')); err != nil {
		b.log.Warn("could not write to the agent", "err", err)
	}
}

// drain waits (up to drainTimeout) until every call read has been answered.
func (b *bridge) drain() {
	b.mu.Lock()
	if len(b.pending) == 0 {
		b.mu.Unlock()
		return
	}
	b.idle = make(chan struct{})
	idle := b.idle
	b.mu.Unlock()
	select {
	case <-idle:
	case <-b.ctx.Done():
	case <-time.After(drainTimeout):
	}
}

// close ends the current session (DELETE) and stops everything.
func (b *bridge) close() {
	b.mu.Lock()
	s := b.cur
	b.cur = nil
	b.mu.Unlock()
	if s != nil {
		s.end()
	}
	b.cancel()
}

func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

func idJSON(id jsonrpc.ID) json.RawMessage {
	data, err := json.Marshal(id.Raw())
	if err != nil {
		return json.RawMessage("null")
	}
	return data
}

// Endpoint is a project's MCP endpoint at the gateway:
// SERVER/p/PROJECT/mcp. server must be an http(s) URL (a path prefix is
// kept, for a gateway behind a proxy); project a non-empty name without a
// slash.
func Endpoint(server, project string) (string, error) {
	u, err := url.Parse(strings.TrimRight(server, "/"))
	switch {
	case err != nil:
		return "", fmt.Errorf("%w: server %q: %w", ErrOptions, server, err)
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.RawQuery != "" || u.Fragment != "":
		return "", fmt.Errorf("%w: server %q is not an http(s) URL such as https://bridle.example.com", ErrOptions, server)
	case project == "" || strings.ContainsAny(project, "/?#") || strings.TrimSpace(project) != project:
		return "", fmt.Errorf("%w: project %q is not a project name", ErrOptions, project)
	}
	return u.String() + "/p/" + url.PathEscape(project) + "/mcp", nil
}

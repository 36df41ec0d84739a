package bridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/internal/lines"
)

// session is one MCP session at the gateway: the SDK's streamable client
// connection for what the agent sends (POST, answered as JSON or an event
// stream), and the bridge's own standalone event stream (GET) for what
// the gateway sends unasked — the SDK's client connection opens that only
// for an sdk.Client, which a proxy is not.
type session struct {
	conn    sdk.Connection
	client  *http.Client
	url     string
	version atomic.Pointer[string] // negotiated protocol version, for the MCP-Protocol-Version header

	// Guarded by bridge.mu.
	dead        bool
	listening   bool
	listChanged bool                              // the gateway announces tools.listChanged
	waiters     map[string]chan *jsonrpc.Response // the bridge's own calls (a replayed initialize)

	done    chan struct{}      // closed when the session is retired (kill)
	ctx     context.Context    // the standalone stream's
	stop    context.CancelFunc // ends the standalone stream
	endOnce sync.Once
}

// session returns the current session, dialling one (and replaying the
// agent's initialize on it) when there is none.
func (b *bridge) session(deadline time.Time) (*session, error) {
	b.dialMu.Lock()
	defer b.dialMu.Unlock()
	b.mu.Lock()
	s := b.cur
	init, initialized := b.initReq, b.initialized
	b.sessions++
	n := b.sessions
	b.mu.Unlock()
	if s != nil {
		return s, nil
	}
	s = &session{url: b.opts.URL, waiters: map[string]chan *jsonrpc.Response{}, done: make(chan struct{})}
	s.ctx, s.stop = context.WithCancel(b.ctx)
	s.client = &http.Client{
		Transport:     &auth{base: b.base, token: b.opts.Token, origin: b.origin, version: &s.version},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	conn, err := (&sdk.StreamableClientTransport{Endpoint: b.opts.URL, HTTPClient: s.client, DisableStandaloneSSE: true}).Connect(b.ctx)
	if err != nil {
		return nil, fmt.Errorf("connect to the gateway: %w", err)
	}
	s.conn = conn
	go b.readGateway(s)
	if init != nil {
		if err := b.replay(s, init, initialized, n, deadline); err != nil {
			b.kill(s, err)
			return nil, err
		}
	}
	b.mu.Lock()
	b.cur = s
	announce := init != nil && s.listChanged
	b.mu.Unlock()
	if init != nil {
		b.log.Info("reconnected to the gateway", "url", b.opts.URL)
		if initialized {
			s.listen(b)
		}
	}
	if announce {
		b.write(&jsonrpc.Request{Method: "notifications/tools/list_changed"})
	}
	return s, nil
}

// replay initialises a new session as the agent initialised the first
// one; the gateway's answer stays here.
func (b *bridge) replay(s *session, init *jsonrpc.Request, initialized bool, n int, deadline time.Time) error {
	id, _ := jsonrpc.MakeID(fmt.Sprintf("bridle-bridge-initialize-%d", n))
	ch := make(chan *jsonrpc.Response, 1)
	b.mu.Lock()
	s.waiters[idKey(id)] = ch
	b.mu.Unlock()
	ctx, cancel := context.WithDeadline(b.ctx, deadline)
	defer cancel()
	if err := s.conn.Write(ctx, &jsonrpc.Request{ID: id, Method: "initialize", Params: init.Params}); err != nil {
		return fmt.Errorf("replay initialize: %w", err)
	}
	var resp *jsonrpc.Response
	select {
	case resp = <-ch:
	case <-s.done:
		return fmt.Errorf("replay initialize: %w", errCut)
	case <-ctx.Done():
		return fmt.Errorf("replay initialize: %w: %w", errGaveUp, ctx.Err())
	}
	if resp.Error != nil {
		return fmt.Errorf("replay initialize: %w", resp.Error)
	}
	b.learn(s, resp.Result)
	if initialized {
		if err := s.conn.Write(ctx, &jsonrpc.Request{Method: "notifications/initialized"}); err != nil {
			return fmt.Errorf("replay notifications/initialized: %w", err)
		}
	}
	return nil
}

// learn keeps what an initialize result says that the bridge needs.
func (b *bridge) learn(s *session, result json.RawMessage) {
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
		Capabilities    struct {
			Tools *struct {
				ListChanged bool `json:"listChanged"`
			} `json:"tools"`
		} `json:"capabilities"`
	}
	if json.Unmarshal(result, &r) != nil {
		return
	}
	if r.ProtocolVersion != "" {
		s.version.Store(&r.ProtocolVersion)
	}
	b.mu.Lock()
	s.listChanged = r.Capabilities.Tools != nil && r.Capabilities.Tools.ListChanged
	b.mu.Unlock()
}

// readGateway forwards what the gateway sends on s until s ends.
func (b *bridge) readGateway(s *session) {
	for {
		msg, err := s.conn.Read(b.ctx)
		if err != nil {
			b.kill(s, err)
			return
		}
		b.fromGateway(s, msg)
	}
}

// fromGateway routes one message from session s: an answer to the call it
// belongs to, anything else (notifications, the gateway's own requests) to
// the agent while s is current.
func (b *bridge) fromGateway(s *session, msg jsonrpc.Message) {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		b.mu.Lock()
		current := b.cur == s || b.cur == nil && !s.dead
		b.mu.Unlock()
		if current {
			b.write(msg)
		}
		return
	}
	key := idKey(resp.ID)
	b.mu.Lock()
	if ch, ok := s.waiters[key]; ok {
		delete(s.waiters, key)
		b.mu.Unlock()
		ch <- resp
		return
	}
	c := b.pending[key]
	if c == nil || c.sess != s {
		b.mu.Unlock()
		b.log.Debug("dropped an answer to no call in flight on its session")
		return
	}
	var wire *jsonrpc.Error
	if resp.Error != nil && !errors.As(resp.Error, &wire) {
		// Not the gateway's answer: the SDK's, for a stream cut before the
		// answer came.
		c.sess = nil
		b.mu.Unlock()
		b.cut(c)
		return
	}
	b.mu.Unlock()
	switch {
	case resp.Error != nil:
	case c.req.Method == "initialize":
		b.learn(s, resp.Result)
		b.mu.Lock()
		b.initReq = c.req
		b.mu.Unlock()
	case c.req.Method == "tools/list":
		b.learnTools(resp.Result)
	}
	if b.answered(resp.ID) {
		b.write(resp)
	}
}

// kill retires session s: the next message dials a new one, and the calls
// the gateway had on s are cut.
func (b *bridge) kill(s *session, err error) {
	b.mu.Lock()
	if s.dead {
		b.mu.Unlock()
		return
	}
	s.dead = true
	close(s.done)
	if b.cur == s {
		b.cur = nil
	}
	var cut []*call
	for _, c := range b.pending {
		if c.sess == s {
			c.sess = nil
			cut = append(cut, c)
		}
	}
	b.mu.Unlock()
	if b.ctx.Err() == nil && !errors.Is(err, io.EOF) {
		b.log.Info("gateway session ended", "err", err)
	}
	go s.end()
	for _, c := range cut {
		b.cut(c)
	}
}

// end closes s: its stream, and the session at the gateway (DELETE, which
// the SDK skips for a session already gone).
func (s *session) end() {
	s.endOnce.Do(func() {
		s.stop()
		s.conn.Close()
	})
}

// gone reports an error that means the session no longer exists.
func gone(err error) bool { return errors.Is(err, sdk.ErrSessionMissing) }

// listen opens the standalone event stream of s, once, and keeps it open
// while s lives: the gateway's notifications come on it.
func (s *session) listen(b *bridge) {
	b.mu.Lock()
	if s.listening || s.dead || s.conn.SessionID() == "" {
		b.mu.Unlock()
		return // a sessionless gateway has no stream to offer
	}
	s.listening = true
	b.mu.Unlock()
	go b.stream(s.ctx, s)
}

// stream holds the GET stream of s open, reopening it with backoff, until
// the gateway says the session is gone (then it reconnects at once, so
// that notifications flow again before the agent's next call) or refuses
// the stream.
func (b *bridge) stream(ctx context.Context, s *session) {
	delay := 50 * time.Millisecond
	for ctx.Err() == nil {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", s.conn.SessionID())
		resp, err := s.client.Do(req)
		switch {
		case err != nil && ctx.Err() != nil:
			return
		case errors.Is(err, ErrTokenRefused):
			return // the next call says so
		case err != nil:
			// down or restarting: keep trying, the session may live on
		case resp.StatusCode == http.StatusNotFound:
			resp.Body.Close()
			b.kill(s, fmt.Errorf("standalone stream: %w", sdk.ErrSessionMissing))
			go b.revive()
			return
		case resp.StatusCode != http.StatusOK:
			resp.Body.Close()
			b.log.Info("the gateway offers no event stream", "status", resp.StatusCode)
			return
		default:
			delay = 50 * time.Millisecond
			err = readEvents(resp.Body, b.max, func(data []byte) {
				msg, err := jsonrpc.DecodeMessage(data)
				if err != nil {
					b.log.Warn("dropped an event from the gateway that is not JSON-RPC", "err", err)
					return
				}
				b.fromGateway(s, msg)
			})
			resp.Body.Close()
			if ctx.Err() != nil {
				return
			}
			b.log.Debug("the gateway's event stream ended", "err", err)
		}
		// The stream broke: the gateway is likely stopping, and the kept-alive
		// connections to it are dead; the next request dials afresh instead of
		// finding out on a request that may then have arrived.
		if c, ok := b.base.(interface{ CloseIdleConnections() }); ok {
			c.CloseIdleConnections()
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		delay = min(2*delay, 2*time.Second)
	}
}

// revive dials a new session after the gateway dropped the old one
// (restarted), within one retry budget.
func (b *bridge) revive() {
	deadline := time.Now().Add(b.budget)
	delay := time.Duration(0)
	for time.Now().Add(delay).Before(deadline) {
		select {
		case <-b.ctx.Done():
			return
		case <-time.After(delay):
		}
		_, err := b.session(deadline)
		if err == nil || !retryable(err, true) {
			return
		}
		delay = min(max(2*delay, 50*time.Millisecond), time.Second)
	}
}

// readEvents calls f with the data of every message event on r (the
// server-sent events format); an event over max bytes ends the stream.
func readEvents(r io.Reader, max int, f func([]byte)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var data []byte
	var event string
	for {
		line, tooLong, err := lines.Read(br, max)
		if tooLong || len(data)+len(line) > max {
			return errEventTooLarge
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0 && err == nil:
			if len(data) > 0 && (event == "" || event == "message") {
				f(data)
			}
			data, event = nil, ""
		case bytes.HasPrefix(line, []byte("data:")):
			v := bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, v...)
		case bytes.HasPrefix(line, []byte("event:")):
			event = string(bytes.TrimSpace(bytes.TrimPrefix(line, []byte("event:"))))
		}
		if err != nil {
			return err
		}
	}
}

var errEventTooLarge = errors.New("an event from the gateway is larger than the line limit")

// auth adds the bearer token to every request to the gateway's origin, and
// the negotiated protocol version; it turns the gateway's refusals into
// errors the bridge can match: 401 (ErrTokenRefused), 404 outside a
// session (ErrNoEndpoint), and a proxy's 502–504 (ErrUnavailable).
type auth struct {
	base    http.RoundTripper
	token   string
	origin  string
	version *atomic.Pointer[string]
}

func (a *auth) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if r.URL.Scheme+"://"+r.URL.Host == a.origin {
		r.Header.Set("Authorization", "Bearer "+a.token)
	}
	if v := a.version.Load(); v != nil && r.Header.Get("Mcp-Protocol-Version") == "" {
		r.Header.Set("Mcp-Protocol-Version", *v)
	}
	resp, err := a.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	var refusal error
	switch code := resp.StatusCode; {
	case code == http.StatusUnauthorized:
		refusal = ErrTokenRefused
	case code == http.StatusNotFound && r.Header.Get("Mcp-Session-Id") == "":
		refusal = ErrNoEndpoint
	case code == http.StatusBadGateway || code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout:
		refusal = fmt.Errorf("%w (HTTP %d)", ErrUnavailable, code)
	}
	if refusal != nil {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		return nil, refusal
	}
	return resp, nil
}

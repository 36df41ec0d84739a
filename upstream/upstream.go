package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/mcp"
	"github.com/bridle-dev/bridle/redact"
)

// State is where an upstream stands.
type State string

// The states.
const (
	// StateStarting: an attempt to connect is under way, or due after the
	// upstream stopped; calls wait for it.
	StateStarting State = "starting"
	StateUp       State = "up"
	// StateDown: the last attempt failed; the next is due after a backoff.
	// Calls fail at once with the reason.
	StateDown   State = "down"
	StateClosed State = "closed"
)

// Status is an upstream's health, for /readyz and the admin API. LastError
// is masked: it never holds a secret value.
type Status struct {
	Name      string    `json:"name"`
	State     State     `json:"state"`
	Since     time.Time `json:"since"`
	Tools     int       `json:"tools"`    // registered on the server now
	Restarts  int       `json:"restarts"` // connections made after the first
	LastError string    `json:"last_error,omitempty"`
}

// Upstream is a running upstream MCP server.
type Upstream struct {
	cfg  Config
	opts Options
	srv  *mcp.Server
	red  *redact.Redactor
	log  *slog.Logger

	restart chan struct{}
	relist  chan struct{}
	cancel  context.CancelFunc
	stopped chan struct{}
	secrets *secretDir // nil until a *_FILE secret is written

	mu          sync.Mutex
	status      Status
	conn        *conn         // nil unless up
	changed     chan struct{} // closed, and replaced, at every change of status
	want, done  int           // restarts asked for; the last attempt's number
	attemptErr  error         // the last attempt's outcome
	connections int           // connections made

	regMu      sync.Mutex // serialises register
	served     []string   // the names registered on srv
	servedKeys []string

	accessMu sync.Mutex
	access   map[string]Access // each tool's access when first served: a re-list never lowers it
}

// conn is one connection: a session, and for a command its child.
type conn struct {
	session  *sdk.ClientSession
	child    *child
	lostOnce sync.Once
	lostCh   chan struct{}
	lostErr  error
}

func (c *conn) lost(err error) {
	c.lostOnce.Do(func() { c.lostErr = err; close(c.lostCh) })
}

func (c *conn) gone() bool {
	select {
	case <-c.lostCh:
		return true
	default:
		return false
	}
}

func (c *conn) close() {
	c.lost(errors.New("closed"))
	_ = c.session.Close()
	if c.child != nil {
		c.child.stop()
	}
}

// Start checks cfg and starts the upstream in the background: it returns at
// once, and the upstream's tools are registered on srv as one toolset (id
// cfg.Name) once it is connected and has listed them. The upstream runs
// until Close, or until ctx is done.
func Start(ctx context.Context, cfg Config, srv *mcp.Server, opts Options) (*Upstream, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if srv == nil {
		return nil, fmt.Errorf("upstream %q: no server: %w", cfg.Name, ErrConfig)
	}
	if opts.Backoff <= 0 {
		opts.Backoff = 250 * time.Millisecond
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = 30 * time.Second
	}
	red := opts.Redactor
	if red == nil {
		red = redact.New()
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = slog.New(red.Handler(log.Handler())).With("upstream", cfg.Name)
	ctx, cancel := context.WithCancel(ctx)
	u := &Upstream{
		cfg: cfg, opts: opts, srv: srv, red: red, log: log,
		restart: make(chan struct{}, 1),
		relist:  make(chan struct{}, 1),
		cancel:  cancel,
		stopped: make(chan struct{}),
		changed: make(chan struct{}),
		status:  Status{Name: cfg.Name, State: StateStarting, Since: time.Now()},
	}
	go u.run(ctx)
	return u, nil
}

// Status reports where the upstream stands.
func (u *Upstream) Status() Status {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.status
}

// Restart stops the upstream's connection and makes a new one — for a
// command, a new child with its secrets read again (after a rotation, say)
// — and waits for that attempt: nil once it is up, else why it is not (the
// upstream keeps trying, with backoff).
func (u *Upstream) Restart(ctx context.Context) error {
	u.mu.Lock()
	u.want++
	want := u.want
	u.mu.Unlock()
	select {
	case u.restart <- struct{}{}:
	default:
	}
	for {
		u.mu.Lock()
		done, err, ch, st := u.done, u.attemptErr, u.changed, u.status.State
		u.mu.Unlock()
		switch {
		case st == StateClosed:
			return fmt.Errorf("restart upstream %s: %w: closed", u.cfg.Name, ErrUnavailable)
		case done >= want:
			return err
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Close stops the upstream (the child and every process of its group),
// removes its tools from the server and its secret files from disk. It is
// safe to call more than once.
func (u *Upstream) Close() error {
	u.cancel()
	<-u.stopped
	return nil
}

// setStatus changes the status under u.mu and wakes whoever waits on it.
func (u *Upstream) setStatus(f func(*Status)) {
	u.mu.Lock()
	defer u.mu.Unlock()
	prev := u.status.State
	f(&u.status)
	if u.status.State != prev {
		u.status.Since = time.Now()
	}
	close(u.changed)
	u.changed = make(chan struct{})
}

// connected returns the connection to call, waiting while the upstream is
// starting; ctx bounds the wait.
func (u *Upstream) connected(ctx context.Context) (*conn, error) {
	for {
		u.mu.Lock()
		c, st, ch := u.conn, u.status, u.changed
		u.mu.Unlock()
		if c != nil && !c.gone() {
			return c, nil
		}
		if st.State == StateDown || st.State == StateClosed {
			return nil, u.unavailable(st)
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, u.unavailable(st)
		}
	}
}

func (u *Upstream) unavailable(st Status) error {
	msg := string(st.State)
	if st.LastError != "" {
		msg += ": " + st.LastError
	}
	return fmt.Errorf("upstream %s: %w (%s)", u.cfg.Name, ErrUnavailable, msg)
}

// run is the supervisor: connect, serve until the connection is lost, a
// restart is asked for or ctx is done, and again, with backoff after a
// failure.
func (u *Upstream) run(ctx context.Context) {
	defer close(u.stopped)
	defer u.shutdown()
	delay := u.opts.Backoff
	for ctx.Err() == nil {
		u.mu.Lock()
		seq := u.want
		u.mu.Unlock()
		u.setStatus(func(s *Status) { s.State = StateStarting })
		c, defs, err := u.connect(ctx)
		if ctx.Err() != nil {
			if c != nil {
				c.close()
			}
			return
		}
		if err != nil {
			msg := u.red.Redact(err.Error())
			u.log.Warn("upstream not started", "err", msg, "retry_in", delay)
			u.setStatus(func(s *Status) {
				s.State, s.LastError = StateDown, msg
				u.done, u.attemptErr = seq, fmt.Errorf("upstream %s: %w: %s", u.cfg.Name, ErrUnavailable, msg)
			})
			if !u.sleep(ctx, delay) {
				delay = u.opts.Backoff
			} else {
				delay = min(2*delay, u.opts.MaxBackoff)
			}
			continue
		}
		u.mu.Lock()
		u.connections++
		restarts := u.connections - 1
		u.mu.Unlock()
		u.register(defs)
		up := time.Now()
		u.setStatus(func(s *Status) {
			s.State, s.Restarts = StateUp, restarts
			u.conn = c
			u.done, u.attemptErr = seq, nil
		})
		u.log.Info("upstream up", "tools", u.Status().Tools)
		why := u.serve(ctx, c)
		u.mu.Lock()
		u.conn = nil
		u.mu.Unlock()
		c.close()
		switch why {
		case ctx.Err():
			return
		case errRestart:
			delay = u.opts.Backoff
			continue
		}
		// The upstream went away by itself: restart it after a pause that
		// grows while it keeps failing soon after starting.
		if time.Since(up) > 10*time.Second {
			delay = u.opts.Backoff
		}
		msg := u.red.Redact(why.Error())
		u.log.Warn("upstream stopped; restarting", "err", msg, "in", delay)
		u.setStatus(func(s *Status) { s.State, s.LastError = StateStarting, msg })
		if u.sleep(ctx, delay) {
			delay = min(2*delay, u.opts.MaxBackoff)
		} else {
			delay = u.opts.Backoff
		}
	}
}

var errRestart = errors.New("restart asked for")

// sleep waits d; false when cut short by a restart (or ctx).
func (u *Upstream) sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-u.restart:
		return false
	case <-ctx.Done():
		return false
	}
}

// serve waits on a connection, re-listing the tools whenever the upstream
// says they changed, and returns why it ended.
func (u *Upstream) serve(ctx context.Context, c *conn) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-u.restart:
			return errRestart
		case <-c.lostCh:
			err := c.lostErr
			if c.child != nil {
				// The end of its output comes first; how the child
				// exited says more.
				select {
				case <-c.child.exited:
					err = c.child.exitErr
				case <-time.After(time.Second):
				}
			}
			return fmt.Errorf("upstream %s stopped: %w", u.cfg.Name, err)
		case <-u.relist:
			lctx, cancel := context.WithTimeout(ctx, u.cfg.CallTimeout)
			defs, err := u.list(lctx, c.session)
			cancel()
			if err != nil {
				u.log.Warn("upstream tools not listed again", "err", err)
				continue
			}
			u.register(defs)
		}
	}
}

// connect makes one connection and lists the tools.
func (u *Upstream) connect(ctx context.Context) (*conn, []def, error) {
	ctx, cancel := context.WithTimeout(ctx, max(30*time.Second, u.cfg.CallTimeout))
	defer cancel()
	c := &conn{lostCh: make(chan struct{})}
	var transport sdk.Transport
	if u.cfg.URL != "" {
		limit := 8 * int64(u.cfg.MaxResult) // a whole answer (a tool list, a result) is refused past it while it is read
		transport = &sdk.StreamableClientTransport{Endpoint: u.cfg.URL, MaxRetries: 1, MaxEventSize: int(limit),
			HTTPClient: &http.Client{Transport: &headers{base: http.DefaultTransport, headers: u.cfg.Headers, plain: u.cfg.PlainHeaders, red: u.red, maxBody: limit}}}
	} else {
		ch, err := u.startChild()
		if err != nil {
			return nil, nil, err
		}
		c.child = ch
		go func() {
			<-ch.exited
			c.lost(ch.exitErr)
		}()
		transport = ch.transport(u.cfg.MaxResult, func(line string) {
			u.log.Warn("upstream wrote a line that is not JSON-RPC on stdout; skipped", "line", line)
		})
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "bridle", Title: "Bridle"}, &sdk.ClientOptions{
		Logger: u.log,
		// No roots, sampling or elicitation: an upstream cannot ask the
		// agent, or Bridle, anything.
		Capabilities: &sdk.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			select {
			case u.relist <- struct{}{}:
			default:
			}
		},
	})
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		if c.child != nil {
			c.child.stop()
		}
		return nil, nil, fmt.Errorf("connect: %w", err)
	}
	c.session = cs
	go func() {
		err := cs.Wait()
		if err == nil {
			err = sdk.ErrConnectionClosed
		}
		c.lost(err)
	}()
	defs, err := u.list(ctx, cs)
	if err != nil {
		c.close()
		return nil, nil, err
	}
	return c, defs, nil
}

// list lists the upstream's tools (every page, up to a limit).
func (u *Upstream) list(ctx context.Context, cs *sdk.ClientSession) ([]def, error) {
	var listed []*sdk.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("list tools: %w", err)
		}
		listed = append(listed, t)
		if len(listed) > maxTools {
			break
		}
	}
	return u.defs(listed), nil
}

// shutdown ends the upstream for good: its tools leave the server, its
// secret files the disk.
func (u *Upstream) shutdown() {
	u.regMu.Lock()
	u.srv.RemoveTools(u.served...)
	u.served, u.servedKeys = nil, nil
	u.regMu.Unlock()
	if u.secrets != nil {
		u.secrets.remove()
	}
	u.setStatus(func(s *Status) { s.State, s.Tools = StateClosed, 0; u.conn = nil })
}

// headers sets the configured headers on every request, each read anew.
type headers struct {
	base    http.RoundTripper
	headers map[string]func() (string, error) // secret: every value is masked everywhere
	plain   map[string]string
	red     *redact.Redactor
	maxBody int64
}

func (h *headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.plain {
		r.Header.Set(k, v)
	}
	for k, f := range h.headers {
		v, err := f()
		if err != nil {
			return nil, fmt.Errorf("header %s: %w", k, err)
		}
		h.red.Add(v)
		// The value without its scheme (Bearer, token) is the secret.
		if _, cred, ok := cutScheme(v); ok {
			h.red.Add(cred)
		}
		r.Header.Set(k, v)
	}
	resp, err := h.base.RoundTrip(r)
	if err == nil && h.maxBody > 0 {
		resp.Body = &limitedBody{ReadCloser: resp.Body, left: h.maxBody}
	}
	return resp, err
}

// cutScheme splits "Bearer abc" into its scheme and credential.
func cutScheme(v string) (scheme, cred string, ok bool) {
	for i := 0; i < len(v); i++ {
		if v[i] == ' ' {
			return v[:i], v[i+1:], i+1 < len(v)
		}
	}
	return "", "", false
}

// limitedBody fails a body read past its limit, so that an upstream's
// answer is never read whole into memory before its size is checked.
type limitedBody struct {
	io.ReadCloser
	left int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("the upstream's answer is larger than the limit: %w", ErrTooLarge)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

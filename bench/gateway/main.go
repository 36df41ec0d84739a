// Command gateway measures a running bridle serve against issue 10's
// targets, as agents over MCP's streamable HTTP see it:
//
//   - throughput and latency: -sessions concurrent sessions calling get_rules
//     in a loop for -duration, beside the floor measured in the same run: a
//     bare go-sdk streamable-HTTP server (this program, re-run with -bare, as
//     a process of its own) whose one tool get_rules returns the same text,
//     and each server's CPU time per call;
//   - memory: the gateway's VmRSS with those sessions open, and per idle
//     session after -idle more are opened (initialize + tools/list, then
//     idle), the smallest of a few samples after a settle;
//   - a new session (initialize + tools/list), -new times in a row;
//   - a rules change: with the sessions polling get_rules every -poll, the
//     command after -- (e.g. bridle approve N --self) commits a change whose
//     text contains -marker; how long until every session's get_rules shows
//     it, and the calls' p99 meanwhile.
//
// bench/gateway.sh starts the gateway and runs it, as in
//
//	gateway -url http://127.0.0.1:7777/p/demo/mcp -tokens tokens.txt -pid 1234 \
//	    -marker 'bench change 42' -- bridle approve 1 --rules RULES --self
//
// It prints one table with each target and whether it is met; it exits 1
// when it cannot measure, never because a target is missed.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

type options struct {
	url, tokens, marker, source string
	pid                         int
	sessions, idle, newSessions int
	duration, settle, poll      time.Duration
	change                      []string
}

func main() {
	var o options
	bare := flag.String("bare", "", "serve a bare go-sdk server whose get_rules returns this `file`'s text (prints its URL, stops at stdin's end)")
	flag.StringVar(&o.url, "url", "", "the gateway's MCP endpoint, URL/p/PROJECT/mcp")
	flag.StringVar(&o.tokens, "tokens", "", "a `file` of agent tokens, one a line; sessions take them in turn")
	flag.IntVar(&o.pid, "pid", 0, "the gateway's process id, for its VmRSS")
	flag.StringVar(&o.marker, "marker", "", "text the rules show once the change command has run")
	flag.StringVar(&o.source, "source", "a local git repository", "where the gateway's rules come from, for the output")
	flag.IntVar(&o.sessions, "sessions", 64, "concurrent sessions")
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "how long each server is called in a loop")
	flag.IntVar(&o.idle, "idle", 500, "extra idle sessions opened for the per-session memory")
	flag.DurationVar(&o.settle, "settle", 2*time.Second, "wait this long before sampling RSS")
	flag.IntVar(&o.newSessions, "new", 200, "new sessions timed one after another")
	flag.DurationVar(&o.poll, "poll", 100*time.Millisecond, "during the rules change, each session calls get_rules this often")
	flag.Parse()
	if *bare != "" {
		must(serveBare(*bare))
		return
	}
	o.change = flag.Args()
	if o.url == "" || o.tokens == "" || o.pid == 0 || o.marker == "" || len(o.change) == 0 {
		fmt.Fprintln(os.Stderr, "usage: gateway -url URL -tokens FILE -pid PID -marker TEXT [flags] -- change command…")
		os.Exit(2)
	}
	must(run(o))
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/gateway:", err)
		os.Exit(1)
	}
}

// row is one line of the table: a figure and, when it has one, its target.
type row struct {
	what, value, target string
	ok                  *bool
}

func check(ok bool) *bool { return &ok }

func run(o options) error {
	tokens, err := readTokens(o.tokens)
	if err != nil {
		return err
	}
	gw := &target{name: "gateway", url: o.url, tokens: tokens, http: newHTTP(), pid: o.pid}
	ctx := context.Background()

	// The floor serves exactly what the gateway serves.
	first, err := gw.connect(ctx, 0)
	if err != nil {
		return err
	}
	text, err := getRules(ctx, first)
	first.Close()
	if err != nil {
		return err
	}
	bareURL, barePID, stop, err := startBare(text)
	if err != nil {
		return err
	}
	defer stop()
	bare := &target{name: "bare go-sdk", url: bareURL, tokens: tokens, http: newHTTP(), pid: barePID}

	var rows []row
	add := func(r ...row) { rows = append(rows, r...) }
	progress("get_rules text: %d bytes; %d sessions, %s per server", len(text), o.sessions, o.duration)

	// Both servers' sessions are open at once and called in turns (bare,
	// gateway, gateway, bare), each turn half the duration, so that a load
	// on the machine that comes and goes hits both alike.
	bareSessions, err := bare.open(ctx, o.sessions)
	if err != nil {
		return err
	}
	sessions, err := gw.open(ctx, o.sessions)
	if err != nil {
		closeAll(bareSessions)
		return err
	}
	defer closeAll(sessions)
	warm := min(time.Second, o.duration/10)
	progress("warming up both for %s, then calling get_rules: bare, gateway, gateway, bare", warm)
	hammer(ctx, bareSessions, warm)
	hammer(ctx, sessions, warm)
	var floor, got load
	for _, turn := range []*load{&floor, &got, &got, &floor} {
		ss, t := sessions, gw
		if turn == &floor {
			ss, t = bareSessions, bare
		}
		cpu0, err := cpuTime(t.pid)
		if err != nil {
			return err
		}
		l := hammer(ctx, ss, o.duration/2)
		if l.cpu, err = cpuTime(t.pid); err != nil {
			return err
		}
		l.cpu -= cpu0
		turn.add(l)
	}
	closeAll(bareSessions)
	stop()
	if floor.errs+got.errs > 0 {
		return fmt.Errorf("get_rules failed: %d times on the bare server, %d on the gateway (first: %v)", floor.errs, got.errs, errors.Join(floor.first, got.first))
	}
	ratio := got.rate() / floor.rate()
	add(row{what: "bare go-sdk: get_rules calls/s", value: fmt.Sprintf("%.0f", floor.rate())},
		row{what: "bare go-sdk: get_rules p50 / p99", value: fmt.Sprintf("%s / %s", msf(pct(floor.lat, 50)), msf(pct(floor.lat, 99)))},
		row{what: "bare go-sdk: server CPU per call", value: msf(floor.cpuPerCall())},
		row{what: "gateway: get_rules calls/s", value: fmt.Sprintf("%.0f", got.rate())},
		row{what: "gateway / bare throughput", value: fmt.Sprintf("%.0f%%", 100*ratio), target: ">= 70%", ok: check(ratio >= 0.70)},
		row{what: "gateway: server CPU per call (bare / gateway)", value: fmt.Sprintf("%s (%.0f%%)", msf(got.cpuPerCall()), 100*float64(floor.cpuPerCall())/float64(got.cpuPerCall()))},
		row{what: "gateway: get_rules p50", value: msf(pct(got.lat, 50))},
		row{what: "gateway: get_rules p99", value: msf(pct(got.lat, 99)), target: "<= 20 ms", ok: check(pct(got.lat, 99) <= 20*time.Millisecond)})

	progress("memory: %d sessions open, then %d more idle", o.sessions, o.idle)
	base, err := settledRSS(o.pid, o.settle)
	if err != nil {
		return err
	}
	idle, err := gw.open(ctx, o.idle)
	if err != nil {
		return err
	}
	after, err := settledRSS(o.pid, o.settle)
	closeAll(idle)
	if err != nil {
		return err
	}
	perIdle := float64(after-base) / float64(o.idle)
	add(row{what: fmt.Sprintf("gateway RSS, %d sessions open", o.sessions), value: fmt.Sprintf("%.1f MiB", float64(base)/(1<<20)), target: "<= 150 MiB", ok: check(base <= 150<<20)},
		row{what: fmt.Sprintf("gateway RSS, with %d more idle sessions", o.idle), value: fmt.Sprintf("%.1f MiB", float64(after)/(1<<20))},
		row{what: "RSS per idle session", value: fmt.Sprintf("%.1f KiB", perIdle/1024), target: "<= 100 KiB", ok: check(perIdle <= 100*1024)})

	progress("new sessions: %d in a row", o.newSessions)
	starts, err := gw.newSessions(ctx, o.newSessions)
	if err != nil {
		return err
	}
	add(row{what: "new session (initialize + tools/list) p50", value: msf(pct(starts, 50)), target: "<= 5 ms", ok: check(pct(starts, 50) <= 5*time.Millisecond)},
		row{what: "new session p99", value: msf(pct(starts, 99))})

	progress("rules change: %s (source: %s)", strings.Join(o.change, " "), o.source)
	ch, err := rulesChange(ctx, sessions, o)
	if err != nil {
		return err
	}
	add(row{what: "rules change: the change command took", value: msf(ch.command)},
		row{what: "rules change: all sessions show it, from its start", value: msf(ch.fromStart) + " (" + msf(ch.fromEnd) + " after it returned)", target: "<= 3 s", ok: check(ch.fromStart <= 3*time.Second)},
		row{what: "rules change: get_rules p99 before / during", value: fmt.Sprintf("%s / %s (%d calls during)", msf(pct(ch.before, 99)), msf(pct(ch.during, 99)), len(ch.during)), target: "<= 20 ms", ok: check(pct(ch.during, 99) <= 20*time.Millisecond)})

	fmt.Printf("\nbridle serve (rules source: %s; Gitea is the production source), %d sessions, %s per server\n\n", o.source, o.sessions, o.duration)
	fmt.Printf("%-50s %-46s %-11s %s\n", "measure", "value", "target", "")
	for _, r := range rows {
		verdict := ""
		if r.ok != nil {
			verdict = map[bool]string{true: "pass", false: "MISS"}[*r.ok]
		}
		fmt.Printf("%-50s %-46s %-11s %s\n", r.what, r.value, r.target, verdict)
	}
	return nil
}

// target is an MCP server the sessions connect to.
type target struct {
	name, url string
	pid       int // its process, for its CPU time
	tokens    []string
	http      *http.Transport
}

// newHTTP is a transport that keeps a connection per concurrent session
// (the default keeps two, and the rest would reconnect on every call).
func newHTTP() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns, t.MaxIdleConnsPerHost = 0, 4096
	return t
}

// bearer adds an agent's token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// connect opens session i (initialize and tools/list), as the i-th token's
// agent.
func (t *target) connect(ctx context.Context, i int) (*sdk.ClientSession, error) {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	// No client timeout: it would cut the session's standalone event
	// stream (a GET that lasts as long as the session); calls time out by
	// their context instead.
	hc := &http.Client{Transport: bearer{token: t.tokens[i%len(t.tokens)], next: t.http}}
	c := sdk.NewClient(&sdk.Implementation{Name: "bench-gateway", Version: "1"}, nil)
	cs, err := c.Connect(cctx, &sdk.StreamableClientTransport{Endpoint: t.url, HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", t.name, err)
	}
	if _, err := cs.ListTools(cctx, nil); err != nil {
		cs.Close()
		return nil, fmt.Errorf("tools/list on %s: %w", t.name, err)
	}
	return cs, nil
}

// open opens n sessions, a few at a time.
func (t *target) open(ctx context.Context, n int) ([]*sdk.ClientSession, error) {
	out := make([]*sdk.ClientSession, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range n {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i], errs[i] = t.connect(ctx, i)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		closeAll(out)
		return nil, err
	}
	return out, nil
}

func closeAll(ss []*sdk.ClientSession) {
	for _, s := range ss {
		if s != nil {
			s.Close()
		}
	}
}

// newSessions times n new sessions, one after another; each is closed
// (untimed) before the next.
func (t *target) newSessions(ctx context.Context, n int) ([]time.Duration, error) {
	var out []time.Duration
	for i := range n {
		start := time.Now()
		cs, err := t.connect(ctx, i)
		if err != nil {
			return nil, err
		}
		out = append(out, time.Since(start))
		cs.Close()
	}
	return out, nil
}

func getRules(ctx context.Context, cs *sdk.ClientSession) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_rules"})
	if err != nil {
		return "", fmt.Errorf("get_rules: %w", err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.IsError {
		return "", fmt.Errorf("get_rules answered an error: %.200s", b.String())
	}
	return b.String(), nil
}

// load is what a loop of calls measured.
type load struct {
	lat          []time.Duration
	elapsed, cpu time.Duration // cpu: the server process's, user and system
	errs         int
	first        error
}

func (l load) rate() float64 { return float64(len(l.lat)) / l.elapsed.Seconds() }

func (l load) cpuPerCall() time.Duration { return l.cpu / time.Duration(max(1, len(l.lat))) }

func (l *load) add(m load) {
	l.lat = append(l.lat, m.lat...)
	l.elapsed += m.elapsed
	l.cpu += m.cpu
	l.errs += m.errs
	if l.first == nil {
		l.first = m.first
	}
}

// hammer has every session call get_rules back to back for d.
func hammer(ctx context.Context, ss []*sdk.ClientSession, d time.Duration) load {
	var mu sync.Mutex
	var l load
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for _, cs := range ss {
		wg.Go(func() {
			var lat []time.Duration
			for time.Now().Before(deadline) {
				t0 := time.Now()
				_, err := getRules(ctx, cs)
				if err != nil {
					mu.Lock()
					l.errs++
					if l.first == nil {
						l.first = err
					}
					mu.Unlock()
					continue
				}
				lat = append(lat, time.Since(t0))
			}
			mu.Lock()
			l.lat = append(l.lat, lat...)
			mu.Unlock()
		})
	}
	wg.Wait()
	l.elapsed = time.Since(start)
	return l
}

// change is what the rules change measured.
type change struct {
	command, fromStart, fromEnd time.Duration
	before, during              []time.Duration
}

// rulesChange polls get_rules on every session, runs the change command
// and waits until every session has seen the marker. The commit lands
// while the command runs: fromStart (the target's figure) is an upper
// bound of the propagation, fromEnd a lower one.
func rulesChange(ctx context.Context, ss []*sdk.ClientSession, o options) (change, error) {
	type call struct {
		at   time.Time
		lat  time.Duration
		seen bool
	}
	calls := make([][]call, len(ss))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errc := make(chan error, len(ss))
	for i, cs := range ss {
		wg.Go(func() {
			tick := time.NewTicker(o.poll)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				t0 := time.Now()
				text, err := getRules(ctx, cs)
				if err != nil {
					if ctx.Err() == nil {
						errc <- err
					}
					return
				}
				seen := strings.Contains(text, o.marker)
				calls[i] = append(calls[i], call{at: t0, lat: time.Since(t0), seen: seen})
				if seen {
					return // this session has it; the others still poll
				}
			}
		})
	}
	time.Sleep(time.Second) // a baseline of calls before the change
	start := time.Now()
	cmd := exec.Command(o.change[0], o.change[1:]...)
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	if err := cmd.Run(); err != nil {
		cancel()
		return change{}, fmt.Errorf("the change command %q: %w", strings.Join(o.change, " "), err)
	}
	end := time.Now()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case err := <-errc:
		return change{}, err
	case <-time.After(30 * time.Second):
		cancel()
		<-done
		return change{}, fmt.Errorf("after 30 s not every session shows %q", o.marker)
	}
	select {
	case err := <-errc:
		return change{}, err
	default:
	}
	var c change
	var last time.Time
	for _, cs := range calls {
		for _, k := range cs {
			if k.at.Before(start) {
				c.before = append(c.before, k.lat)
			} else {
				c.during = append(c.during, k.lat)
			}
		}
		if seen := cs[len(cs)-1]; seen.at.Add(seen.lat).After(last) {
			last = seen.at.Add(seen.lat)
		}
	}
	c.command, c.fromStart, c.fromEnd = end.Sub(start), last.Sub(start), last.Sub(end)
	return c, nil
}

// rss is pid's VmRSS in bytes.
func rss(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("rss: %w", err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("rss: %q: %w", line, err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("rss: no VmRSS in /proc/%d/status", pid)
}

// cpuTime is the CPU time pid has used, user and system: on a machine
// shared with other work a fairer comparison than calls/s.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("cpu time: %w", err)
	}
	// The fields after the command's name, which is in parentheses: state
	// is the first, utime and stime the 12th and 13th.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:])) // -1 + 1: no name, no fields
	if len(f) < 13 {
		return 0, fmt.Errorf("cpu time: /proc/%d/stat: unexpected %.100q", pid, b)
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("cpu time: /proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / 100, nil // USER_HZ is 100 on Linux
}

// settledRSS waits d, then takes the smallest of five samples 200 ms apart
// (the remote process is not asked to collect garbage).
func settledRSS(pid int, d time.Duration) (int64, error) {
	time.Sleep(d)
	low := int64(-1)
	for range 5 {
		v, err := rss(pid)
		if err != nil {
			return 0, err
		}
		if low < 0 || v < low {
			low = v
		}
		time.Sleep(200 * time.Millisecond)
	}
	return low, nil
}

func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func msf(d time.Duration) string {
	if d >= time.Second {
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
}

func progress(format string, args ...any) { fmt.Fprintf(os.Stderr, "== "+format+"\n", args...) }

func readTokens(file string) ([]string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("tokens: %w", err)
	}
	tokens := strings.Fields(string(b))
	if len(tokens) == 0 {
		return nil, fmt.Errorf("tokens: %s holds none", file)
	}
	return tokens, nil
}

// startBare runs this program with -bare as the floor's server, a process
// of its own as the gateway is; stop ends it.
func startBare(text string) (url string, pid int, stop func(), err error) {
	f, err := os.CreateTemp("", "bench-gateway-rules-*.md")
	if err != nil {
		return "", 0, nil, err
	}
	defer os.Remove(f.Name()) // read once, at the server's start
	if _, err := f.WriteString(text); err != nil {
		return "", 0, nil, errors.Join(err, f.Close())
	}
	if err := f.Close(); err != nil {
		return "", 0, nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return "", 0, nil, err
	}
	cmd := exec.Command(self, "-bare", f.Name())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", 0, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", 0, nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", 0, nil, fmt.Errorf("bare server: %w", err)
	}
	var once sync.Once
	stop = func() { once.Do(func() { stdin.Close(); cmd.Wait() }) }
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		stop()
		return "", 0, nil, fmt.Errorf("bare server: no URL: %w", err)
	}
	return strings.TrimSpace(line), cmd.Process.Pid, stop, nil
}

// serveBare is the floor: a go-sdk streamable-HTTP server with one tool,
// get_rules, answering file's text. It prints its URL and serves until
// stdin ends (its parent closed it, or died).
func serveBare(file string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	text := string(b)
	s := sdk.NewServer(&sdk.Implementation{Name: "bare", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "get_rules", Description: "the rules"},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, nil, nil
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s },
		&sdk.StreamableHTTPOptions{Logger: slog.New(slog.DiscardHandler), SessionTimeout: 2 * time.Hour})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	go func() { io.Copy(io.Discard, os.Stdin); os.Exit(0) }()
	return http.Serve(ln, h)
}

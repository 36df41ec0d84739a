package gateway

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestReviewProbeStatuses(t *testing.T) {
	reviewExploit(t)
	g := start(t, map[string]string{"alpha": newRules(t, "alpha")}, func(c *Config, _ *Options) { c.MaxBodyBytes = 64 << 10 }, unlimited)
	tok := g.mint(t, "alpha", "claude")
	id := rawSession(t, g, "alpha", tok, "claude-code")
	s := map[string]string{"Mcp-Session-Id": id}
	big := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_rules","arguments":{"x":"` + strings.Repeat("a", 100<<10) + `"}}}`
	c, b := post(t, g.url+"/p/alpha/mcp", tok, big, s)
	t.Logf("oversized on session: %d %.200q", c, b)
	c, b = post(t, g.url+"/p/alpha/mcp", tok, `{"jsonrpc":`, s)
	t.Logf("malformed on session: %d %.200q", c, b)
	c, b = post(t, g.url+"/p/alpha/mcp", tok, `[]`, s)
	t.Logf("empty batch on session: %d %.200q", c, b)
	c, b = post(t, g.url+"/p/alpha/mcp", tok, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, map[string]string{"Mcp-Session-Id": "nope"})
	t.Logf("unknown session: %d %.200q", c, b)
	c, b = post(t, g.url+"/p/alpha/mcp", tok, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, map[string]string{"Mcp-Protocol-Version": "1999-01-01"})
	t.Logf("bad protocol version: %d %.200q", c, b)
	c, b = get(t, g.url+"/p/alpha/mcp", map[string]string{"Authorization": "Bearer " + tok})
	t.Logf("GET no session: %d %.200q", c, b)
	c, b = post(t, g.url+"/p/alpha/mcp", tok, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, map[string]string{"Mcp-Session-Id": id, "Content-Type": "text/plain"})
	t.Logf("text/plain: %d %.200q", c, b)
	req, _ := http.NewRequest("OPTIONS", g.url+"/api/v1/projects", nil)
	req.Header.Set("Origin", "https://panel.example")
	req.Header.Set("Access-Control-Request-Method", "GET")
	resp, _ := http.DefaultClient.Do(req)
	t.Logf("preflight admin: %d %v", resp.StatusCode, resp.Header)
	resp.Body.Close()

	// slow body with a valid token: headers fast, body never completes.
	conn, err := net.Dial("tcp", strings.TrimPrefix(g.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /p/alpha/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: %s\r\nContent-Length: 1000\r\n\r\n{", tok, id)
	time.Sleep(2 * time.Second)
	conn.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	_, err = conn.Read(make([]byte, 10))
	t.Logf("slow body after 2s: read err %v (timeout means the server still waits)", err)
	_ = io.EOF
}

// The failure table is not bounded: prune only drops entries older than the
// window, so distinct fresh addresses (an IPv6 /64) grow it past
// maxAddresses, and every insert past it scans the whole table under the lock.
func TestReviewLimiterTableIsUnbounded(t *testing.T) {
	reviewExploit(t)
	now := time.Unix(1e9, 0)
	l := newLimiter(func() time.Time { return now }, MaxFailures)
	for i := range maxAddresses {
		l.fail(fmt.Sprintf("2001:db8::%x", i))
	}
	start := time.Now()
	const extra = 200
	for i := range extra {
		l.fail(fmt.Sprintf("2001:db8:1::%x", i))
	}
	t.Logf("%d addresses tracked (max %d); %v per insert past the limit, under the lock every request takes", len(l.ips), maxAddresses, time.Since(start)/extra)
	if len(l.ips) > maxAddresses {
		t.Errorf("the failure table holds %d addresses, over maxAddresses %d", len(l.ips), maxAddresses)
	}
}

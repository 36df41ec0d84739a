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

// Bad requests on a session each get a clear status, and a body that never
// arrives is cut after BodyTimeout.
func TestHostileRequestsOnASession(t *testing.T) {
	g := start(t, map[string]string{"alpha": newRules(t, "alpha")}, func(c *Config, o *Options) {
		c.MaxBodyBytes = 64 << 10
		o.BodyTimeout = 500 * time.Millisecond
	}, unlimited)
	tok := g.mint(t, "alpha", "claude")
	id := rawSession(t, g, "alpha", tok, "claude-code")
	s := map[string]string{"Mcp-Session-Id": id}
	big := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_rules","arguments":{"x":"` + strings.Repeat("a", 100<<10) + `"}}}`
	for _, tc := range []struct {
		name    string
		body    string
		headers map[string]string
		want    int
	}{
		{"oversized", big, s, http.StatusRequestEntityTooLarge},
		{"malformed", `{"jsonrpc":`, s, http.StatusBadRequest},
		{"empty batch", `[]`, s, http.StatusBadRequest},
		{"unknown session", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, map[string]string{"Mcp-Session-Id": "nope"}, http.StatusNotFound},
		{"bad protocol version", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, map[string]string{"Mcp-Protocol-Version": "1999-01-01"}, http.StatusBadRequest},
		{"text/plain", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, map[string]string{"Mcp-Session-Id": id, "Content-Type": "text/plain"}, http.StatusUnsupportedMediaType},
	} {
		if code, body := post(t, g.url+"/p/alpha/mcp", tok, tc.body, tc.headers); code != tc.want {
			t.Errorf("%s: %d %.120q, want %d", tc.name, code, body, tc.want)
		}
	}
	req, _ := http.NewRequest("OPTIONS", g.url+"/api/v1/projects", nil)
	req.Header.Set("Origin", "https://panel.example")
	req.Header.Set("Access-Control-Request-Method", "GET")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a cross-origin preflight of the admin API: %d %v, want 401 and no CORS grant", resp.StatusCode, resp.Header)
	}

	// A slow body with a valid token: headers at once, the body never.
	conn, err := net.Dial("tcp", strings.TrimPrefix(g.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /p/alpha/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: %s\r\nContent-Length: 1000\r\n\r\n{", tok, id)
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadAll(conn); err != nil {
		t.Errorf("a body that never arrives still holds the connection after 5 s: %v", err)
	}
	// The session still serves.
	if code, _ := post(t, g.url+"/p/alpha/mcp", tok, `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`, map[string]string{"Mcp-Session-Id": id}); code != http.StatusOK {
		t.Errorf("the session after the hostile requests: %d", code)
	}
}

// The failure table is not bounded: prune only drops entries older than the
// window, so distinct fresh addresses (an IPv6 /64) grow it past
// maxAddresses, and every insert past it scans the whole table under the lock.
func TestLimiterTableIsBounded(t *testing.T) {
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

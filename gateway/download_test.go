package gateway

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestDownloadServesItsOwnBinary: the gateway serves the binary it runs as
// (here a stand-in) and its checksum in sha256sum's format, without a
// credential; another platform's gateway says what to do instead; one
// address is rate-limited.
func TestDownloadServesItsOwnBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "bridle")
	content := []byte("\x7fELF pretend bridle")
	os.WriteFile(bin, content, 0o755)
	if runtime.GOOS+"-"+runtime.GOARCH != DownloadPlatform {
		t.Skip("the gateway serves its binary on " + DownloadPlatform + " only")
	}
	g := start(t, map[string]string{"acme": newRules(t, "acme")}, func(_ *Config, o *Options) {
		o.Executable = func() (string, error) { return bin, nil }
	})
	get := func(method, path string) (int, string, http.Header) {
		req, _ := http.NewRequest(method, g.url+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	sum := sha256.Sum256(content)
	tests := []struct {
		method, path string
		code         int
		body         string
	}{
		{"GET", DownloadPath, 200, string(content)},
		{"GET", DownloadPath + ".sha256", 200, hex.EncodeToString(sum[:]) + "  bridle-linux-amd64\n"},
		{"HEAD", DownloadPath, 200, ""},
		{"GET", "/download/bridle-darwin-arm64", 404, "404 page not found\n"},
		{"POST", DownloadPath, 405, ""},
	}
	for _, tt := range tests {
		code, body, h := get(tt.method, tt.path)
		if code != tt.code || (tt.body != "" && body != tt.body) {
			t.Errorf("%s %s: %d %q, want %d %q", tt.method, tt.path, code, body, tt.code, tt.body)
		}
		if code == 200 && h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s %s: no nosniff", tt.method, tt.path)
		}
	}
	for range MaxDownloads {
		get("GET", DownloadPath+".sha256")
	}
	if code, body, h := get("GET", DownloadPath); code != http.StatusTooManyRequests || h.Get("Retry-After") == "" {
		t.Errorf("download %d from one address: %d %s", MaxDownloads+5, code, body)
	}

	// Another platform's gateway says what to do instead.
	d := newDownloads(g.srv.now, func() (string, error) { return bin, nil }, 0, 0)
	d.platform = "darwin-arm64"
	rec := httptest.NewRecorder()
	d.serve(false)(rec, httptest.NewRequest("GET", DownloadPath, nil))
	if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "runs on darwin-arm64") || !strings.Contains(rec.Body.String(), "BRIDLE_URL") {
		t.Errorf("another platform's gateway: %d %s", rec.Code, rec.Body)
	}
}

// dlServer serves d's download and checksum, the client's address taken
// from the X-Addr header (every test connection is the loopback's).
func dlServer(t *testing.T, d *downloads) *httptest.Server {
	d.platform = DownloadPlatform
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+DownloadPath, d.serve(false))
	mux.HandleFunc("GET "+DownloadPath+".sha256", d.serve(true))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.RemoteAddr = r.Header.Get("X-Addr")
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// bigBinary is a stand-in binary larger than the connection's buffers, so
// that a reader that does not keep up holds its download open.
func bigBinary(t *testing.T) (string, int) {
	bin := filepath.Join(t.TempDir(), "bridle")
	const size = 16 << 20
	if err := os.WriteFile(bin, make([]byte, size), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, size
}

// slowReader starts a download from addr on a raw connection with a small
// receive buffer, waits until the gateway has answered 200 (it holds a
// slot), then reads a little every few milliseconds — far below any rate
// the tests set — until the test ends.
func slowReader(t *testing.T, srv *httptest.Server, addr string) {
	t.Helper()
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.(*net.TCPConn).SetReadBuffer(8 << 10)
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: gateway\r\nX-Addr: %s\r\n\r\n", DownloadPath, addr)
	br := bufio.NewReaderSize(c, 512)
	status, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(status, "HTTP/1.1 200") {
		t.Fatalf("a download from %s: %q %v", addr, status, err)
	}
	go func() {
		buf := make([]byte, 512)
		for {
			if _, err := br.Read(buf); err != nil {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
}

// fetch GETs path from addr: the status, the body's length and the body
// when it is short.
func fetch(t *testing.T, srv *httptest.Server, path, addr string) (int, int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", srv.URL+path, nil)
	req.Header.Set("X-Addr", addr)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s from %s: %v", path, addr, err)
	}
	if len(b) > 200 {
		return resp.StatusCode, len(b), ""
	}
	return resp.StatusCode, len(b), string(b)
}

// TestDownloadLimitsEachAddress: one address holds at most
// MaxAddressDownloads downloads at once; while it does, its checksum and
// another address's download are served; its refusals do not count against
// its rate.
func TestDownloadLimitsEachAddress(t *testing.T) {
	bin, size := bigBinary(t)
	d := newDownloads(time.Now, func() (string, error) { return bin, nil }, 0, 0)
	srv := dlServer(t, d)
	const a, b = "192.0.2.1:1000", "192.0.2.2:1000"
	for range MaxAddressDownloads {
		slowReader(t, srv, a)
	}
	if code, _, body := fetch(t, srv, DownloadPath, a); code != http.StatusTooManyRequests || !strings.Contains(body, "from your address") {
		t.Errorf("download %d at once from one address: %d %q, want 429", MaxAddressDownloads+1, code, body)
	}
	if code, n, _ := fetch(t, srv, DownloadPath+".sha256", a); code != http.StatusOK || n != 64+2+len("bridle-linux-amd64\n") {
		t.Errorf("the checksum while the address's downloads are busy: %d, %d bytes", code, n)
	}
	if code, n, body := fetch(t, srv, DownloadPath, b); code != http.StatusOK || n != size {
		t.Errorf("another address's download: %d %q, %d bytes of %d", code, body, n, size)
	}
	for range MaxDownloads {
		fetch(t, srv, DownloadPath, a)
	}
	if wait := d.limit.blocked(ClientKey(&http.Request{RemoteAddr: a})); wait > 0 {
		t.Errorf("%d refusals for want of a slot count against the address's rate: blocked %s", MaxDownloads, wait)
	}
}

// TestDownloadCutsOffSlowReaders: readers far slower than DownloadRate,
// holding every slot, are cut off once DownloadGrace has passed and what
// the connection buffers is read (the kernel still sends that, but the
// slot is free); meanwhile the checksum is served, and then another
// address's download is.
func TestDownloadCutsOffSlowReaders(t *testing.T) {
	bin, size := bigBinary(t)
	d := newDownloads(time.Now, func() (string, error) { return bin, nil }, 4<<20, 100*time.Millisecond)
	srv := dlServer(t, d)
	for i := range MaxParallelDownloads {
		slowReader(t, srv, fmt.Sprintf("198.51.100.%d:1000", i/MaxAddressDownloads))
	}
	if code, _, body := fetch(t, srv, DownloadPath+".sha256", "203.0.113.1:1000"); code != http.StatusOK {
		t.Errorf("the checksum while every download slot is held: %d %q", code, body)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, n, body := fetch(t, srv, DownloadPath, "203.0.113.2:1000")
		if code == http.StatusOK && n == size {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("another address's download, 30 s after slow readers took every slot: %d %q", code, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestDownloadLeavesTheConnectionUsable: once a download is sent its write
// deadline is lifted, so the kept-alive connection serves the next request
// however long after.
func TestDownloadLeavesTheConnectionUsable(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "bridle")
	os.WriteFile(bin, make([]byte, 64<<10), 0o755)
	d := newDownloads(time.Now, func() (string, error) { return bin, nil }, 1<<30, time.Millisecond)
	srv := dlServer(t, d)
	var reused []bool
	for range 2 {
		req, _ := http.NewRequest("GET", srv.URL+DownloadPath, nil)
		req.Header.Set("X-Addr", "192.0.2.1:1000")
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
			GotConn: func(i httptrace.GotConnInfo) { reused = append(reused, i.Reused) }}))
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || n != 64<<10 {
			t.Fatalf("download after %v: %d, %d bytes, %v", reused, resp.StatusCode, n, err)
		}
		time.Sleep(50 * time.Millisecond) // past the download's deadline (1 ms and 64 KiB at 1 GiB/s)
	}
	if len(reused) != 2 || !reused[1] {
		t.Errorf("the second download's connection was reused: %v", reused)
	}
}

package feed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const guideMD = "# Guide\n\nIntro.\n\n## Rules\n\n- Never commit secrets.\n\n```\nnot this\n```\n"

// counter counts the requests a client sends and the body bytes it reads.
type counter struct {
	next      http.RoundTripper
	requests  atomic.Int64
	bodyBytes atomic.Int64
	mu        sync.Mutex
	hosts     []string
}

func (c *counter) RoundTrip(req *http.Request) (*http.Response, error) {
	c.requests.Add(1)
	c.mu.Lock()
	c.hosts = append(c.hosts, req.URL.Host)
	c.mu.Unlock()
	resp, err := c.next.RoundTrip(req)
	if err == nil {
		resp.Body = &countingBody{ReadCloser: resp.Body, n: &c.bodyBytes}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

func counted(c *http.Client) (*http.Client, *counter) {
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	cnt := &counter{next: next}
	return &http.Client{Transport: cnt}, cnt
}

// server serves the test pages over plain http on 127.0.0.1.
func server(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/guide.md", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		io.WriteString(w, guideMD)
	})
	mux.HandleFunc("/guide.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<html><body><nav>Always nav</nav><h1>Guide</h1><p>You must read this.</p><pre>no</pre></body></html>`)
	})
	mux.HandleFunc("/sniff", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		io.WriteString(w, "  <!DOCTYPE html><h2>Sniffed</h2>")
	})
	mux.HandleFunc("/image", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		io.WriteString(w, "\x89PNG")
	})
	var version atomic.Int64
	mux.HandleFunc("/changing", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "# Version %d\n", version.Add(1))
	})
	mux.HandleFunc("/etag", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		io.WriteString(w, guideMD)
	})
	const lastMod = "Wed, 01 Jul 2026 10:00:00 GMT"
	mux.HandleFunc("/lastmod", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Last-Modified", lastMod)
		if r.Header.Get("If-Modified-Since") == lastMod {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		io.WriteString(w, guideMD)
	})
	redirect := func(from, to string) {
		mux.HandleFunc(from, func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, to, http.StatusFound) })
	}
	redirect("/r1", "/r2")
	redirect("/r2", "/guide.md")
	redirect("/loop1", "/loop2")
	redirect("/loop2", "/loop1")
	redirect("/self", "/self")
	redirect("/c1", "/c2")
	redirect("/c2", "/c3")
	redirect("/c3", "/c4")
	redirect("/c4", "/c5")
	redirect("/c5", "/guide.md")
	redirect("/to-insecure", "http://example.com/guide.md")
	redirect("/to-file", "file:///etc/passwd")
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	mux.HandleFunc("/broken", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", http.StatusInternalServerError) })
	mux.HandleFunc("/invalid-utf8", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		io.WriteString(w, "# Caf\xe9\n\nNever \xff\xfe break.\n")
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=ISO-8859-1")
		io.WriteString(w, "Caf\xe9")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestFetchMarkdownOverTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		w.Header().Set("ETag", `"abc"`)
		io.WriteString(w, guideMD)
	}))
	defer srv.Close()
	doc, err := Fetch(context.Background(), Source{URL: srv.URL + "/guide.md"}, Previous{}, Options{HTTP: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	want := Document{
		URL: srv.URL + "/guide.md", Text: "# Guide\nIntro.\n## Rules\n- Never commit secrets.\n",
		Hash: hashOf("# Guide\nIntro.\n## Rules\n- Never commit secrets.\n"), ETag: `"abc"`,
	}
	want.Blocks = ParseText(want.Text)
	if diff := cmp.Diff(want, doc); diff != "" {
		t.Errorf("document (-want +got):\n%s", diff)
	}
}

// TestFetchHTTPSAnyHost: https is fetched from any host; a redirect from it
// to plain http is refused. The client dials the TLS test server for every
// host (its certificate covers example.com).
func TestFetchHTTPSAnyHost(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/down" {
			http.Redirect(w, r, "http://example.com/guide.md", http.StatusMovedPermanently)
			return
		}
		io.WriteString(w, guideMD)
	}))
	srv.StartTLS()
	defer srv.Close()
	client := srv.Client()
	tr := client.Transport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, srv.Listener.Addr().String())
	}
	client, cnt := counted(&http.Client{Transport: tr})
	doc, err := Fetch(context.Background(), Source{URL: "https://example.com/guide.md"}, Previous{}, Options{HTTP: client})
	if err != nil {
		t.Fatal(err)
	}
	if doc.URL != "https://example.com/guide.md" || !strings.Contains(doc.Text, "Never commit secrets.") {
		t.Errorf("document = %+v", doc)
	}
	_, err = Fetch(context.Background(), Source{URL: "https://example.com/down"}, Previous{}, Options{HTTP: client})
	if !errors.Is(err, ErrInsecureURL) {
		t.Fatalf("redirect to http: err = %v, want ErrInsecureURL", err)
	}
	if got := cnt.requests.Load(); got != 2 {
		t.Errorf("%d requests, want 2 (the redirect target is refused before it is asked)", got)
	}
}

func TestFetchFormats(t *testing.T) {
	srv := server(t)
	for _, tc := range []struct {
		path   string
		format Format
		want   string
	}{
		{"/guide.md", "", "# Guide\nIntro.\n## Rules\n- Never commit secrets.\n"},
		{"/guide.html", "", "# Guide\nYou must read this.\n"},
		{"/sniff", "", "## Sniffed\n"},
		{"/guide.html", Markdown, ""}, // the caller's format wins: as markdown, the page is one HTML block
		{"/latin1", "", "Café\n"},
	} {
		doc, err := Fetch(context.Background(), Source{URL: srv.URL + tc.path, Format: tc.format}, Previous{}, Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if doc.Text != tc.want {
			t.Errorf("%s as %q: text = %q, want %q", tc.path, tc.format, doc.Text, tc.want)
		}
		if doc.Hash != hashOf(doc.Text) {
			t.Errorf("%s: hash is not the text's", tc.path)
		}
	}
	if _, err := Fetch(context.Background(), Source{URL: srv.URL + "/image"}, Previous{}, Options{}); !errors.Is(err, ErrContentType) {
		t.Errorf("image: err = %v, want ErrContentType", err)
	}
	if _, err := Fetch(context.Background(), Source{URL: srv.URL + "/guide.md", Format: "pdf"}, Previous{}, Options{}); !errors.Is(err, ErrFormat) {
		t.Errorf("format pdf: err = %v, want ErrFormat", err)
	}
}

func TestFetchSelector(t *testing.T) {
	srv := server(t)
	doc, err := Fetch(context.Background(), Source{URL: srv.URL + "/guide.md", Selector: "guide > rules"}, Previous{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "## Rules\n- Never commit secrets.\n"; doc.Text != want {
		t.Errorf("text = %q, want %q", doc.Text, want)
	}
	_, err = Fetch(context.Background(), Source{URL: srv.URL + "/guide.md", Selector: "Setup"}, Previous{}, Options{})
	if !errors.Is(err, ErrNoSection) {
		t.Errorf("err = %v, want ErrNoSection", err)
	}
}

func TestFetchChanges(t *testing.T) {
	srv := server(t)
	src := Source{URL: srv.URL + "/changing"}
	first, err := Fetch(context.Background(), src, Previous{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	second, err := Fetch(context.Background(), src, Previous{Hash: first.Hash}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if first.Hash == second.Hash || second.NotModified {
		t.Errorf("a changed page: hashes %s, %s, NotModified %v", first.Hash, second.Hash, second.NotModified)
	}
	// a 200 whose text hashes as before is NotModified, with its text
	same, err := Fetch(context.Background(), Source{URL: srv.URL + "/guide.md"}, Previous{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	again, err := Fetch(context.Background(), Source{URL: srv.URL + "/guide.md"}, Previous{Hash: same.Hash}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !again.NotModified || again.Text != same.Text {
		t.Errorf("unchanged page: NotModified %v, text %q", again.NotModified, again.Text)
	}
}

func TestFetchNotModified(t *testing.T) {
	srv := server(t)
	for _, path := range []string{"/etag", "/lastmod"} {
		t.Run(path, func(t *testing.T) {
			src := Source{URL: srv.URL + path}
			first, err := Fetch(context.Background(), src, Previous{}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if first.NotModified || first.ETag+first.LastModified == "" {
				t.Fatalf("first fetch = %+v", first)
			}
			prev := Previous{ETag: first.ETag, LastModified: first.LastModified, Hash: first.Hash}
			got, err := Fetch(context.Background(), src, prev, Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := Document{URL: src.URL, Hash: first.Hash, ETag: first.ETag, LastModified: first.LastModified, NotModified: true}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("304 (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFetchRedirects(t *testing.T) {
	srv := server(t)
	doc, err := Fetch(context.Background(), Source{URL: srv.URL + "/r1"}, Previous{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.URL != srv.URL+"/guide.md" {
		t.Errorf("final URL = %s", doc.URL)
	}
	for _, tc := range []struct {
		path string
		opts Options
		want error
	}{
		{"/loop1", Options{}, ErrRedirectLoop},
		{"/self", Options{}, ErrRedirectLoop},
		{"/c1", Options{}, ErrTooManyRedirects}, // five hops, three allowed
		{"/r1", Options{MaxRedirects: 1}, ErrTooManyRedirects},
		{"/r1", Options{MaxRedirects: -1}, ErrTooManyRedirects},
		{"/to-insecure", Options{}, ErrInsecureURL},
		{"/to-file", Options{}, ErrInsecureURL},
	} {
		client, cnt := counted(&http.Client{})
		tc.opts.HTTP = client
		_, err := Fetch(context.Background(), Source{URL: srv.URL + tc.path}, Previous{}, tc.opts)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.path, err, tc.want)
		}
		for _, h := range cnt.hosts {
			if h != strings.TrimPrefix(srv.URL, "http://") {
				t.Errorf("%s: a request went to %s", tc.path, h)
			}
		}
	}
	if doc, err := Fetch(context.Background(), Source{URL: srv.URL + "/c1"}, Previous{}, Options{MaxRedirects: 5}); err != nil || doc.URL != srv.URL+"/guide.md" {
		t.Errorf("five hops with MaxRedirects 5: %v", err)
	}
}

func TestFetchRefusesInsecureURLs(t *testing.T) {
	for _, u := range []string{
		"http://example.com/guide.md",
		"http://10.0.0.1/", "http://0.0.0.0/", "http://[::ffff:10.0.0.1]/",
		"http://127.0.0.1@example.com/", // userinfo: the host is example.com
		"http://localhost.example.com/", "http://127.0.0.1.example.com/",
		"ftp://127.0.0.1/", "file:///etc/passwd", "javascript:alert(1)", "https:///no-host", "guide.md", "",
		"HTTP://example.com/",
	} {
		client, cnt := counted(&http.Client{})
		_, err := Fetch(context.Background(), Source{URL: u}, Previous{}, Options{HTTP: client})
		if !errors.Is(err, ErrInsecureURL) {
			t.Errorf("%q: err = %v, want ErrInsecureURL", u, err)
		}
		if n := cnt.requests.Load(); n != 0 {
			t.Errorf("%q: %d requests sent", u, n)
		}
	}
	for host, want := range map[string]bool{
		"localhost": true, "LocalHost": true, "127.0.0.1": true, "127.8.9.10": true, "::1": true, "::ffff:127.0.0.1": true,
		"example.com": false, "::": false, "128.0.0.1": false, "fe80::1%lo": false, "": false,
	} {
		if got := loopback(host); got != want {
			t.Errorf("loopback(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestFetchTooLarge(t *testing.T) {
	const size = 50 << 20
	for _, withLength := range []bool{true, false} {
		var written atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if withLength {
				w.Header().Set("Content-Length", fmt.Sprint(size))
			}
			chunk := []byte(strings.Repeat("never ", 64<<10/6))
			for n := 0; n < size; n += len(chunk) {
				m, err := w.Write(chunk)
				written.Add(int64(m))
				if err != nil {
					return
				}
			}
		}))
		client, cnt := counted(&http.Client{})
		_, err := Fetch(context.Background(), Source{URL: srv.URL}, Previous{}, Options{HTTP: client})
		srv.Close() // waits for the handler: its writes fail once the client hangs up
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("Content-Length %v: err = %v, want ErrTooLarge", withLength, err)
		}
		read, limit := cnt.bodyBytes.Load(), int64(DefaultMaxBytes+1)
		if withLength {
			limit = 0 // refused from the header
		}
		if read > limit {
			t.Errorf("Content-Length %v: read %d body bytes, want at most %d", withLength, read, limit)
		}
		if w := written.Load(); w >= size {
			t.Errorf("Content-Length %v: the server wrote all %d bytes", withLength, w)
		}
		t.Logf("Content-Length %v: the client read %d bytes; the server wrote %d of %d", withLength, read, written.Load(), size)
	}
}

func TestFetchTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow-body" {
			io.WriteString(w, "# Start\n")
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	for _, path := range []string{"/slow-headers", "/slow-body"} {
		start := time.Now()
		_, err := Fetch(context.Background(), Source{URL: srv.URL + path}, Previous{}, Options{Timeout: 200 * time.Millisecond})
		if !errors.Is(err, ErrTimeout) {
			t.Errorf("%s: err = %v, want ErrTimeout", path, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: took %s", path, d)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := Fetch(ctx, Source{URL: srv.URL + "/slow-headers"}, Previous{}, Options{})
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrTimeout) {
		t.Errorf("cancelled: err = %v, want context.Canceled and not ErrTimeout", err)
	}
}

func TestFetchInvalidUTF8(t *testing.T) {
	srv := server(t)
	doc, err := Fetch(context.Background(), Source{URL: srv.URL + "/invalid-utf8"}, Previous{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "# Caf\uFFFD\nNever \uFFFD break.\n"; doc.Text != want {
		t.Errorf("text = %q, want %q", doc.Text, want)
	}
}

func TestFetchStatus(t *testing.T) {
	srv := server(t)
	for path, code := range map[string]int{"/missing": 404, "/broken": 500} {
		_, err := Fetch(context.Background(), Source{URL: srv.URL + path}, Previous{}, Options{})
		var se *StatusError
		if !errors.Is(err, ErrStatus) || !errors.As(err, &se) || se.Code != code {
			t.Errorf("%s: err = %v, want a StatusError %d", path, err, code)
		}
	}
	// a 304 to an unconditional request is not NotModified
	srv304 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotModified) }))
	defer srv304.Close()
	if _, err := Fetch(context.Background(), Source{URL: srv304.URL}, Previous{}, Options{}); !errors.Is(err, ErrStatus) {
		t.Errorf("unconditional 304: err = %v, want ErrStatus", err)
	}
}

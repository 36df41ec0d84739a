package memory

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/bridle-dev/bridle/schema"
)

// authRecorder is a git HTTP server stand-in that records, per request
// path, the Authorization header it was sent.
type authRecorder struct {
	mu   sync.Mutex
	seen []string // "path auth"
}

func (a *authRecorder) record(r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seen = append(a.seen, r.URL.Path+" "+r.Header.Get("Authorization"))
}

func (a *authRecorder) authorized() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, s := range a.seen {
		if strings.Contains(s, "Basic ") {
			return true
		}
	}
	return false
}

// TestExampleTokenGoesOnlyToItsHost: the token is sent to the configured
// host and nowhere else: not to another host, not over plain http to a
// remote host, not to a redirect target.
func TestExampleTokenGoesOnlyToItsHost(t *testing.T) {
	var trusted, other authRecorder
	otherSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		other.record(r)
		http.NotFound(w, r)
	}))
	defer otherSrv.Close()
	redirect := false
	trustedSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		trusted.record(r)
		if redirect {
			http.Redirect(w, r, otherSrv.URL+r.URL.RequestURI(), http.StatusFound)
			return
		}
		http.NotFound(w, r)
	}))
	defer trustedSrv.Close()
	host := strings.TrimPrefix(trustedSrv.URL, "http://")
	store, _ := OpenSQLite(filepath.Join(t.TempDir(), "m.db"))
	defer store.Close()
	ix := &Indexer{Store: store, Embedder: Hashing{}, Examples: ExampleOptions{Token: "examples-token-123", TokenHosts: []string{host}}}
	ctx := context.Background()

	ix.Index(ctx, "p", schema.ExampleRepo{URL: trustedSrv.URL + "/org/repo.git", ReferenceTag: "t"})
	if !trusted.authorized() {
		t.Errorf("the configured host got no credentials: %v", trusted.seen)
	}
	ix.Index(ctx, "p", schema.ExampleRepo{URL: otherSrv.URL + "/org/repo.git", ReferenceTag: "t"})
	redirect = true
	ix.Index(ctx, "p", schema.ExampleRepo{URL: trustedSrv.URL + "/org/moved.git", ReferenceTag: "t"})
	if len(other.seen) < 2 {
		t.Fatalf("the other host was not asked: %v", other.seen)
	}
	if other.authorized() {
		t.Errorf("credentials went to another host: %v", other.seen)
	}
	// No hosts configured: the token goes nowhere.
	trusted.seen = nil
	redirect = false
	ix.Examples.TokenHosts = nil
	ix.Index(ctx, "p", schema.ExampleRepo{URL: trustedSrv.URL + "/org/repo.git", ReferenceTag: "t"})
	if trusted.authorized() {
		t.Errorf("credentials sent with no host configured: %v", trusted.seen)
	}
}

func TestTokenHostRule(t *testing.T) {
	o := ExampleOptions{Token: "x", TokenHosts: []string{"git.example.com", "gitea.internal:3000", "127.0.0.1:8080"}}
	for raw, want := range map[string]bool{
		"https://git.example.com/a.git":      true,
		"https://GIT.example.com:443/a.git":  true,
		"http://git.example.com/a.git":       false, // plain http to a remote host
		"https://git.example.com:8443/a.git": false, // another port than listed
		"https://evil.example.com/a.git":     false,
		"https://git.example.com.evil/a.git": false,
		"https://gitea.internal:3000/a.git":  true,
		"https://gitea.internal/a.git":       false,
		"http://127.0.0.1:8080/a.git":        true, // loopback: never leaves the machine
		"ssh://git.example.com/a.git":        false,
	} {
		u, _ := url.Parse(raw)
		if got := o.mayReceive(u); got != want {
			t.Errorf("mayReceive(%s) = %v, want %v", raw, got, want)
		}
	}
}

// TestLocalExamplesStayInsideTheRoot: a local example must resolve inside
// the examples root; /etc, a ../ escape and a symlink out are refused.
func TestLocalExamplesStayInsideTheRoot(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "examples", "svc"), 0o755)
	os.WriteFile(filepath.Join(root, "examples", "svc", "a.go"), []byte("package svc\n\nfunc A() {}\n"), 0o644)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.go"), []byte("package x\n\nfunc Secret() {}\n"), 0o644)
	os.Symlink(outside, filepath.Join(root, "escape"))
	os.Symlink(filepath.Join(outside, "secret.go"), filepath.Join(root, "examples", "svc", "link.go"))
	store, _ := OpenSQLite(filepath.Join(t.TempDir(), "m.db"))
	defer store.Close()
	ix := &Indexer{Store: store, Embedder: Hashing{}, Examples: ExampleOptions{Root: root}}
	ctx := context.Background()
	st, err := ix.Index(ctx, "p", schema.ExampleRepo{URL: "examples/svc", ReferenceTag: "ok"})
	if err != nil || st.Files != 1 {
		t.Fatalf("inside the root: %+v %v", st, err)
	}
	for _, u := range []string{"/etc", outside, "../" + filepath.Base(outside), "escape", "file:///etc", filepath.Join(root, "missing")} {
		if _, err := ix.Index(ctx, "p", schema.ExampleRepo{URL: u, ReferenceTag: "bad"}); !errors.Is(err, ErrBadRepo) {
			t.Errorf("%s: %v", u, err)
		}
	}
	ix.Examples.Root = ""
	if _, err := ix.Index(ctx, "p", schema.ExampleRepo{URL: filepath.Join(root, "examples", "svc"), ReferenceTag: "ok"}); !errors.Is(err, ErrBadRepo) {
		t.Errorf("no root: %v", err)
	}
}

// TestIndexLimits: each cap refuses an example over it with an error
// naming the cap's variable, and the previous index keeps answering.
func TestIndexLimits(t *testing.T) {
	root := t.TempDir()
	for i, body := range []string{"func A() {}\n", "func B() {}\n\nfunc C() {}\n", "func D() {}\n"} {
		os.WriteFile(filepath.Join(root, string(rune('a'+i))+".go"), []byte("package p\n\n"+body), 0o644)
	}
	os.WriteFile(filepath.Join(root, "big.go"), []byte("package p\n\n// "+strings.Repeat("x", 2000)+"\nfunc Big() {}\n"), 0o644)
	store, _ := OpenSQLite(filepath.Join(t.TempDir(), "m.db"))
	defer store.Close()
	ctx := context.Background()
	ex := schema.ExampleRepo{URL: root, ReferenceTag: "t"}
	ix := &Indexer{Store: store, Embedder: Hashing{}, Examples: ExampleOptions{Root: root, Limits: Limits{MaxFileBytes: 1000}}}
	st, err := ix.Index(ctx, "p", ex)
	if err != nil || st.Files != 3 || st.Skipped != 1 {
		t.Fatalf("baseline: %+v %v", st, err)
	}
	for _, tt := range []struct {
		lim Limits
		env string
	}{
		{Limits{MaxFiles: 2}, "BRIDLE_EXAMPLES_MAX_FILES"},
		{Limits{MaxTotalBytes: 40}, "BRIDLE_EXAMPLES_MAX_BYTES"},
		{Limits{MaxChunks: 2}, "BRIDLE_EXAMPLES_MAX_CHUNKS"},
	} {
		tt.lim.MaxFileBytes = 1000
		ix.Examples.Limits = tt.lim
		_, err := ix.Index(ctx, "p", ex)
		if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), tt.env) {
			t.Errorf("%+v: %v", tt.lim, err)
		}
		if n, _ := store.Count(ctx, PatternsCollection, Filter{Fields: map[string]string{"reference_tag": "t"}}); n != st.Chunks {
			t.Errorf("%+v: %d chunks left, want the old %d", tt.lim, n, st.Chunks)
		}
	}
}

// BenchmarkIndexLarge indexes a generated directory (MEMORY_BENCH_MB, 20 by
// default); run with -benchmem, or under /usr/bin/time -v for peak RSS.
func BenchmarkIndexLarge(b *testing.B) {
	mb := 20
	if v := os.Getenv("MEMORY_BENCH_MB"); v != "" {
		mb = atoi(v)
	}
	root := b.TempDir()
	writeGenerated(b, root, mb)
	store, _ := OpenSQLite(filepath.Join(b.TempDir(), "m.db"))
	defer store.Close()
	ix := &Indexer{Store: store, Embedder: Hashing{}, Examples: ExampleOptions{Root: root,
		Limits: Limits{MaxTotalBytes: 1 << 40, MaxFiles: 1 << 40, MaxChunks: 1 << 40}}}
	b.ResetTimer()
	for b.Loop() {
		if _, err := ix.Index(context.Background(), "p", schema.ExampleRepo{URL: root, ReferenceTag: "big"}); err != nil {
			b.Fatal(err)
		}
	}
}

package gateway

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
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
	d := newDownloads(g.srv.now, func() (string, error) { return bin, nil })
	d.platform = "darwin-arm64"
	rec := httptest.NewRecorder()
	d.serve(false)(rec, httptest.NewRequest("GET", DownloadPath, nil))
	if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "runs on darwin-arm64") || !strings.Contains(rec.Body.String(), "BRIDLE_URL") {
		t.Errorf("another platform's gateway: %d %s", rec.Code, rec.Body)
	}
}

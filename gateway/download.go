package gateway

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"sync"
	"time"
)

// DownloadPlatform is the one platform whose binary the gateway serves at
// /download/bridle-<platform>: the CI runners' (Gitea Actions' ubuntu-latest).
const DownloadPlatform = "linux-amd64"

// DownloadPath is where the gateway serves its own binary; DownloadPath +
// ".sha256" is its checksum, in sha256sum's format.
const DownloadPath = "/download/bridle-" + DownloadPlatform

// MaxDownloads is how many downloads (binary or checksum) one address may
// start within FailureWindow before it is refused (429) until the window
// has passed; at most maxParallelDownloads run at once.
const (
	MaxDownloads         = 30
	maxParallelDownloads = 4
)

// downloads serves the running executable, so that a self-hosted team's CI
// installs Bridle from its own gateway without anything being published.
//
// It is public, like a release page: the binary is Bridle's code, the same
// for every installation, and holds no configuration, token or secret (those
// live in files and the environment the gateway reads at start); what it
// tells an anonymous client — Bridle's version — /healthz already does. It
// is rate-limited per address and in parallel, since each answer is the
// size of the binary. The checksum comes from the same server: it catches a
// broken transfer, not a gateway that is not the one you run (use https).
type downloads struct {
	platform   string                 // GOOS-GOARCH this process runs as
	executable func() (string, error) // the running binary's path
	limit      *limiter
	slots      chan struct{}
	sum        func() (string, error) // the binary's sha256, computed once
}

func newDownloads(now func() time.Time, executable func() (string, error)) *downloads {
	if executable == nil {
		executable = runningExecutable
	}
	d := &downloads{platform: runtime.GOOS + "-" + runtime.GOARCH, executable: executable,
		limit: newLimiter(now, MaxDownloads), slots: make(chan struct{}, maxParallelDownloads)}
	d.sum = sync.OnceValues(func() (string, error) {
		f, err := d.open()
		if err != nil {
			return "", err
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return "", err
		}
		return hex.EncodeToString(h.Sum(nil)), nil
	})
	return d
}

// runningExecutable is this process's binary: on Linux /proc/self/exe, the
// file that is running even when an upgrade has replaced the one at its path.
func runningExecutable() (string, error) {
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		return "/proc/self/exe", nil
	}
	return os.Executable()
}

func (d *downloads) open() (*os.File, error) {
	p, err := d.executable()
	if err != nil {
		return nil, err
	}
	return os.Open(p)
}

// serve answers /download/bridle-<platform>[.sha256].
func (d *downloads) serve(checksum bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if d.platform != DownloadPlatform {
			refusal(w, fmt.Sprintf("not found: this gateway runs on %s and serves only its own binary; "+
				"give the CI a %s bridle binary with the repository variable BRIDLE_URL instead", d.platform, DownloadPlatform), http.StatusNotFound)
			return
		}
		ip := limitKey(r)
		if wait := d.limit.blocked(ip); wait > 0 {
			w.Header().Set("Retry-After", fmt.Sprint(int(wait.Seconds())+1))
			refusal(w, "too many downloads; try again later", http.StatusTooManyRequests)
			return
		}
		d.limit.fail(ip) // every download counts
		select {
		case d.slots <- struct{}{}:
			defer func() { <-d.slots }()
		default:
			w.Header().Set("Retry-After", "5")
			refusal(w, "too many downloads at once; try again shortly", http.StatusTooManyRequests)
			return
		}
		sum, err := d.sum()
		if err != nil {
			refusal(w, "the gateway cannot read its own binary", http.StatusInternalServerError)
			return
		}
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-cache")
		h.Set("ETag", `"`+sum+`"`)
		if checksum {
			h.Set("Content-Type", "text/plain; charset=utf-8")
			if r.Method != http.MethodHead {
				fmt.Fprintf(w, "%s  bridle-%s\n", sum, DownloadPlatform)
			}
			return
		}
		f, err := d.open()
		if err != nil {
			refusal(w, "the gateway cannot read its own binary", http.StatusInternalServerError)
			return
		}
		defer f.Close()
		h.Set("Content-Type", "application/octet-stream")
		h.Set("Content-Disposition", "attachment; filename=bridle-"+DownloadPlatform)
		http.ServeContent(w, r, "", time.Time{}, f)
	}
}

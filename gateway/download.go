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

// Limits of the download. MaxDownloads is how many downloads (binary or
// checksum) one address may be served within FailureWindow before it is
// refused (429) until the window has passed; a refusal does not count. At
// most MaxParallelDownloads binaries are sent at once, and at most
// MaxAddressDownloads to one address (its ClientKey); the checksum takes
// no slot. A client must read at DownloadRate on average (after
// DownloadGrace), or its connection is cut.
const (
	MaxDownloads         = 30
	MaxParallelDownloads = 16
	MaxAddressDownloads  = 2
	DownloadRate         = 32 << 10 // bytes a second
	DownloadGrace        = 10 * time.Second
)

// downloadChunk is the most written under one write deadline.
const downloadChunk = 32 << 10

// downloads serves the running executable, so that a self-hosted team's CI
// installs Bridle from its own gateway without anything being published.
//
// It is public, like a release page: the binary is Bridle's code, the same
// for every installation, and holds no configuration, token or secret (those
// live in files and the environment the gateway reads at start); what it
// tells an anonymous client — Bridle's version — /healthz already does. It
// is rate-limited per address, and limited in parallel per address and in
// all, since each answer is the size of the binary; a reader too slow to
// keep up with the minimum rate is cut off, so that a few connections that
// do not read cannot hold every slot. The checksum comes from the same
// server: it catches a broken transfer, not a gateway that is not the one
// you run (use https).
type downloads struct {
	platform   string                 // GOOS-GOARCH this process runs as
	executable func() (string, error) // the running binary's path
	limit      *limiter
	slots      *slots
	rate       int                    // the slowest a client may read, bytes a second
	grace      time.Duration          // before the rate applies
	sum        func() (string, error) // the binary's sha256, computed once
}

func newDownloads(now func() time.Time, executable func() (string, error), rate int, grace time.Duration) *downloads {
	if executable == nil {
		executable = runningExecutable
	}
	if rate <= 0 {
		rate = DownloadRate
	}
	if grace <= 0 {
		grace = DownloadGrace
	}
	d := &downloads{platform: runtime.GOOS + "-" + runtime.GOARCH, executable: executable,
		limit: newLimiter(now, MaxDownloads), slots: &slots{max: MaxParallelDownloads, each: MaxAddressDownloads, by: map[string]int{}},
		rate: rate, grace: grace}
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

// slots counts the downloads being sent, in all and by address.
type slots struct {
	mu        sync.Mutex
	max, each int
	n         int
	by        map[string]int // never more entries than max
}

// take reserves a slot for key, or says whose limit is reached: "address"
// or "all".
func (s *slots) take(key string) (full string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.by[key] >= s.each:
		return "address"
	case s.n >= s.max:
		return "all"
	}
	s.n++
	s.by[key]++
	return ""
}

func (s *slots) give(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n--
	if s.by[key]--; s.by[key] <= 0 {
		delete(s.by, key)
	}
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
		ip := ClientKey(r)
		if wait := d.limit.blocked(ip); wait > 0 {
			w.Header().Set("Retry-After", fmt.Sprint(int(wait.Seconds())+1))
			refusal(w, "too many downloads; try again later", http.StatusTooManyRequests)
			return
		}
		if !checksum {
			switch d.slots.take(ip) {
			case "address":
				w.Header().Set("Retry-After", "5")
				refusal(w, "too many downloads at once from your address; try again when one has finished", http.StatusTooManyRequests)
				return
			case "all":
				w.Header().Set("Retry-After", "5")
				refusal(w, "too many downloads at once; try again shortly", http.StatusTooManyRequests)
				return
			}
			defer d.slots.give(ip)
		}
		sum, err := d.sum()
		if err != nil {
			refusal(w, "the gateway cannot read its own binary", http.StatusInternalServerError)
			return
		}
		d.limit.fail(ip) // every download served counts
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
		pw := &pacedWriter{w: w, rc: http.NewResponseController(w), start: time.Now(), grace: d.grace, rate: d.rate}
		if err := pw.rc.SetWriteDeadline(pw.deadline(0)); err != nil {
			// Without deadlines a reader that does not read would hold
			// its slot for ever.
			refusal(w, "the gateway cannot bound the download's time on this connection", http.StatusInternalServerError)
			return
		}
		// ServeContent answers HEAD, Range and If-None-Match; it sees
		// only pacedWriter's Write (no ReadFrom: no sendfile past the
		// deadlines).
		http.ServeContent(pw, r, "", time.Time{}, f)
	}
}

// pacedWriter cuts off a reader slower than rate bytes a second on
// average: each chunk is written under a deadline by which, at rate, the
// bytes written so far and the chunk would have been read, after grace.
// Deadlines are wall-clock time, as the connection's are. The last one
// bounds the server's final flush too; the server lifts it before the
// connection serves another request.
type pacedWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	start   time.Time
	grace   time.Duration
	rate    int
	written int64
	err     error
}

func (p *pacedWriter) Header() http.Header  { return p.w.Header() }
func (p *pacedWriter) WriteHeader(code int) { p.w.WriteHeader(code) }

func (p *pacedWriter) Write(b []byte) (int, error) {
	n := 0
	for len(b) > 0 && p.err == nil {
		c := b[:min(len(b), downloadChunk)]
		if p.err = p.rc.SetWriteDeadline(p.deadline(len(c))); p.err != nil {
			break
		}
		m, err := p.w.Write(c)
		n += m
		p.written += int64(m)
		b = b[m:]
		p.err = err
	}
	return n, p.err
}

func (p *pacedWriter) deadline(next int) time.Time {
	return p.start.Add(p.grace + time.Duration(p.written+int64(next))*time.Second/time.Duration(p.rate))
}

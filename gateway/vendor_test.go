package gateway

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/audit"
	"github.com/bridle-dev/bridle/proposals"
)

// scaffoldSources matches a scaffold profile's default vendor_sources.
var scaffoldSources = regexp.MustCompile(`(?m)^(  [a-z]+):\n    vendor_sources:\n(?:      - .*\n)+`)

// vendorRules is a rules repository of project id whose claude profile
// alone reads url (the scaffold's default sources are on the internet).
func vendorRules(t *testing.T, id, url string) string {
	t.Helper()
	dir := newRules(t, id)
	src, _ := os.ReadFile(filepath.Join(dir, "bridle.yaml"))
	offline := scaffoldSources.ReplaceAllString(string(src), "$1: {}\n")
	edited := strings.Replace(offline, "  claude: {}\n", "  claude:\n    vendor_sources:\n      - url: "+url+"\n", 1)
	if offline == string(src) || edited == offline {
		t.Fatal("the scaffold's profiles moved")
	}
	commitFile(t, dir, "bridle.yaml", edited)
	return dir
}

// The scheduled vendor sync: nothing before an interval has passed since
// the project was first served; then one proposal (never merged), an audit
// event of source vendor, and nothing more while the document is unchanged;
// the time of the last sync survives a restart.
func TestScheduledVendorSync(t *testing.T) {
	var fetches atomic.Int32
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fetches.Add(1)
		w.Header().Set("Content-Type", "text/markdown")
		w.Write([]byte("# Guide\n\n- Always run the tests before you commit.\n"))
	}))
	defer page.Close()
	dir := vendorRules(t, "alpha", page.URL+"/guide.md")
	g := start(t, map[string]string{"alpha": dir}, func(c *Config, _ *Options) { c.Vendor.SyncInterval = "off" })
	s, p := g.srv, g.srv.projects["alpha"]

	openProposals := func() []proposals.Proposal {
		var ps []proposals.Proposal
		if code := g.api(t, adminToken, "GET", "/api/v1/projects/alpha/proposals", nil, &ps); code != http.StatusOK {
			t.Fatalf("list proposals: %d", code)
		}
		return ps
	}
	const every = 200 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.vendorLoop(ctx, every); close(done) }()
	stop := func() { cancel(); <-done }

	first := s.lastVendorSync(p)
	if fetches.Load() != 0 || len(openProposals()) != 0 {
		t.Fatal("synced before an interval had passed since the project was first served")
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(openProposals()) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	ps := openProposals()
	if len(ps) != 1 || ps[0].State != proposals.Open || !strings.Contains(ps[0].Title, "Vendor suggestions for claude") {
		t.Fatalf("after one interval: %+v", ps)
	}
	// Two more intervals of an unchanged document: fetched, nothing opened.
	for n := fetches.Load(); fetches.Load() < n+2 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	if ps := openProposals(); len(ps) != 1 {
		t.Errorf("an unchanged document opened more proposals: %d", len(ps))
	}
	last := s.lastVendorSync(p)
	if !last.After(first) {
		t.Errorf("last sync %v is not after the first start %v", last, first)
	}
	events, _, err := p.audit.Read(audit.Filter{Source: "vendor"})
	if err != nil || len(events) == 0 || !strings.Contains(events[len(events)-1].Summary, "scheduled sync") {
		t.Errorf("audit of the scheduled sync: %v %+v", err, events)
	}

	// A restart remembers the last sync: nothing runs until an interval
	// after it.
	before := fetches.Load()
	ctx2, cancel2 := context.WithCancel(context.Background())
	done2 := make(chan struct{})
	go func() { s.vendorLoop(ctx2, time.Hour); close(done2) }()
	time.Sleep(100 * time.Millisecond)
	cancel2()
	<-done2
	if fetches.Load() != before {
		t.Errorf("a restart synced again before the interval: %d fetches", fetches.Load()-before)
	}
}

func TestVendorSyncInterval(t *testing.T) {
	for in, want := range map[string]time.Duration{"": DefaultVendorSyncInterval, "off": 0, "0": 0, "6h": 6 * time.Hour, " 90m ": 90 * time.Minute} {
		if got, err := (VendorConfig{SyncInterval: in}).Interval(); err != nil || got != want {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"30s", "-1h", "daily", "1e9"} {
		if _, err := (VendorConfig{SyncInterval: in}).Interval(); err == nil {
			t.Errorf("%q: accepted", in)
		}
	}
	c := Config{}.Env(func(k string) string {
		if k == "BRIDLE_VENDOR_SYNC_INTERVAL" {
			return "off"
		}
		return ""
	})
	if c.Vendor.SyncInterval != "off" {
		t.Errorf("BRIDLE_VENDOR_SYNC_INTERVAL: %+v", c.Vendor)
	}
}

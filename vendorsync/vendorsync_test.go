package vendorsync

import (
	"context"
	"errors"
	"fmt"
	"github.com/bridle-dev/bridle/actor"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/bridle-dev/bridle/feed"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/scaffold"
	"github.com/bridle-dev/bridle/schema"
)

var sig = &object.Signature{Name: "Mira Rossi", Email: "mira@example.com", When: time.Unix(1e9, 0)}

// rules is a committed scaffold rules repository whose claude profile alone
// reads url.
func rules(t *testing.T, url string) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := scaffold.Init(dir, scaffold.Options{Version: "test", Author: sig}); err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile(filepath.Join(dir, "bridle.yaml"))
	offline := regexp.MustCompile(`(?m)^(  [a-z]+):\n    vendor_sources:\n(?:      - .*\n)+`).ReplaceAllString(string(src), "$1: {}\n")
	edited := strings.Replace(offline, "  claude: {}\n", "  claude:\n    vendor_sources:\n      - url: "+url+"\n", 1)
	if edited == offline {
		t.Fatal("the scaffold's claude profile moved")
	}
	os.WriteFile(filepath.Join(dir, "bridle.yaml"), []byte(edited), 0o644)
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := repo.Worktree()
	wt.Add("bridle.yaml")
	if _, err := wt.Commit("vendor source", &git.CommitOptions{Author: sig}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// flaky is a backend whose next Create fails while fail is set.
type flaky struct {
	proposals.Backend
	fail atomic.Bool
}

var errDown = errors.New("the rules repository is down")

func (f *flaky) Create(ctx context.Context, p proposals.Prepared) (proposals.Proposal, error) {
	if f.fail.Load() {
		return proposals.Proposal{}, errDown
	}
	return f.Backend.Create(ctx, p)
}

func service(t *testing.T, dir string) (proposals.Service, *flaky) {
	t.Helper()
	local, err := proposals.OpenLocal(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	b := &flaky{Backend: local}
	return proposals.Service{Backend: b, Version: "test"}, b
}

func page(body string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		w.Write([]byte(body))
	}))
}

// A proposal that could not be opened leaves no fetch state behind, so the
// next sync proposes the same suggestions again instead of calling the
// document unchanged.
func TestFailedProposalIsRetried(t *testing.T) {
	srv := page("# Guide\n\n- Always run the tests before you commit.\n")
	defer srv.Close()
	svc, b := service(t, rules(t, srv.URL+"/guide.md"))
	state := Dir(t.TempDir())
	o := Options{Service: svc, Origin: proposals.Origin{Source: schema.SourceUser, Author: "Mira Rossi"}, State: state, Version: "test"}

	b.fail.Store(true)
	rs, diags, err := Sync(context.Background(), o)
	if err != nil || diags != nil || len(rs) != 1 || rs[0].Proposal != nil || len(rs[0].Errors) != 1 || !strings.Contains(rs[0].Errors[0], errDown.Error()) {
		t.Fatalf("sync with the repository down: %v %v %+v", err, diags, rs)
	}
	if got := state.Load(srv.URL + "/guide.md"); got != (feed.Previous{}) {
		t.Errorf("fetch state saved though nothing was proposed: %+v", got)
	}
	b.fail.Store(false)
	rs, _, err = Sync(context.Background(), o)
	if err != nil || len(rs) != 1 || rs[0].Proposal == nil || len(rs[0].New) != 1 {
		t.Fatalf("the retry: %v %+v", err, rs)
	}
	if got := state.Load(srv.URL + "/guide.md"); got.Hash == "" {
		t.Error("no fetch state after the proposal was opened")
	}
	// The proposal is open, not merged: the same document opens nothing.
	rs, _, _ = Sync(context.Background(), o)
	if len(rs) != 1 || rs[0].Proposal != nil || !rs[0].Unchanged {
		t.Errorf("a third sync: %+v", rs)
	}
}

// A document stating more rules than one proposal may add is cut to
// MaxVendorAdd, the results agreeing with the proposal.
func TestSyncCapsAProposal(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Guide\n\n")
	for i := range proposals.MaxVendorAdd + 50 {
		fmt.Fprintf(&b, "- Always check widget number %d before lunch.\n", i)
	}
	srv := page(b.String())
	defer srv.Close()
	svc, _ := service(t, rules(t, srv.URL+"/guide.md"))
	rs, _, err := Sync(context.Background(), Options{Service: svc, Origin: proposals.Origin{Source: schema.SourceUser, Author: "Mira Rossi"}, Version: "test"})
	if err != nil || len(rs) != 1 || rs[0].Proposal == nil {
		t.Fatalf("sync: %v %+v", err, rs)
	}
	if len(rs[0].New) != proposals.MaxVendorAdd {
		t.Errorf("new = %d, want %d", len(rs[0].New), proposals.MaxVendorAdd)
	}
}

func TestUnknownProfile(t *testing.T) {
	srv := page("# Guide\n")
	defer srv.Close()
	svc, _ := service(t, rules(t, srv.URL+"/guide.md"))
	_, _, err := Sync(context.Background(), Options{Service: svc, Agent: "nobody"})
	if !errors.Is(err, ErrNoProfile) || !errors.Is(err, proposals.ErrBadInput) || !strings.Contains(err.Error(), "claude") {
		t.Errorf("an unknown profile: %v", err)
	}
}

// Dir keeps one file per source; an empty Dir keeps nothing; a damaged
// file reads as no state (the next sync reads the whole document).
func TestDir(t *testing.T) {
	d := Dir(t.TempDir())
	p := feed.Previous{ETag: `"v1"`, LastModified: "Tue, 01 Dec 2026 10:00:00 GMT", Hash: "abc"}
	d.Save("https://docs.example.com/a.md", p)
	if got := d.Load("https://docs.example.com/a.md"); got != p {
		t.Errorf("round trip: %+v", got)
	}
	if got := d.Load("https://docs.example.com/b.md"); got != (feed.Previous{}) {
		t.Errorf("another source: %+v", got)
	}
	os.WriteFile(d.path("https://docs.example.com/a.md"), []byte("{not json"), 0o600)
	if got := d.Load("https://docs.example.com/a.md"); got != (feed.Previous{}) {
		t.Errorf("a damaged file: %+v", got)
	}
	Dir("").Save("https://docs.example.com/a.md", p)
	if got := Dir("").Load("https://docs.example.com/a.md"); got != (feed.Previous{}) {
		t.Errorf("no directory: %+v", got)
	}
}

// The proposal a sync opens is the vendor's: whoever ran the sync started
// it and approves it like anyone else's proposal (a human running a sync
// does not author the vendor's text), and the commit and the pull request
// say who started it.
func TestSyncProposalIsTheVendors(t *testing.T) {
	stated := []string{"- Always run the tests before you commit.\n", "- Never push directly to the main branch.\n"}
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		w.Write([]byte("# Guide\n\n" + strings.Join(stated[:min(int(n.Load()), len(stated))], "")))
	}))
	defer srv.Close()
	svc, _ := service(t, rules(t, srv.URL+"/guide.md"))
	ctx := context.Background()
	for _, tc := range []struct {
		by   proposals.Origin
		want string
	}{
		{proposals.Origin{Source: schema.SourceUser, Author: "Mira Rossi"}, "Mira Rossi"},
		{proposals.Origin{Source: schema.SourceAgent, Agent: "codex", Session: "shell"}, "agent codex (session shell)"},
	} {
		n.Add(1) // one more rule in the vendor's document
		rs, _, err := Sync(ctx, Options{Service: svc, Origin: tc.by, Version: "test"})
		if err != nil || len(rs) != 1 || rs[0].Proposal == nil {
			t.Fatalf("sync by %+v: %v %+v", tc.by, err, rs)
		}
		pr, err := svc.Backend.Get(ctx, *rs[0].Proposal)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := svc.Record(ctx, pr)
		if err != nil {
			t.Fatalf("the vendor's proposal does not read back: %v", err)
		}
		if o := rec.Draft.Origin; o != (proposals.Origin{Source: schema.SourceVendor, Agent: "claude", TriggeredBy: tc.want}) {
			t.Errorf("sync by %+v: origin %+v, want the vendor's, started by %s", tc.by, o, tc.want)
		}
		if !strings.Contains(pr.Body, "a sync started by `"+tc.want+"`") || strings.Contains(pr.Author, "Mira") {
			t.Errorf("sync by %+v: author %q, body:\n%s", tc.by, pr.Author, pr.Body)
		}
		if _, err := svc.Approve(ctx, pr.Number, proposals.Principal{Actor: actor.Git("Mira Rossi", "")}); err != nil {
			t.Errorf("Mira approves the vendor's proposal of a sync %s started: %v", tc.want, err)
		}
	}
}

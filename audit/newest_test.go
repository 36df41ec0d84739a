package audit

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// randomLog writes n events of varied sizes (lines cross Newest's read
// blocks), with a bad line, an oversized line and a half-written last line
// among them, and returns the log.
func randomLog(t testing.TB, n int) *Log {
	t.Helper()
	l := Open(t.TempDir(), "p", nil)
	r := rand.New(rand.NewPCG(1, 2))
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	agents, kinds, sources := []string{"claude", "codex", "kimi", ""}, []string{KindWrite, KindRefusal, KindAdmin}, []string{"agent", "user", "vendor", ""}
	for i := range n {
		e := Event{Time: t0.Add(time.Duration(i) * time.Second), Project: "p", Kind: kinds[r.IntN(len(kinds))], Source: sources[r.IntN(len(sources))],
			Agent: agents[r.IntN(len(agents))], Summary: fmt.Sprintf("event %d %s", i, strings.Repeat("é", r.IntN(3000)))}
		if i%97 == 0 {
			e.Summary = `"kind":"admin" "agent":"claude" in the summary` // a decoy for the line check
		}
		if err := l.Append(e); err != nil {
			t.Fatal(err)
		}
		if i == n/3 {
			appendRaw(t, l, "{not json\n")
			appendRaw(t, l, `{"kind":"`+strings.Repeat("x", MaxLine+10)+`"}`+"\n")
		}
	}
	appendRaw(t, l, `{"time":"2026-12-02T00:00:00Z","kind":"wri`) // a writer cut off mid-line
	return l
}

func appendRaw(t testing.TB, l *Log, s string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(l.Path()), 0o700)
	f, err := os.OpenFile(l.Path(), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// Newest agrees with Read, newest first and cut at the limit, for every
// kind of filter, on a log with lines of every size and some bad ones.
func TestNewestAgreesWithRead(t *testing.T) {
	l := randomLog(t, 1500)
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	filters := []Filter{
		{}, {Agent: "claude"}, {Kind: KindAdmin}, {Source: "vendor", Agent: "kimi"}, {Agent: "nobody"},
		{Since: t0.Add(700 * time.Second)}, {Until: t0.Add(300 * time.Second)},
		{Since: t0.Add(100 * time.Second), Until: t0.Add(900 * time.Second), Kind: KindWrite},
		{Agent: `"claude"`}, // not a plain value: decoded, never guessed from the text
	}
	for _, f := range filters {
		all, _, err := l.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		slices.Reverse(all)
		for _, limit := range []int{0, 1, 50, 100000} {
			got, _, err := l.Newest(f, limit)
			if err != nil {
				t.Fatal(err)
			}
			want := all
			if limit > 0 && len(want) > limit {
				want = want[:limit]
			}
			if len(got) != len(want) {
				t.Fatalf("%+v limit %d: %d events, want %d", f, limit, len(got), len(want))
			}
			for i := range got {
				if got[i].Summary != want[i].Summary || !got[i].Time.Equal(want[i].Time) {
					t.Fatalf("%+v limit %d: event %d is %q, want %q", f, limit, i, got[i].Summary, want[i].Summary)
				}
			}
		}
	}
	_, badRead, _ := l.Read(Filter{})
	_, badNewest, _ := l.Newest(Filter{}, 0)
	if badRead != 3 || badNewest != badRead {
		t.Errorf("bad lines: Read %d, Newest %d, want 3 (not JSON, oversized, cut off)", badRead, badNewest)
	}
}

func TestNewestEdges(t *testing.T) {
	l := Open(t.TempDir(), "p", nil)
	if got, bad, err := l.Newest(Filter{}, 10); err != nil || bad != 0 || got == nil || len(got) != 0 {
		t.Errorf("a missing log: %v %d %v", got, bad, err)
	}
	appendRaw(t, l, "")
	if got, _, err := l.Newest(Filter{}, 10); err != nil || len(got) != 0 {
		t.Errorf("an empty log: %v %v", got, err)
	}
	// One line, no newline at the end; then a log that is one oversized line.
	appendRaw(t, l, `{"time":"2026-12-01T09:00:00Z","kind":"write","summary":"only"}`)
	if got, _, err := l.Newest(Filter{}, 10); err != nil || len(got) != 1 || got[0].Summary != "only" {
		t.Errorf("one line without a newline: %+v %v", got, err)
	}
	big := Open(t.TempDir(), "p", nil)
	appendRaw(t, big, strings.Repeat("x", 3*MaxLine))
	if got, bad, err := big.Newest(Filter{}, 10); err != nil || len(got) != 0 || bad != 1 {
		t.Errorf("one oversized line: %+v %d %v", got, bad, err)
	}
}

// BenchmarkAuditPage is the admin API's audit page (the newest 50, and the
// newest 50 of one agent) on a log of 100,000 events: Read (the whole log)
// against Newest, side by side.
//
//	go test ./audit -run '^$' -bench AuditPage -benchmem
func BenchmarkAuditPage(b *testing.B) {
	l := Open(b.TempDir(), "p", nil)
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	os.MkdirAll(filepath.Dir(l.Path()), 0o700)
	f, err := os.Create(l.Path())
	if err != nil {
		b.Fatal(err)
	}
	agents := []string{"claude", "codex", "kimi", "deepseek"}
	for i := range 100_000 {
		fmt.Fprintf(f, `{"time":%q,"project":"p","kind":"write","source":"agent","agent":%q,"tool":"remember","summary":"remembered decision %d about the queue"}`+"\n",
			t0.Add(time.Duration(i)*time.Second).Format(time.RFC3339Nano), agents[i%4], i)
	}
	f.Close()
	for _, c := range []struct {
		name string
		f    Filter
	}{{"all", Filter{}}, {"agent", Filter{Agent: "kimi"}}, {"rare", Filter{Agent: "nobody"}}} {
		b.Run("read/"+c.name, func(b *testing.B) {
			for b.Loop() {
				events, _, _ := l.Read(c.f)
				slices.Reverse(events)
				_ = events[:min(50, len(events))]
			}
		})
		b.Run("newest/"+c.name, func(b *testing.B) {
			for b.Loop() {
				l.Newest(c.f, 50)
			}
		})
	}
}

// Oversized lines of every length around the limits and the read block,
// next to each other and to short ones: Newest skips exactly what Read
// skips.
func TestNewestSkipsOversizedLinesAsReadDoes(t *testing.T) {
	l := Open(t.TempDir(), "p", nil)
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	sizes := []int{MaxLine - 30, MaxLine + 1, 2 * readBlock, MaxLine + readBlock - 1, 3 * MaxLine, MaxLine + 2}
	n := 0
	for i, size := range sizes {
		appendRaw(t, l, fmt.Sprintf(`{"time":%q,"kind":"write","summary":"short %d"}`+"\n", t0.Add(time.Duration(n)*time.Second).Format(time.RFC3339Nano), n))
		n++
		appendRaw(t, l, `{"kind":"write","summary":"`+strings.Repeat("y", size)+`"}`+"\n")
		if i%2 == 0 { // two long ones in a row
			appendRaw(t, l, `{"kind":"write","summary":"`+strings.Repeat("z", size+7)+`"}`+"\n")
		}
	}
	all, badRead, err := l.Read(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	got, badNewest, err := l.Newest(Filter{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(all)
	if len(got) != len(all) || badNewest != badRead {
		t.Fatalf("Newest: %d events, %d bad; Read: %d events, %d bad", len(got), badNewest, len(all), badRead)
	}
	for i := range got {
		if got[i].Summary != all[i].Summary {
			t.Errorf("event %d: %.40q, want %.40q", i, got[i].Summary, all[i].Summary)
		}
	}
}

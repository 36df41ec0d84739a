package audit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bridle-dev/bridle/actor"
	"github.com/bridle-dev/bridle/redact"
)

// TestConcurrentAppendAcrossProcesses starts several processes that append
// at once and checks that every event arrives whole.
func TestConcurrentAppendAcrossProcesses(t *testing.T) {
	if os.Getenv("AUDIT_CHILD") != "" {
		l := Open(os.Getenv("AUDIT_DIR"), "p", nil)
		n, _ := strconv.Atoi(os.Getenv("AUDIT_N"))
		for i := range n {
			if err := l.Append(Event{Kind: KindWrite, Agent: os.Getenv("AUDIT_CHILD"), Summary: strings.Repeat("x", 3000) + fmt.Sprint(i)}); err != nil {
				panic(err)
			}
		}
		return
	}
	dir := t.TempDir()
	const procs, each = 4, 100
	var wg sync.WaitGroup
	for p := range procs {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestConcurrentAppendAcrossProcesses$")
			cmd.Env = append(os.Environ(), "AUDIT_CHILD=agent"+strconv.Itoa(p), "AUDIT_DIR="+dir, "AUDIT_N="+strconv.Itoa(each))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("child: %v\n%s", err, out)
			}
		})
	}
	wg.Wait()
	events, bad, err := Open(dir, "p", nil).Read(Filter{})
	if err != nil || bad != 0 || len(events) != procs*each {
		t.Fatalf("read %d events, %d bad, err %v; want %d", len(events), bad, err, procs*each)
	}
}

func TestFilterAndRedaction(t *testing.T) {
	dir := t.TempDir()
	l := Open(dir, "../escape attempt", redact.New("sekrit-value-123"))
	if !strings.HasPrefix(l.Path(), dir) || strings.Contains(l.Path(), "..") {
		t.Fatalf("project name escaped the state dir: %s", l.Path())
	}
	t0 := time.Now().UTC()
	l.Append(Event{Kind: KindRefusal, Agent: "kimi", Summary: "refused sekrit-value-123", Time: t0.Add(-time.Hour)})
	l.Append(Event{Kind: KindWrite, Agent: "claude", Summary: "wrote"})
	os.WriteFile(l.Path()+".tmp", nil, 0o600)
	f, _ := os.OpenFile(l.Path(), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{not json\n")
	f.Close()

	all, bad, _ := l.Read(Filter{})
	if len(all) != 2 || bad != 1 {
		t.Fatalf("got %d events, %d bad", len(all), bad)
	}
	if strings.Contains(all[0].Summary, "sekrit") {
		t.Error("secret written to the audit log")
	}
	if got, _, _ := l.Read(Filter{Agent: "claude"}); len(got) != 1 {
		t.Errorf("agent filter: %d", len(got))
	}
	if got, _, _ := l.Read(Filter{Since: t0.Add(-time.Minute)}); len(got) != 1 {
		t.Errorf("since filter: %d", len(got))
	}
}

// TestAppendMasksEncodedSecrets: a secret JSON escapes differently from its
// raw form (& < > " \ and non-ASCII) is masked in the log, in summaries,
// details and keys, and every line stays readable.
func TestAppendMasksEncodedSecrets(t *testing.T) {
	const secret = "p&<a>\"ss\\word-123é"
	const short = "pin4"
	l := Open(t.TempDir(), "p", redact.New(secret, short))
	err := l.Append(Event{Kind: KindWrite, Agent: "claude", Summary: "used " + secret,
		Detail: map[string]any{"nested": []any{"x " + secret}, secret: 1, "pin": short}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(l.Path())
	for _, leak := range []string{"word-123", `\u0026\u003ca\u003e`, short} {
		if strings.Contains(string(b), leak) {
			t.Errorf("log leaked %q: %s", leak, b)
		}
	}
	events, bad, err := l.Read(Filter{})
	if err != nil || bad != 0 || len(events) != 1 || !strings.Contains(events[0].Summary, redact.Mask) {
		t.Errorf("read back: %+v bad=%d err=%v", events, bad, err)
	}
}

// A hostile field is cut at Append, and a line no Append writes (too long)
// is skipped by Read, counted as bad, without hiding the events after it.
func TestOversizedEventsDoNotBreakTheLog(t *testing.T) {
	dir := t.TempDir()
	l := Open(dir, "p", nil)
	if err := l.Append(Event{Kind: "refusal", Client: strings.Repeat("<", 1<<20), Summary: "refused"}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(l.Path(), os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"kind":"` + strings.Repeat("x", MaxLine+10) + `"}` + "\n")
	f.Close()
	if err := l.Append(Event{Kind: "write", Summary: "after"}); err != nil {
		t.Fatal(err)
	}
	events, bad, err := l.Read(Filter{})
	if err != nil || bad != 1 || len(events) != 2 || events[1].Summary != "after" || len(events[0].Client) > MaxField+len("…") {
		t.Errorf("read: %d events, %d bad, %v", len(events), bad, err)
	}
}

// TestOldLinesNameTheirActor: lines written before events carried an actor
// (copied from logs of the release before) read unchanged, and each names
// who acted as a new line would.
func TestOldLinesNameTheirActor(t *testing.T) {
	dir := t.TempDir()
	l := Open(dir, "web", nil)
	old := `{"time":"2026-11-20T09:00:00Z","project":"web","kind":"write","agent":"claude","client":"claude-code","session":"s1","tool":"remember","summary":"remembered 1"}
{"time":"2026-11-20T09:01:00Z","project":"web","kind":"admin","source":"user","agent":"","summary":"approved proposal #3","id":"3","detail":{"by":"Mira Okafor","merge_commit":"abc","merged_by":"Mira Okafor"}}
{"time":"2026-11-20T09:02:00Z","project":"","kind":"admin","source":"vendor","agent":"","summary":"scheduled sync of the vendors' guidance: 1 proposals","detail":{"by":"bridle serve"}}
{"time":"2026-11-20T09:03:00Z","project":"web","kind":"vault","source":"user","agent":"","summary":"secret db: set","id":"db","detail":{"by":"Mira Okafor","op":"set"}}
{"time":"2026-11-20T09:04:00Z","project":"web","kind":"admin","source":"vendor","agent":"claude","summary":"suggested"}
`
	if err := os.MkdirAll(filepath.Dir(l.Path()), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(l.Path(), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	want := []actor.Actor{
		actor.AgentOf("web", "claude", "s1"),
		actor.BreakGlass("Mira Okafor", ""),
		actor.Self("bridle serve"),
		actor.Person("", "Mira Okafor", "", false, actor.ViaGit),
		actor.VendorOf("claude"),
	}
	for name, read := range map[string]func() ([]Event, error){
		"Read":   func() ([]Event, error) { e, _, err := l.Read(Filter{}); return e, err },
		"Newest": func() ([]Event, error) { e, _, err := l.Newest(Filter{}, 0); slices.Reverse(e); return e, err },
	} {
		events, err := read()
		if err != nil || len(events) != len(want) {
			t.Fatalf("%s: %d events, err %v", name, len(events), err)
		}
		for i, e := range events {
			if e.Actor == nil {
				t.Errorf("%s: event %d names no actor", name, i)
				continue
			}
			if diff := cmp.Diff(want[i], *e.Actor); diff != "" {
				t.Errorf("%s: event %d's actor (-want +got):\n%s", name, i, diff)
			}
		}
	}
	// A new event names its actor and stays selectable as before.
	bob := actor.Person("https://gitea|2", "bob", "bob@x", true, actor.ViaOIDC)
	if err := l.Append(Event{Kind: KindAdmin, Actor: &bob, Summary: "approved proposal #4"}); err != nil {
		t.Fatal(err)
	}
	got, _, err := l.Newest(Filter{Source: "user"}, 1)
	if err != nil || len(got) != 1 || got[0].Actor == nil || *got[0].Actor != bob {
		t.Fatalf("new event read back as %+v, %v", got, err)
	}
}

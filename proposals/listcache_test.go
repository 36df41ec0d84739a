package proposals

import (
	"context"
	"github.com/bridle-dev/bridle/actor"
	"testing"
)

// The listing reuses what its files and commits pin, and nothing else: a
// proposal closed by another Local (another process) and a main that moved
// show in the next listing.
func TestLocalListSeesEveryChange(t *testing.T) {
	dir, _ := rulesRepo(t)
	l, err := OpenLocal(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	svc := Service{Backend: l}
	for _, c := range []Change{guardrail("first-rule"), guardrail("second-rule"), guardrail("first-rule")} {
		if _, err := svc.Propose(ctx, Draft{Change: c, Origin: agentOrigin()}); err != nil {
			t.Fatal(err)
		}
	}
	list := func() map[int]Proposal {
		t.Helper()
		ps, err := l.List(ctx, All)
		if err != nil {
			t.Fatal(err)
		}
		out := map[int]Proposal{}
		for _, p := range ps {
			if p.Body != "" {
				t.Errorf("#%d: the listing carries the body", p.Number)
			}
			out[p.Number] = p
		}
		return out
	}
	first := list()
	for n := 1; n <= 3; n++ {
		if p := first[n]; p.State != Open || !p.Mergeable || p.Conflict != "" {
			t.Errorf("#%d before: %+v", n, p)
		}
	}
	// Another process rejects #2: the record file is replaced.
	other, err := OpenLocal(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Close(ctx, 2, "Mira", "not now"); err != nil {
		t.Fatal(err)
	}
	// And approves #1: main moves, so #3 (the same guardrail) conflicts.
	if _, err := (Service{Backend: other}).Approve(ctx, 1, Principal{Actor: actor.Git("Mira", "")}); err != nil {
		t.Fatal(err)
	}
	after := list()
	if p := after[1]; p.State != Merged {
		t.Errorf("#1 after its merge elsewhere: %+v", p)
	}
	if p := after[2]; p.State != Closed || p.Mergeable {
		t.Errorf("#2 after its rejection elsewhere: %+v", p)
	}
	if p := after[3]; p.State != Open || p.Mergeable || p.Conflict == "" {
		t.Errorf("#3 after main moved under it: %+v", p)
	}
	// A second listing answers the same from the cache.
	again := list()
	if p := again[3]; p.Mergeable != after[3].Mergeable || p.Conflict != after[3].Conflict {
		t.Errorf("#3 listed again: %+v, was %+v", p, after[3])
	}
	if got, err := l.Get(ctx, 3); err != nil || got.Mergeable || got.Conflict != after[3].Conflict {
		t.Errorf("Get #3: %+v %v", got, err)
	}
}

package audit

import (
	"strings"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/compiler"
)

// TestCombineOrder: oldest first at full precision; within one second
// (merges are known to the second) the log's events come before the
// merges, and merges keep their history order; the same input always gives
// the same timeline.
func TestCombineOrder(t *testing.T) {
	sec := time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)
	// As compiler.Timeline gives them: newest first, both in one second.
	merges := FromMerges("p", []compiler.Merge{
		{Time: sec, Commit: "c2", PullRequest: "2", Title: "second", ApprovedBy: "alice", Source: "user", ProposedBy: "jonas"},
		{Time: sec, Commit: "c1", PullRequest: "1", Title: "first", ApprovedBy: "alice", Source: "agent", Agent: "claude", Session: "s-1"},
	})
	log := []Event{
		{Time: sec.Add(700 * time.Millisecond), Kind: KindWrite, Summary: "late write"},
		{Time: sec.Add(200 * time.Millisecond), Kind: KindWrite, Summary: "early write"},
		{Time: sec.Add(200 * time.Millisecond), Kind: KindRefusal, Summary: "same instant, logged after"},
		{Time: sec.Add(-time.Second), Kind: KindScopeRequest, Summary: "a second before"},
	}
	want := []string{"a second before", "early write", "same instant, logged after", "late write", "merged #1", "merged #2"}
	for i := 0; i < 3; i++ {
		got := Combine(Filter{}, log, merges)
		if len(got) != len(want) {
			t.Fatalf("got %d events", len(got))
		}
		for j, e := range got {
			if !strings.HasPrefix(e.Summary, want[j]) {
				t.Errorf("event %d = %q, want %q…", j, e.Summary, want[j])
			}
		}
	}
}

// TestMergeSummaryNamesTheProposer: a merge says who proposed it and who
// approved it.
func TestMergeSummaryNamesTheProposer(t *testing.T) {
	es := FromMerges("p", []compiler.Merge{
		{Title: "Add guardrail a", PullRequest: "3", ApprovedBy: "alice", Source: "user", ProposedBy: "jonas"},
		{Title: "Add guardrail b", ApprovedBy: "alice", Source: "agent", Agent: "claude", Session: "s-1"},
		{Title: "Promote", ApprovedBy: "alice", Source: "vendor", Agent: "claude", ProposedBy: "mira"},
		{Title: "Vendor suggestions", ApprovedBy: "mira", Source: "vendor", Agent: "claude"}, // a vendor sync's, whoever ran it
	})
	for i, want := range []string{
		"merged #3: Add guardrail a (proposed by jonas, approved by alice)",
		"merged: Add guardrail b (proposed by agent claude in session s-1, approved by alice)",
		"merged: Promote (a claude vendor suggestion promoted by mira, approved by alice)",
		"merged: Vendor suggestions (suggestions of the claude profile's vendor, approved by mira)",
	} {
		if got := es[len(es)-1-i].Summary; got != want { // oldest first
			t.Errorf("summary = %q, want %q", got, want)
		}
	}
}

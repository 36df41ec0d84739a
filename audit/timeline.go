package audit

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/schema"
)

// KindMerge is a proposal approved by merging, from the rules history.
const KindMerge = "merge"

// KindUnreviewed is a change on main that no approved merge produced, from
// the rules repository's history.
const KindUnreviewed = "unreviewed"

// FromUnapproved turns the compiler's list of unapproved changes into
// events for the timeline, one per part changed.
func FromUnapproved(project string, us []schema.Unapproved) []Event {
	var out []Event
	for _, u := range us {
		at, _ := time.Parse(time.RFC3339, u.At)
		summary := fmt.Sprintf("unreviewed: %s %s — %s", u.Subject, u.Change, u.Reason)
		if u.Approved != "" {
			summary += fmt.Sprintf("; the approved text was %q", u.Approved)
		}
		d := map[string]any{"subject": u.Subject, "change": u.Change, "reason": u.Reason}
		id := "work tree"
		if u.Commit != "" {
			d["commit"], id = u.Commit, u.Commit[:min(12, len(u.Commit))]
		}
		out = append(out, Event{Time: at, Project: project, Kind: KindUnreviewed, Source: "git", ID: id, Summary: summary, Detail: d})
	}
	return out
}

// FromMerges turns the rules repository's merges into timeline events. The
// agent of a merge is the proposing agent ("user" for people).
func FromMerges(project string, merges []compiler.Merge) []Event {
	var out []Event
	for _, m := range merges {
		who := m.Agent
		if who == "" {
			who = "user"
		}
		summary := fmt.Sprintf("merged: %s (approved by %s)", m.Title, m.ApprovedBy)
		if m.PullRequest != "" {
			summary = fmt.Sprintf("merged #%s: %s (approved by %s)", m.PullRequest, m.Title, m.ApprovedBy)
		}
		d := map[string]any{"approved_by": m.ApprovedBy, "source": m.Source, "commit": m.Commit}
		if m.ProposedBy != "" {
			d["proposed_by"] = m.ProposedBy
		}
		if len(m.Subjects) > 0 {
			d["subjects"] = strings.Join(m.Subjects, ", ")
		}
		out = append(out, Event{Time: m.Time, Project: project, Kind: KindMerge, Source: m.Source, Agent: who, Session: m.Session,
			ID: m.PullRequest, Summary: summary, Detail: d})
	}
	return out
}

// Combine merges timelines oldest first, keeping only events that match f.
func Combine(f Filter, lists ...[]Event) []Event {
	var out []Event
	for _, l := range lists {
		for _, e := range l {
			if f.match(e) {
				out = append(out, e)
			}
		}
	}
	// Forges record merges to the second: within one second a merge sorts
	// after the events that led to it.
	slices.SortStableFunc(out, func(a, b Event) int {
		if c := a.Time.Truncate(time.Second).Compare(b.Time.Truncate(time.Second)); c != 0 {
			return c
		}
		if (a.Kind == KindMerge) != (b.Kind == KindMerge) {
			if a.Kind == KindMerge {
				return 1
			}
			return -1
		}
		return a.Time.Compare(b.Time)
	})
	return out
}

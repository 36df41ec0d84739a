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

// FromMerges turns the rules repository's merges, as compiler.Timeline
// lists them (newest first), into timeline events in history order, oldest
// first: merges made within one second (git's precision) then keep the
// order main has them in. The agent of a merge is the proposing agent
// ("user" for people); the summary says who proposed and who approved it.
func FromMerges(project string, merges []compiler.Merge) []Event {
	var out []Event
	for _, m := range slices.Backward(merges) {
		who := m.Agent
		if who == "" {
			who = "user"
		}
		summary := fmt.Sprintf("merged: %s (%s, approved by %s)", m.Title, proposer(m), m.ApprovedBy)
		if m.PullRequest != "" {
			summary = fmt.Sprintf("merged #%s: %s (%s, approved by %s)", m.PullRequest, m.Title, proposer(m), m.ApprovedBy)
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

// proposer says who proposed a merge: an agent (and its session), a
// vendor's suggestion and who promoted it, or a person.
func proposer(m compiler.Merge) string {
	switch {
	case m.Source == string(schema.SourceAgent) && m.Session != "":
		return fmt.Sprintf("proposed by agent %s in session %s", m.Agent, m.Session)
	case m.Source == string(schema.SourceAgent):
		return "proposed by agent " + m.Agent
	case m.Source == string(schema.SourceVendor) && m.ProposedBy == "":
		return fmt.Sprintf("suggestions of the %s profile's vendor", m.Agent)
	case m.Source == string(schema.SourceVendor):
		return fmt.Sprintf("a %s vendor suggestion promoted by %s", m.Agent, orUnknown(m.ProposedBy))
	}
	return "proposed by " + orUnknown(m.ProposedBy)
}

func orUnknown(s string) string {
	if s == "" {
		return "an unrecorded proposer"
	}
	return s
}

// Combine merges timelines oldest first, keeping only events that match f.
// The order is deterministic: by time at full precision, except that within
// one second (the precision of merges) a merge sorts after the events that
// led to it; ties keep the order of the lists and of each list (the log's
// order, the history's).
func Combine(f Filter, lists ...[]Event) []Event {
	var out []Event
	for _, l := range lists {
		for _, e := range l {
			if f.match(e) {
				out = append(out, e)
			}
		}
	}
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

package proposals

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/bridle-dev/bridle/actor"
	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/schema"
)

// A proposal's change and origin are read from its own commit — the
// trailers Bridle wrote, checked against the content on the branch — never
// from the pull request's body or title, which any writer can edit later.

// Errors of the record and of approval, for errors.Is.
var (
	// ErrTampered: the proposal's branch is not what Bridle recorded (it was
	// pushed to by hand, or never made by Bridle).
	ErrTampered = errors.New("the proposal's branch is not what Bridle recorded")
	// ErrSelfApproval: the approver originated the proposal.
	ErrSelfApproval = errors.New("a proposal cannot be approved by whoever proposed it")
	// ErrAgentApproval: an agent tried to approve. Only a person changes the
	// rules, whatever permissions the rules grant the agent.
	ErrAgentApproval = errors.New("an agent cannot approve a proposal")
	// ErrAgentSession: approving and rejecting are a human's acts; the CLI
	// refuses them inside a coding agent's session.
	ErrAgentSession = errors.New("this runs inside a coding agent's session")
)

// Commit is one commit as a backend reads it.
type Commit struct {
	SHA     string
	Message string
	Parents []string
	Rules   []byte // the rules file at this commit; nil when absent
}

// Recorded is what a proposal's commit says: the change and who proposed
// it, and the main commit it was made on.
type Recorded struct {
	Draft Draft
	Base  string
}

// Record reads the change and origin from the proposal's head commit and
// checks them against the branch: the head must have one parent, carry
// Bridle's trailers, and its rules must be exactly what applying the
// recorded change to its parent's rules gives. Anything else is
// ErrTampered.
func (s Service) Record(ctx context.Context, pr Proposal) (Recorded, error) {
	if pr.Head == "" {
		return Recorded{}, fmt.Errorf("read #%d: %w: no head commit", pr.Number, ErrTampered)
	}
	head, err := s.Backend.Commit(ctx, pr.Head)
	if err != nil {
		return Recorded{}, fmt.Errorf("read #%d: %w", pr.Number, err)
	}
	if len(head.Parents) != 1 {
		return Recorded{}, fmt.Errorf("read #%d: %w: its head commit has %d parents, Bridle makes one", pr.Number, ErrTampered, len(head.Parents))
	}
	// One commit made on main: anything between main and the proposal's
	// commit would ride in with its approval unseen.
	on, err := s.Backend.OnMain(ctx, head.Parents[0])
	if err != nil {
		return Recorded{}, fmt.Errorf("read #%d: %w", pr.Number, err)
	}
	if !on {
		return Recorded{}, fmt.Errorf("read #%d: %w: its commit is not made on main (the branch holds other commits beneath it)", pr.Number, ErrTampered)
	}
	parent, err := s.Backend.Commit(ctx, head.Parents[0])
	if err != nil {
		return Recorded{}, fmt.Errorf("read #%d: %w", pr.Number, err)
	}
	d, err := recorded(head.Message, parent.Rules, head.Rules)
	if err != nil {
		return Recorded{}, fmt.Errorf("read #%d: %w", pr.Number, err)
	}
	return Recorded{Draft: d, Base: head.Parents[0]}, nil
}

// recorded decodes a proposal commit's draft and checks it reproduces the
// commit's rules from its parent's.
func recorded(msg string, before, after []byte) (Draft, error) {
	t := compiler.Trailers(msg)
	raw, err := base64.StdEncoding.DecodeString(t[TrailerDraft])
	if t[TrailerDraft] == "" || err != nil {
		return Draft{}, fmt.Errorf("%w: the commit carries no %s trailer", ErrTampered, TrailerDraft)
	}
	var d Draft
	if err := json.Unmarshal(raw, &d); err != nil {
		return Draft{}, fmt.Errorf("%w: the %s trailer does not decode", ErrTampered, TrailerDraft)
	}
	author := ""
	if d.Origin.Source != schema.SourceAgent {
		author = d.Origin.Author
	}
	if string(d.Origin.Source) != t[TrailerSource] || d.Origin.Agent != t[TrailerAgent] || d.Origin.Session != t[TrailerSession] ||
		OneLine(author, 80) != t[TrailerAuthor] || OneLine(d.Origin.TriggeredBy, 80) != t[TrailerTriggeredBy] {
		return Draft{}, fmt.Errorf("%w: the recorded origin does not match the commit's trailers", ErrTampered)
	}
	if before == nil || after == nil {
		return Draft{}, fmt.Errorf("%w: the rules file is missing before or after the change", ErrTampered)
	}
	want, err := Apply(before, d.Change, d.Origin)
	if err == nil && !bytes.Equal(want, after) {
		// A proposal made before changes were spliced into the text holds
		// the whole document re-encoded: that is what its change made.
		if whole, werr := applyReencoded(before, d.Change, d.Origin); werr == nil && bytes.Equal(whole, after) {
			want = whole
		}
	}
	if err != nil || !bytes.Equal(want, after) {
		return Draft{}, fmt.Errorf("%w: the branch's rules are not what the recorded change makes (changed by hand?); review and rebase it by hand", ErrTampered)
	}
	return d, nil
}

// Principal is who approves: a human. An agent (through the MCP tool) is
// named so that its refusal can say who tried: Approve refuses it.
type Principal struct {
	// Actor approves: a person, or an agent (through the MCP tool) to be
	// refused. No one (the zero Actor): the forge decides, as the backend's
	// user (the Gitea token's).
	Actor actor.Actor
	// SelfOK lets a human approve a proposal of their own: a sole
	// maintainer's explicit choice. Agents never may.
	SelfOK bool
}

// Approve merges proposal n as p, after checking from the proposal's own
// commit that p did not originate it. Only a person approves: an agent is
// refused (ErrSelfApproval for its own proposal or one of its session,
// ErrAgentApproval for any other), even when the rules grant it
// rules.approve; a human may not approve one of their own unless SelfOK,
// and then the merge records that choice (on Gitea, the
// compiler.SelfApprovedTrailer the review needs). A proposal whose commit
// is not what Bridle recorded is ErrTampered and is not merged by Bridle.
func (s Service) Approve(ctx context.Context, n int, p Principal) (Proposal, error) {
	pr, err := s.Backend.Get(ctx, n)
	if err != nil {
		return Proposal{}, err
	}
	if pr.State != Open {
		return Proposal{}, fmt.Errorf("approve #%d: %w (it is %s)", n, ErrState, pr.State)
	}
	rec, err := s.Record(ctx, pr)
	if err != nil {
		return Proposal{}, fmt.Errorf("approve: %w", err)
	}
	if p.Actor.IsZero() {
		if p.Actor, err = s.whoamiActor(ctx); err != nil {
			return Proposal{}, fmt.Errorf("approve #%d: %w", n, err)
		}
	}
	if !p.Actor.Named() {
		return Proposal{}, fmt.Errorf("approve #%d: %w: cannot tell who approves; set your name (git config --global user.name, or --as)", n, ErrSelfApproval)
	}
	if err := p.mayApprove(rec.Draft.Origin); err != nil {
		return Proposal{}, fmt.Errorf("approve #%d: %w", n, err)
	}
	// Merge exactly the commit checked above: a push in between is refused.
	if own := p.SelfOK && rec.Draft.Origin.Source != schema.SourceAgent; own {
		if b, ok := s.Backend.(interface {
			MergeOwn(ctx context.Context, n int, approver, head string) (Proposal, error)
		}); ok {
			return b.MergeOwn(ctx, n, p.Actor.Name, pr.Head)
		}
	}
	return s.Backend.Merge(ctx, n, p.Actor.Name, pr.Head)
}

// Reject closes proposal n without merging it, as by; with by empty, as the
// backend's user, like an approver: the token's user on Gitea, git's
// committer identity locally.
func (s Service) Reject(ctx context.Context, n int, by, reason string) (Proposal, error) {
	if strings.TrimSpace(by) == "" {
		var err error
		if by, err = s.whoami(ctx); err != nil {
			return Proposal{}, fmt.Errorf("reject #%d: %w", n, err)
		}
	}
	return s.Backend.Close(ctx, n, by, reason)
}

// whoamiActor is the backend's user as a person: git's identity (with its
// e-mail) locally, the token's user on Gitea.
func (s Service) whoamiActor(ctx context.Context) (actor.Actor, error) {
	if w, ok := s.Backend.(interface {
		WhoamiActor(context.Context) (actor.Actor, error)
	}); ok {
		return w.WhoamiActor(ctx)
	}
	name, err := s.whoami(ctx)
	if err != nil || name == "" {
		return actor.Actor{}, err
	}
	return actor.Person("", name, "", false, ""), nil
}

// whoami is the backend's user, or "" for a backend that cannot tell.
func (s Service) whoami(ctx context.Context) (string, error) {
	w, ok := s.Backend.(interface {
		Whoami(context.Context) (string, error)
	})
	if !ok {
		return "", nil
	}
	return w.Whoami(ctx)
}

func (p Principal) mayApprove(o Origin) error {
	a := p.Actor
	switch {
	case a.Kind == actor.Agent && o.Source == schema.SourceAgent && o.Agent == a.Agent:
		return fmt.Errorf("%w: agent %s proposed it, so a person must approve it", ErrSelfApproval, a.Agent)
	case a.Kind == actor.Agent && a.Session != "" && o.Session == a.Session:
		return fmt.Errorf("%w: it was proposed in this session (%s)", ErrSelfApproval, a.Session)
	case !a.IsHuman():
		// Only a person changes the rules: an agent approving another
		// agent's proposal is agents changing their own rules, rules.approve
		// or not.
		return fmt.Errorf("%w (%s): only a person approves, by merging it (bridle approve, the gateway's admin API or panel, or a merge in Gitea)", ErrAgentApproval, a)
	case !p.SelfOK && actor.SamePerson(o.Actor(), a):
		return fmt.Errorf("%w: %s proposed it; another maintainer must approve it (a sole maintainer may pass --self)", ErrSelfApproval, a.Name)
	}
	return nil
}

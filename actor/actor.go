// Package actor is who acts in Bridle: a person, an agent, a vendor's
// published guidance, or Bridle itself. One Actor is made where a request
// is authenticated (the gateway's admin credential or a sign-in, an agent's
// bearer token, the CLI's git identity), carried in the request's context
// (With, From) and read by everything that records or decides by who acts:
// the admin API's role checks, proposals (who proposed, who approves) and
// the audit log.
//
// Promises:
//   - An Actor is plain data (JSON), comparable, and makes no calls; this
//     package imports only the standard library.
//   - A human's Subject is stable for that person at the place they signed
//     in (an identity provider's issuer and subject, "break-glass" for the
//     admin credential, or "git:" and the e-mail of a git identity); the
//     name and e-mail are what the provider or git says and may change.
//   - From answers only what With put in the context: nothing a client
//     sends (a header, a clientInfo) becomes an Actor by itself.
//   - SamePerson is the one rule of "is this the same person": the same
//     Subject, or the same verified e-mail (a git identity's e-mail counts
//     as verified by whoever configured git on that machine; a provider's
//     only when it says email_verified), or, for actors with neither, the
//     same name.
package actor

import (
	"context"
	"strings"
)

// Kind is what sort of actor acts.
type Kind string

// The kinds of actor.
const (
	Human  Kind = "human"
	Agent  Kind = "agent"
	Vendor Kind = "vendor"
	Bridle Kind = "bridle" // Bridle itself: a scheduled sync, a start-up step
)

// Via is how a human was authenticated.
type Via string

// The ways a human is authenticated.
const (
	ViaOIDC       Via = "oidc"        // signed in through an OpenID Connect provider
	ViaAPIToken   Via = "api-token"   // a per-person API token
	ViaBreakGlass Via = "break-glass" // the gateway's admin credential
	ViaGit        Via = "git"         // the CLI, as git's identity names the user
)

// BreakGlassSubject is the Subject of whoever holds the admin credential.
const BreakGlassSubject = "break-glass"

// Actor is who acts.
type Actor struct {
	Kind Kind `json:"kind"`
	// Subject is a human's stable identifier (see the package comment).
	Subject string `json:"subject,omitempty"`
	// Name is a human's display name (for a provider, its
	// preferred_username), or the name of Bridle's own task.
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
	// EmailVerified: the provider vouches for Email (always true for git).
	EmailVerified bool `json:"email_verified,omitempty"`
	Via           Via  `json:"via,omitempty"`
	// Project, Agent and Session name an agent (Agent alone: a vendor's
	// agent profile).
	Project string `json:"project,omitempty"`
	Agent   string `json:"agent,omitempty"`
	Session string `json:"session,omitempty"`
}

// Person is a human authenticated via how, with subject as the place of
// sign-in knows them.
func Person(subject, name, email string, emailVerified bool, how Via) Actor {
	return Actor{Kind: Human, Subject: subject, Name: strings.TrimSpace(name), Email: strings.TrimSpace(email), EmailVerified: emailVerified, Via: how}
}

// BreakGlass is the holder of the admin credential, named by the
// configuration (name may be empty: no one is named).
func BreakGlass(name, email string) Actor {
	return Person(BreakGlassSubject, name, email, false, ViaBreakGlass)
}

// The subjects of git identities (Git): by e-mail, or by name without one.
const (
	gitSubject     = "git:"
	gitNameSubject = "git-name:"
)

// Git is the person git's identity names on this machine.
func Git(name, email string) Actor {
	subject := gitSubject + strings.ToLower(strings.TrimSpace(email))
	if strings.TrimSpace(email) == "" {
		subject = gitNameSubject + strings.TrimSpace(name)
	}
	return Person(subject, name, email, strings.TrimSpace(email) != "", ViaGit)
}

// SignedInSubject reports whether subject is a person's as their sign-in
// (an identity provider) knows them: not git's identity, not the admin
// credential's, not none.
func SignedInSubject(subject string) bool {
	return subject != "" && subject != BreakGlassSubject &&
		!strings.HasPrefix(subject, gitSubject) && !strings.HasPrefix(subject, gitNameSubject)
}

// AgentOf is agent of project in session.
func AgentOf(project, agent, session string) Actor {
	return Actor{Kind: Agent, Project: project, Agent: agent, Session: session}
}

// VendorOf is the vendor behind an agent profile's published guidance.
func VendorOf(agent string) Actor { return Actor{Kind: Vendor, Agent: agent} }

// Self is Bridle itself doing task (e.g. "scheduled vendor sync").
func Self(task string) Actor { return Actor{Kind: Bridle, Name: task} }

// IsZero reports whether a is no one.
func (a Actor) IsZero() bool { return a == Actor{} }

// IsHuman reports whether a is a person.
func (a Actor) IsHuman() bool { return a.Kind == Human }

// Named reports whether a can be recorded: a person with a name, an agent
// or vendor with its agent, Bridle with its task.
func (a Actor) Named() bool {
	switch a.Kind {
	case Human, Bridle:
		return strings.TrimSpace(a.Name) != ""
	case Agent, Vendor:
		return a.Agent != ""
	}
	return false
}

// String is how records name a: a person's name (and via, when it is the
// admin credential), "agent NAME", "vendor NAME", "bridle (TASK)".
func (a Actor) String() string {
	switch a.Kind {
	case Human:
		name := a.Name
		if name == "" {
			name = "an unnamed person"
		}
		if a.Via == ViaBreakGlass {
			return name + " (break-glass)"
		}
		return name
	case Agent:
		if a.Session != "" {
			return "agent " + a.Agent + " (session " + a.Session + ")"
		}
		return "agent " + a.Agent
	case Vendor:
		return "vendor " + a.Agent
	case Bridle:
		if a.Name != "" {
			return "bridle (" + a.Name + ")"
		}
		return "bridle"
	}
	return "no one"
}

// SamePerson reports whether a and b are one person (see the package
// comment). Actors that are not both human are never the same person.
func SamePerson(a, b Actor) bool {
	if !a.IsHuman() || !b.IsHuman() {
		return false
	}
	if a.Subject != "" && a.Subject == b.Subject && a.Subject != BreakGlassSubject {
		return true
	}
	if a.EmailVerified && b.EmailVerified && a.Email != "" && strings.EqualFold(a.Email, b.Email) {
		return true
	}
	// Names are what older records hold (and what the admin credential's
	// holder is known by): the same name is the same person.
	return a.Name != "" && strings.EqualFold(strings.TrimSpace(a.Name), strings.TrimSpace(b.Name))
}

type key struct{}

// With is ctx carrying a.
func With(ctx context.Context, a Actor) context.Context { return context.WithValue(ctx, key{}, a) }

// From is the actor ctx carries, and whether it carries one.
func From(ctx context.Context) (Actor, bool) {
	if ctx == nil {
		return Actor{}, false
	}
	a, ok := ctx.Value(key{}).(Actor)
	return a, ok
}

package panel

import (
	"github.com/bridle-dev/bridle/actor"
	"github.com/bridle-dev/bridle/gateway"
)

// SignInAs starts a session of person, as a sign-in through an identity
// provider does, and answers its cookie value (tests only).
func (p *Panel) SignInAs(person actor.Actor) string {
	return p.sessions.create("", person).id
}

// Route is one address the panel serves and the role it needs.
type Route struct {
	Pattern string
	Role    gateway.Role
	Public  bool
}

// Routes is every address the panel serves: its mux is built from the same
// table.
func (p *Panel) Routes() []Route {
	var out []Route
	for _, rt := range p.table() {
		out = append(out, Route{Pattern: rt.Pattern, Role: rt.Role, Public: rt.Public != nil})
	}
	return out
}

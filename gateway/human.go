package gateway

import (
	"fmt"
	"net/http"
	"strings"
)

// Human is the person the admin API acts for: whom a proposal, an
// approval, a rejection and a secret's commit are attributed to. Until
// sign-in through an identity provider exists it is one person per
// gateway, the configuration's admin.name (or --admin-name,
// BRIDLE_ADMIN_NAME, else the serving user's git identity, which
// bridle serve fills in). Every attribution goes through (*Server).human,
// the one place a per-request identity will replace.
type Human struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
	// From says where the name was read: flag, environment, configuration
	// or git.
	From string `json:"from,omitempty"`
	// Missing, with no name, says why actions attributed to a person
	// (propose, approve, reject, storing a secret) are refused and how
	// to fix it.
	Missing string `json:"missing,omitempty"`
}

// humanMissing is the refusal of an action that must be attributed to a
// person when no one is named.
const humanMissing = "actions are attributed to the human who makes them and this gateway does not know who you are: " +
	"restart it with --admin-name \"Your Name\" (or BRIDLE_ADMIN_NAME, or admin.name in the configuration), " +
	"or tell git your name for the user running it (git config --global user.name \"Your Name\")"

// human is who the request acts for; with no one named, Name is empty and
// Missing says why.
func (s *Server) human(*http.Request) Human {
	a := s.cfg.Admin
	if strings.TrimSpace(a.Name) == "" {
		return Human{Missing: humanMissing}
	}
	return Human{Name: strings.TrimSpace(a.Name), Email: strings.TrimSpace(a.Email), From: a.NameFrom}
}

// needHuman is the person r acts for, or the refusal to return when none
// is named.
func (s *Server) needHuman(r *http.Request) (Human, error) {
	h := s.human(r)
	if h.Name == "" {
		return h, fmt.Errorf("%w: %s", errBadRequest, h.Missing)
	}
	return h, nil
}

func (s *Server) getHuman(w http.ResponseWriter, r *http.Request) {
	s.ok(w, http.StatusOK, s.human(r))
}

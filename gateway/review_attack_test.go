package gateway

import (
	"errors"
	"testing"

	"github.com/bridle-dev/bridle/actor"
)

// These attacks came from a fresh-eyes review of sign-in and roles; each
// worked before its fix.

// Roles go by a name equal but for ASCII case: Unicode case folding would
// make "\u212Aate" (a Kelvin sign) and "\u017Fam" (a long s) kate and sam.
func TestRolesByNameNotByUnicodeFolding(t *testing.T) {
	a := AuthConfig{Roles: RolesConfig{Admin: []string{"kate", "sam"}}}
	for _, n := range []string{"\u212Aate", "\u017Fam", "kat", "katex"} {
		if got := a.RoleOf(actor.Person("iss|evil", n, "", false, actor.ViaOIDC)); got == RoleAdmin {
			t.Errorf("%q is admin", n)
		}
	}
	if got := a.RoleOf(actor.Person("iss|k", "KATE", "", false, actor.ViaOIDC)); got != RoleAdmin {
		t.Errorf("KATE is %q, not kate's admin", got)
	}
}

// A reload that reads an emptied or half-written file (an editor's
// truncate-then-write) is refused: break-glass stays off, the roles stay.
func TestReloadOfAnEmptyConfigurationIsRefused(t *testing.T) {
	g := twoProjects(t, func(c *Config, _ *Options) { c.Auth.BreakGlass = "off" })
	c, err := ParseConfig("bridle.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.srv.SetAuth(c.Auth); !errors.Is(err, ErrConfig) {
		t.Fatalf("SetAuth of an empty configuration: %v", err)
	}
	if code := g.api(t, adminToken, "GET", "/api/v1/projects", nil, nil); code == 200 {
		t.Errorf("break_glass off, then one reload of an empty file: the admin credential works again")
	}
}

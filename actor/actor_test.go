package actor

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSamePerson(t *testing.T) {
	alice := Person("https://gitea.example|7", "alice", "alice@example.org", true, ViaOIDC)
	tests := []struct {
		name string
		a, b Actor
		want bool
	}{
		{"one subject", alice, Person("https://gitea.example|7", "alice2", "", false, ViaOIDC), true},
		{"verified e-mail across git and the provider", alice, Git("Alice Liddell", "Alice@Example.org"), true},
		{"an unverified provider e-mail is not enough", Person("https://idp|9", "mallory", "alice@example.org", false, ViaOIDC), Git("Alice", "alice@example.org"), false},
		{"another subject, another e-mail", alice, Person("https://gitea.example|8", "bob", "bob@example.org", true, ViaOIDC), false},
		{"the same name (older records hold names only)", Person("", "Alice", "", false, ""), alice, true},
		{"break-glass holders are told apart by name", BreakGlass("Ann", ""), BreakGlass("Bob", ""), false},
		{"an agent is no person", AgentOf("p", "alice", "s"), alice, false},
		{"no one is no one", Actor{}, Actor{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SamePerson(tt.a, tt.b); got != tt.want {
				t.Errorf("SamePerson(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
			if got := SamePerson(tt.b, tt.a); got != tt.want {
				t.Errorf("SamePerson is not symmetric for %v, %v", tt.a, tt.b)
			}
		})
	}
}

func TestContext(t *testing.T) {
	if _, ok := From(context.Background()); ok {
		t.Fatal("an empty context carries an actor")
	}
	a := AgentOf("web", "claude", "s1")
	got, ok := From(With(context.Background(), a))
	if !ok || got != a {
		t.Fatalf("From(With(a)) = %v, %v", got, ok)
	}
}

func TestString(t *testing.T) {
	for a, want := range map[Actor]string{
		BreakGlass("Mira", ""):                 "Mira (break-glass)",
		Person("s", "bob", "", false, ViaOIDC): "bob",
		AgentOf("p", "codex", "s9"):            "agent codex (session s9)",
		VendorOf("claude"):                     "vendor claude",
		Self("scheduled vendor sync"):          "bridle (scheduled vendor sync)",
		{}:                                     "no one",
		Person("s", "", "", false, ViaOIDC):    "an unnamed person",
	} {
		if got := a.String(); got != want {
			t.Errorf("%#v.String() = %q, want %q", a, got, want)
		}
	}
}

func TestJSON(t *testing.T) {
	a := Person("iss|1", "alice", "a@x", true, ViaOIDC)
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var back Actor
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(a, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// TestSignedInSubject: only a provider's subject is a signed-in person's.
func TestSignedInSubject(t *testing.T) {
	for subject, want := range map[string]bool{
		"oidc:https://gitea.example|7":        true,
		Git("Ann", "ann@example.org").Subject: false,
		Git("Ann", "").Subject:                false,
		BreakGlass("Mira", "").Subject:        false,
		"":                                    false,
	} {
		if got := SignedInSubject(subject); got != want {
			t.Errorf("SignedInSubject(%q) = %v, want %v", subject, got, want)
		}
	}
}

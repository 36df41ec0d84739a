package giteatest

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	code := m.Run()
	StopShared()
	os.Exit(code)
}

func TestStarts(t *testing.T) {
	s := Shared(t)
	var v struct{ Version string }
	if err := s.Do("GET", "/api/v1/version", s.AdminToken, nil, &v); err != nil || v.Version != "1.26.0" {
		t.Fatalf("version %q: %v", v.Version, err)
	}
	tok := s.CreateUser(t, "alice")
	var me struct{ Login string }
	if err := s.Do("GET", "/api/v1/user", tok, nil, &me); err != nil || me.Login != "alice" {
		t.Fatalf("alice: %+v %v", me, err)
	}
}

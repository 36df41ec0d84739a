package panel

import (
	"testing"
	"time"
)

// TestCLICodesExpireAndAreTakenOnce: a code is good for cliCodeTTL, once;
// the store refuses new codes when full rather than drop waiting ones.
func TestCLICodesExpireAndAreTakenOnce(t *testing.T) {
	now := time.Unix(1e9, 0)
	s := &cliCodes{now: func() time.Time { return now }, byHash: map[string]cliCode{}}
	code := s.add(cliCode{challenge: "c"})
	if _, ok := s.take(code); !ok {
		t.Fatal("a fresh code is refused")
	}
	if _, ok := s.take(code); ok {
		t.Error("a code is taken twice")
	}
	code = s.add(cliCode{challenge: "c"})
	now = now.Add(cliCodeTTL + time.Second)
	if _, ok := s.take(code); ok {
		t.Error("an expired code is taken")
	}
	for range maxCLICodes {
		if s.add(cliCode{}) == "" {
			t.Fatal("refused before full")
		}
	}
	if s.add(cliCode{}) != "" {
		t.Error("a full store takes one more")
	}
	now = now.Add(cliCodeTTL + time.Second)
	if s.add(cliCode{}) == "" {
		t.Error("expired codes still fill the store")
	}
}

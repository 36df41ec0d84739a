package lazyregexp

import (
	"regexp"
	"sync"
	"testing"
)

func TestSameAsRegexp(t *testing.T) {
	const expr = `^([a-z]+)-(?P<n>[0-9]{1,3})$`
	lazy, eager := New(expr), regexp.MustCompile(expr)
	for _, s := range []string{"abc-12", "abc-1234", "", "x-9"} {
		if got, want := lazy.MatchString(s), eager.MatchString(s); got != want {
			t.Errorf("MatchString(%q) = %v, want %v", s, got, want)
		}
		if got, want := lazy.FindStringSubmatch(s), eager.FindStringSubmatch(s); len(got) != len(want) {
			t.Errorf("FindStringSubmatch(%q) = %q, want %q", s, got, want)
		}
	}
	if got := lazy.ReplaceAllString("ab-7", "$n"); got != "7" {
		t.Errorf("ReplaceAllString = %q, want 7", got)
	}
	if lazy.String() != expr || lazy.SubexpIndex("n") != 2 {
		t.Errorf("String = %q, SubexpIndex(n) = %d", lazy.String(), lazy.SubexpIndex("n"))
	}
}

// TestCompilesOnFirstUse: outside a test binary New compiles nothing; the
// first use compiles once, whichever goroutine gets there first (-race).
func TestCompilesOnFirstUse(t *testing.T) {
	r := &Regexp{str: `a{1,50}b`} // as New makes it outside tests
	if r.rx != nil {
		t.Fatal("compiled before use")
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { r.MatchString("aab") })
	}
	wg.Wait()
	if r.rx == nil || !r.MatchString("aaab") {
		t.Fatal("not compiled by first use")
	}
}

// TestBadPatternPanicsInTests: in a test binary a bad pattern fails at New,
// in the tests of the package that declares it.
func TestBadPatternPanicsInTests(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("New(`(`) did not panic in a test binary")
		}
	}()
	New(`(`)
}

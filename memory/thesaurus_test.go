package memory

import (
	"slices"
	"testing"
)

// TestExpand: the words people use reach the words code uses, query words
// are not repeated, and the same query always expands the same way.
func TestExpand(t *testing.T) {
	for _, c := range []struct {
		query string
		want  []string // among the expansions
		not   []string // never among them
	}{
		{"returning pictures from a tool", []string{"image"}, []string{"picture", "tool"}},
		{"hooking into every request", []string{"middleware"}, []string{"hook"}},
		{"a folder of files", []string{"dir"}, []string{"folder"}},
		{"image", nil, []string{"image"}},
	} {
		got := Expand(c.query)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("Expand(%q) = %v, lacks %q", c.query, got, w)
			}
		}
		for _, w := range c.not {
			if slices.Contains(got, w) {
				t.Errorf("Expand(%q) = %v, has %q", c.query, got, w)
			}
		}
		if again := Expand(c.query); !slices.Equal(got, again) {
			t.Errorf("Expand(%q) not deterministic: %v, %v", c.query, got, again)
		}
	}
}

// FuzzExpand: any query expands without panicking, deterministically, and
// never repeats one of its own words.
func FuzzExpand(f *testing.F) {
	for _, s := range []string{"returning pictures or sound from a tool", "hooking", "ies", "stopped", "ß_ÄÖ camelCaseHTTP", "", "ssss", "\x00ed"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		got := Expand(q)
		if !slices.Equal(got, Expand(q)) {
			t.Fatalf("Expand(%q) not deterministic", q)
		}
		own := Stems(q)
		for _, e := range got {
			if slices.Contains(own, e) {
				t.Fatalf("Expand(%q) repeats %q", q, e)
			}
		}
	})
}

package feed

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDuplicate(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		// the same normalised words
		{"Never commit secrets.", "never   commit SECRETS!", true},
		{"Don't push to main.", "Do not push to `main`.", true},
		{`\* Always approve.`, "Always approve", true},
		{"Run the tests.", "Run tests", true}, // stop words
		// Jaccard at the threshold: 4 shared of 5 = 0.8
		{"Always run the unit tests.", "Always run unit tests first.", true},
		// just below it: 3 shared of 4 = 0.75, and 3 of 5 = 0.6
		{"Always run tests first.", "Always run tests.", false},
		{"Always run unit tests.", "Always run integration tests.", false},
		// polarity: a negation always makes another rule
		{"Do not push directly to the main branch without a review.", "Do push directly to the main branch without a review.", false},
		{"Never commit secrets.", "Always commit secrets.", false},
		{"Avoid global state.", "Use global state.", false},
		{"", "", true},
		{"", "Never.", false},
	} {
		if got := Duplicate(tc.a, tc.b); got != tc.want {
			t.Errorf("Duplicate(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := Duplicate(tc.b, tc.a); got != tc.want {
			t.Errorf("Duplicate(%q, %q) = %v, want %v (not symmetric)", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestDedupe(t *testing.T) {
	cands := Extract([]Block{
		p("Never commit secrets."), p("Always run the unit tests."), p("Always run unit tests first."),
		p("Prefer small commits."), p("Do not force-push."),
	})
	existing := []string{"never commit secrets", "Don't force push."}
	var got []string
	for _, c := range Dedupe(cands, existing) {
		got = append(got, c.Statement)
	}
	want := []string{"Always run the unit tests.", "Prefer small commits."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fresh (-want +got):\n%s", diff)
	}
	if fresh := Dedupe(nil, existing); fresh != nil {
		t.Errorf("Dedupe(nil) = %v", fresh)
	}
}

func TestWithdrawn(t *testing.T) {
	blocks, _ := Normalise([]byte("# Rules\n\n- Never commit secrets!\n- Always run the unit tests first.\n- Prefer small commits.\n"), Markdown)
	doc := Document{Text: Text(blocks)}
	earlier := []string{
		"Never commit secrets.",        // still there
		"Always run the unit tests.",   // a near-duplicate is there
		"Avoid global state.",          // gone
		"Prefer small commits.",        // still there
		"Do not prefer small commits.", // the opposite is there, not it
	}
	if diff := cmp.Diff([]int{2, 4}, Withdrawn(earlier, doc)); diff != "" {
		t.Errorf("withdrawn (-want +got):\n%s", diff)
	}
	if got := Withdrawn(earlier, Document{NotModified: true, Hash: "abc"}); got != nil {
		t.Errorf("a 304 withdrew %v", got)
	}
	if diff := cmp.Diff([]int{0, 1, 2, 3, 4}, Withdrawn(earlier, Document{})); diff != "" {
		t.Errorf("an empty document (-want +got):\n%s", diff)
	}
}

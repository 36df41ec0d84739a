package panel_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A browser step that clicks must wait for what its click brings, never
// for a selector the page it leaves may also show (a flash, a table): on a
// busy machine the old page answers first. So every click goes through
// submit (a click that navigates: the old page is marked, and only an
// unmarked page counts) or unfold (a <details> on the same page); a bare
// chromedp.Click anywhere else in the browser tests fails this test.
func TestBrowserClicksWaitForTheirPage(t *testing.T) {
	files, _ := filepath.Glob("*_test.go")
	click := regexp.MustCompile(`chromedp\.Click\(`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		inHelper := false
		for i, line := range lines {
			if strings.HasPrefix(line, "func ") {
				inHelper = strings.HasPrefix(line, "func submit(") || strings.HasPrefix(line, "func unfold(")
			}
			if click.MatchString(line) && !inHelper && f != "browsersteps_test.go" {
				t.Errorf("%s:%d: a bare chromedp.Click: use submit(sel, what the new page shows) or unfold(summary, field)", f, i+1)
			}
		}
	}
}

package feed

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/bridle-dev/bridle/internal/mdsafe"
)

// FuzzExtract normalises hostile markdown or HTML and extracts from it: no
// panic, text bounded by the input, ParseText(Text(blocks)) == blocks, at
// most MaxCandidates candidates, each one-line and markdown-inert with a
// unique slug ID, and the same output twice.
//
//	go test ./feed -run '^$' -fuzz FuzzExtract -fuzztime 20000x
func FuzzExtract(f *testing.F) {
	files, _ := filepath.Glob("testdata/extract/*.txtar")
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, fl := range ar.Files {
			if strings.HasPrefix(fl.Name, "input.") {
				f.Add(string(fl.Data), fl.Name == "input.html")
			}
		}
	}
	for _, s := range []string{
		"- Never `a` b\n  - always ``c`d``\n", "<ul><li>You must<ol><li>never</ol>", "You must \x00 \u202e\n\n# x\r\n",
		"| a |\n|---|\n| Never `x` |\n", "> > > - Always quote\n", "<table><td>Avoid <code>x</code> y</td></table>",
		strings.Repeat("<div>", 600) + "Never nest", strings.Repeat("> ", 600) + "Never nest",
		"Always \\`tick` and `` ` `` too. Never <!-- x", "You must 1. Always - Never # x",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, src string, isHTML bool) {
		format := Markdown
		if isHTML {
			format = HTML
		}
		blocks, err := Normalise([]byte(src), format)
		if errors.Is(err, ErrTooDeep) && isHTML {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		text := Text(blocks)
		if len(text) > 4*len(src)+64 {
			t.Fatalf("%d bytes of text from %d of input", len(text), len(src))
		}
		for _, b := range blocks {
			if b.Text == "" || strings.ContainsAny(b.Text, "\n\r") {
				t.Fatalf("block text %q", b.Text)
			}
			if _, i := mdsafe.FirstBadChar(b.Text, false); i >= 0 {
				t.Fatalf("block text %q holds a refused character", b.Text)
			}
		}
		if diff := cmp.Diff(blocks, ParseText(text), cmp.Comparer(pathEqual)); diff != "" {
			t.Fatalf("ParseText(Text(blocks)) (-want +got):\n%s", diff)
		}
		cands := Extract(blocks)
		if len(cands) > MaxCandidates {
			t.Fatalf("%d candidates", len(cands))
		}
		ids := map[string]bool{}
		for _, c := range cands {
			checkCandidate(t, c)
			if ids[c.ID] {
				t.Fatalf("ID %s twice", c.ID)
			}
			ids[c.ID] = true
		}
		if diff := cmp.Diff(cands, Extract(blocks)); diff != "" {
			t.Fatalf("two extractions differ:\n%s", diff)
		}
		_ = Dedupe(cands, []string{src})
	})
}

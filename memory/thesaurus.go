package memory

import (
	_ "embed" // the thesaurus table
	"slices"
	"strings"
	"sync"
)

//go:generate go run ./internal/genthesaurus -seed internal/genthesaurus/programming.txt -o thesaurus.txt

// thesaurusText maps words people use to the words code uses for the same
// thing ("picture: image"). It is generated from WordNet and a short
// programming table by internal/genthesaurus; never edit it by hand.
//
//go:embed thesaurus.txt
var thesaurusText string

// thesaurus is the parsed table, keyed by stem; built at first use.
var thesaurus = sync.OnceValue(func() map[string][]string {
	t := map[string][]string{}
	for _, l := range strings.Split(thesaurusText, "\n") {
		if l == "" || l[0] == '#' {
			continue
		}
		w, exp, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		k := stem(strings.TrimSpace(w))
		for _, e := range strings.Fields(exp) {
			for _, s := range Stems(e) {
				if s != k && !slices.Contains(t[k], s) {
					t[k] = append(t[k], s)
				}
			}
		}
	}
	return t
})

// Expand returns the stems the thesaurus adds to query's (query words are
// not repeated), in a fixed order: what a search also asks for, at a lower
// weight, so that "returning pictures" also finds ImageContent.
func Expand(query string) []string {
	own := Stems(query)
	var out []string
	th := thesaurus()
	for _, s := range own {
		for _, e := range th[s] {
			if !slices.Contains(own, e) && !slices.Contains(out, e) {
				out = append(out, e)
			}
		}
	}
	return out
}

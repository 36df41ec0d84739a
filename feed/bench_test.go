package feed

import (
	"fmt"
	"strings"
	"testing"
)

// bigGuide is a synthetic guide near the fetch cap (2 MiB): sections of
// prose, rules in lists and sentences, and code blocks.
func bigGuide(format Format) []byte {
	var b strings.Builder
	for i := 0; b.Len() < DefaultMaxBytes-4096; i++ {
		if format == HTML {
			fmt.Fprintf(&b, "<h2>Section %d</h2><p>This part explains widgets. You should check widget %d before lunch.</p><ul><li>Always label widget %d.</li><li>Never drop widget %d.</li></ul><pre>go test ./...</pre>\n", i, i, i, i)
			continue
		}
		fmt.Fprintf(&b, "## Section %d\n\nThis part explains widgets. You should check widget %d before lunch.\n\n- Always label widget %d.\n- Never drop widget %d.\n\n```\ngo test ./...\n```\n\n", i, i, i, i)
	}
	return []byte(b.String())
}

// BenchmarkNormaliseExtract is a sync's work on one document at the size
// cap: normalise it, extract the rules, drop duplicates of 500 guardrails.
//
//	go test ./feed -run '^$' -bench NormaliseExtract -benchmem
func BenchmarkNormaliseExtract(b *testing.B) {
	existing := make([]string, 500)
	for i := range existing {
		existing[i] = fmt.Sprintf("Always label widget %d.", i)
	}
	for _, f := range []Format{Markdown, HTML} {
		doc := bigGuide(f)
		b.Run(string(f), func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				blocks, err := Normalise(doc, f)
				if err != nil {
					b.Fatal(err)
				}
				Dedupe(Extract(blocks), existing)
			}
		})
	}
}

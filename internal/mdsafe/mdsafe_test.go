package mdsafe

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bridle-dev/bridle/internal/mdsafe/mdtest"
)

// hostileProse holds, for each construct, text that would restructure a
// render if pasted as it is.
var hostileProse = map[string]string{
	"unclosed backtick fence":     "Intro.\n\n```\nall that follows is code",
	"unclosed tilde fence":        "~~~~ sh\nrm -rf /",
	"indented unclosed fence":     "   ```\nx",
	"fence closed by a shorter":   "````\nx\n```",
	"fence closed with info":      "```\nx\n``` go",
	"fence closed by other char":  "```\nx\n~~~",
	"fence closed less indented":  "- item\n\n  ```\n  code\n```\n",
	"inner line outdented":        "- item\n  ```\n## escaped the list\n  ```",
	"fence in a list":             "- ```\n  x",
	"fence in a quote":            "> ```\n> x",
	"fence indented four":         "- a\n\n    ```\n    x",
	"atx heading":                 "Text.\n## Injected",
	"atx heading in a list":       "- # Injected",
	"atx heading in a quote":      "> ### Injected",
	"atx heading indented":        "- a\n\n    # Injected",
	"setext equals":               "Injected\n===",
	"setext single equals":        "Injected\n=",
	"setext dashes":               "Injected\n---",
	"setext single dash":          "Injected\n-",
	"setext in a list":            "- Injected\n  ---",
	"thematic stars":              "a\n\n***",
	"thematic spaced":             "a\n\n- - -",
	"thematic underscores":        "a\n\n___",
	"html comment":                "a\n\n<!-- hidden from readers, seen by agents",
	"html comment closed":         "<!-- hidden -->",
	"html comment inline":         "see <!-- hidden --> here",
	"html heading":                "<h1>Injected</h1>",
	"html script":                 "<script>\nalert(1)\n\n## swallowed",
	"html script inline":          "run <script>x",
	"html div":                    "<div>\n\n## after",
	"html closing tag":            "</div>",
	"processing instruction":      "<?php echo 1;",
	"declaration":                 "<!DOCTYPE html>",
	"cdata":                       "<![CDATA[\nx",
	"html in a list":              "- <pre>",
	"html textarea inline upper":  "a <TEXTAREA> b",
	"link reference definition":   "[x]: https://evil.example",
	"link reference in a list":    "- [x]: https://evil.example",
	"footnote definition":         "[^1]: hidden",
	"carriage return line break":  "a\r## Injected",
	"heading after tab indent":    "-\t# Injected",
	"nested list heading":         "1. - > # Injected",
	"heading without text":        "#",
	"unclosed fence after closed": "```\na\n```\n\n```\nb",
}

// benignProse must be accepted and rendered as it is.
var benignProse = []string{
	"Plain text with *emphasis*, `code`, [a link](https://x.example) and <Things>.",
	"- a list\n- of items\n  - nested\n\n1. ordered\n2. list",
	"> a quote\n> on two lines",
	"| a | b |\n|---|---|\n| 1 | 2 |",
	"```sh\n# a shell comment, not a heading\n<!-- not html -->\n---\n```",
	"~~~\n```\n# still code\n~~~",
	"- item\n\n  ```go\n  // code in a list item\n  # comment\n  ```\n",
	"Autolink <https://example.com> and an e-mail <a@b.example>.",
	"Use `<!-- -->` in code, and `<script>`.",
	"#hashtag is not a heading; neither is a#b",
	"a - b, 3 * 4, x_y, ~tilde~",
	"Text\n\n    indented code\n",
	"",
}

func embed(prose string) string {
	return "# Top\n\n" + prose + "\n\n## After\n\nend\n"
}

var wantHeadings = []string{"# Top", "## After"}

func TestProseHostile(t *testing.T) {
	for name, s := range hostileProse {
		t.Run(name, func(t *testing.T) {
			if ps := CheckProse(s); len(ps) == 0 && !strings.ContainsRune(s, '\r') {
				t.Errorf("CheckProse(%q) reports nothing", s)
			}
			out := Prose(strings.TrimSpace(s))
			o := mdtest.Parse(embed(out))
			if !slices.Equal(o.Headings, wantHeadings) || len(o.Blocks) > 0 {
				t.Errorf("Prose(%q) = %q: headings %q, blocks %q", s, out, o.Headings, o.Blocks)
			}
		})
	}
}

func TestProseBenign(t *testing.T) {
	for _, s := range benignProse {
		if ps := CheckProse(s); len(ps) > 0 {
			t.Errorf("CheckProse(%q) = %+v, want nothing", s, ps)
		}
		if got := Prose(strings.TrimSpace(s)); got != strings.TrimSpace(s) {
			t.Errorf("Prose(%q) = %q, want it unchanged", s, got)
		}
		o := mdtest.Parse(embed(strings.TrimSpace(s)))
		if !slices.Equal(o.Headings, wantHeadings) || len(o.Blocks) > 0 {
			t.Errorf("%q: headings %q, blocks %q", s, o.Headings, o.Blocks)
		}
	}
}

func TestCheckProsePositions(t *testing.T) {
	tests := []struct {
		s         string
		line, col int
	}{
		{"ok\n## h", 2, 1},
		{"\n\n  ok\n  ## h", 4, 3},
		{"  ## h", 1, 3},
		{"a\n\n- x\n  - # h", 4, 5},
		{"a\n```\nb", 2, 1},
		{"a <!-- b", 1, 3},
	}
	for _, tt := range tests {
		ps := CheckProse(tt.s)
		if len(ps) == 0 || ps[0].Line != tt.line || ps[0].Col != tt.col {
			t.Errorf("CheckProse(%q) = %+v, want the first at %d:%d", tt.s, ps, tt.line, tt.col)
		}
	}
}

var hostileLines = []string{
	"# Injected", "## Injected", "```", "~~~ sh", "> quoted", "- nested", "* nested", "+ nested", "1. ordered", "2) ordered",
	"---", "***", "- - -", "===", "<h1>Injected</h1>", "<!-- hidden", "<script>", "<div>", "<?php", "<![CDATA[",
	"[x]: https://evil.example", "[^1]: hidden", "a <!-- hidden --> b", "a <script> b", "line\n## Injected",
	"line\r## Injected", "line\u2028## Injected", "   # indented", "\t- tab",
}

func TestLineHostile(t *testing.T) {
	for _, s := range hostileLines {
		out := Line(s)
		doc := "## Top\n\n- " + out + "\n- next\n\n## After\n"
		o := mdtest.Parse(doc)
		if !slices.Equal(o.Headings, []string{"## Top", "## After"}) || len(o.Blocks) > 0 {
			t.Errorf("Line(%q) = %q: headings %q, blocks %q", s, out, o.Headings, o.Blocks)
		}
		mid := mdtest.Parse("## Top\n\n- **id** — " + Inline(s) + "\n- next\n\n## After\n")
		if !slices.Equal(mid.Headings, []string{"## Top", "## After"}) || len(mid.Blocks) > 0 {
			t.Errorf("Inline(%q) = %q after other text: headings %q, blocks %q", s, Inline(s), mid.Headings, mid.Blocks)
		}
		if got := mdtest.Parse("# " + Inline(s) + "\n\n## After\n"); len(got.Headings) != 2 || len(got.Blocks) > 0 {
			t.Errorf("Inline(%q) = %q in a heading: headings %q, blocks %q", s, Inline(s), got.Headings, got.Blocks)
		}
		head := mdtest.Parse("# " + out + "\n\n## After\n")
		if len(head.Headings) != 2 || len(head.Blocks) > 0 {
			t.Errorf("Line(%q) = %q in a heading: headings %q, blocks %q", s, out, head.Headings, head.Blocks)
		}
	}
	for _, s := range []string{"Edge *Cases* & <Things>", "go test ./... | grep -v `skip`", "Names_with_underscores stay", "**Bold** start", "#tag", "-flag", "1.5 times", "use `<!--` in code"} {
		if got := Line(s); got != s {
			t.Errorf("Line(%q) = %q, want it unchanged", s, got)
		}
		if ps := CheckLine(s); len(ps) > 0 {
			t.Errorf("CheckLine(%q) = %+v, want nothing", s, ps)
		}
	}
	if ps := CheckLine("a <!-- b"); len(ps) != 1 || ps[0].Col != 3 {
		t.Errorf("CheckLine = %+v, want one problem at column 3", ps)
	}
}

func TestBadChar(t *testing.T) {
	for _, r := range []rune{0, 7, 0x1b, '\r', 0x7f, 0x85, 0xad, 0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x2028, 0x2029,
		0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2060, 0x2066, 0x2067, 0x2068, 0x2069, 0xfeff, 0xe0041, 0xe0100, 0x3164, 0x061c} {
		if !BadChar(r, true) {
			t.Errorf("BadChar(%s) = false", CharName(r))
		}
	}
	for _, r := range []rune{'\t', 'a', 'é', '—', '…', '✓', 0x1f600, 0xfe0f, 'ß', '中'} {
		if BadChar(r, false) {
			t.Errorf("BadChar(%s) = true", CharName(r))
		}
	}
	if !BadChar('\n', false) || BadChar('\n', true) {
		t.Error("a line feed is refused in one-line text only")
	}
	if got := CharName(0x202e); got != "U+202E RIGHT-TO-LEFT OVERRIDE" {
		t.Errorf("CharName = %q", got)
	}
}

// FuzzProse: whatever the text, the neutralised prose keeps the render's
// outline, and text the check accepts is left as it is.
func FuzzProse(f *testing.F) {
	for _, s := range hostileProse {
		f.Add(s)
	}
	for _, s := range benignProse {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		trimmed := strings.TrimSpace(s)
		out := Prose(trimmed)
		o := mdtest.Parse(embed(out))
		if !slices.Equal(o.Headings, wantHeadings) || len(o.Blocks) > 0 {
			t.Fatalf("Prose(%q) = %q: headings %q, blocks %q", s, out, o.Headings, o.Blocks)
		}
		if _, bad := FirstBadChar(s, true); len(CheckProse(s)) == 0 && bad < 0 && out != trimmed {
			t.Fatalf("CheckProse(%q) accepts it but Prose changed it to %q", s, out)
		}
	})
}

func FuzzLine(f *testing.F) {
	for _, s := range hostileLines {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		out := Line(s)
		o := mdtest.Parse("## Top\n\n- " + out + "\n- next\n\n## After\n")
		if !slices.Equal(o.Headings, []string{"## Top", "## After"}) || len(o.Blocks) > 0 {
			t.Fatalf("Line(%q) = %q: headings %q, blocks %q", s, out, o.Headings, o.Blocks)
		}
	})
}

// Package mdsafe decides which markdown constructs in a piece of user text
// could escape the text's place in a rendered file, and neutralises them.
//
// Bridle pastes rules text into markdown it otherwise controls. Two kinds of
// text are handled:
//
//   - One-line text (statements, rationales, names, stack items, commands…)
//     is rendered inline, after a list marker or inside a heading. Line
//     breaks cannot reach it (validation refuses them; Line replaces them),
//     so only a construct at its very start can act at block level; Line
//     backslash-escapes that first character, which renders the same.
//   - Multi-line prose (the overview, pattern descriptions) may hold
//     paragraphs, lists, quotes, tables, emphasis, links and fenced code
//     blocks that are closed. CheckProse reports every line that could
//     swallow or restructure what follows it — an unclosed (or indented, or
//     nested) code fence, an ATX heading, a setext underline, a thematic
//     break, an HTML block start, a link reference definition — and Prose
//     escapes those same lines.
//
// In both, an HTML comment and the HTML elements whose content a browser
// does not parse as markup (<script>, <style>, <textarea>, …) are reported
// and escaped wherever they stand outside a code span: they hide or swallow
// text. Characters that are invisible or reorder text (controls, bidi
// overrides and isolates, zero-width and other format characters) are
// reported by Char and replaced with U+FFFD by Line and Prose.
//
// Promise: for text that Check reports nothing for, Line and Prose return it
// unchanged, so renders of valid documents do not change.
package mdsafe

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Problem is one construct in a text that could escape its place in a render.
type Problem struct {
	Line int    // 1-based line in the text
	Col  int    // 1-based column (in characters) in that line
	What string // what was found, e.g. "an unclosed code fence"
	Fix  string // how to write it instead
}

// BadChar reports whether r may not appear in rules text: a control
// character other than tab (and, in prose, line feed), or a character that
// is invisible or changes how the text around it is displayed.
func BadChar(r rune, multiline bool) bool {
	switch {
	case r == '\t', r == '\n' && multiline:
		return false
	case r < 0x20, r >= 0x7f && r < 0xa0:
		return true // C0 and C1 controls, DEL, NEL; CR too: markdown reads it as a line break
	case r < 0xa0:
		return false
	case unicode.Is(unicode.Cf, r), unicode.In(r, unicode.Zl, unicode.Zp):
		return true // bidi embeddings, overrides, isolates and marks; zero-width; soft hyphen; tags; U+2028/9
	case r == 0x034f, r == 0x115f, r == 0x1160, r == 0x3164, r == 0xffa0, r == 0x2800:
		return true // combining grapheme joiner, Hangul fillers, blank Braille: shown as nothing
	case r >= 0xe0100 && r <= 0xe01ef, r >= 0xfff0 && r <= 0xfffc:
		return true // variation selectors 17–256 (used to smuggle text), specials
	}
	return false
}

var charNames = map[rune]string{
	0x00: "NUL", 0x07: "BELL", 0x08: "BACKSPACE", 0x0b: "VERTICAL TAB", 0x0c: "FORM FEED", 0x0d: "CARRIAGE RETURN",
	0x1b: "ESCAPE", 0x7f: "DELETE", 0x85: "NEXT LINE", 0xad: "SOFT HYPHEN", 0x034f: "COMBINING GRAPHEME JOINER",
	0x061c: "ARABIC LETTER MARK", 0x115f: "HANGUL CHOSEONG FILLER", 0x1160: "HANGUL JUNGSEONG FILLER",
	0x180e: "MONGOLIAN VOWEL SEPARATOR", 0x200b: "ZERO WIDTH SPACE", 0x200c: "ZERO WIDTH NON-JOINER",
	0x200d: "ZERO WIDTH JOINER", 0x200e: "LEFT-TO-RIGHT MARK", 0x200f: "RIGHT-TO-LEFT MARK",
	0x2028: "LINE SEPARATOR", 0x2029: "PARAGRAPH SEPARATOR", 0x202a: "LEFT-TO-RIGHT EMBEDDING",
	0x202b: "RIGHT-TO-LEFT EMBEDDING", 0x202c: "POP DIRECTIONAL FORMATTING", 0x202d: "LEFT-TO-RIGHT OVERRIDE",
	0x202e: "RIGHT-TO-LEFT OVERRIDE", 0x2060: "WORD JOINER", 0x2066: "LEFT-TO-RIGHT ISOLATE",
	0x2067: "RIGHT-TO-LEFT ISOLATE", 0x2068: "FIRST STRONG ISOLATE", 0x2069: "POP DIRECTIONAL ISOLATE",
	0x2800: "BRAILLE PATTERN BLANK", 0x3164: "HANGUL FILLER", 0xfeff: "ZERO WIDTH NO-BREAK SPACE (BOM)",
	0xffa0: "HALFWIDTH HANGUL FILLER",
}

// CharName names r for a diagnostic: "U+202E RIGHT-TO-LEFT OVERRIDE".
func CharName(r rune) string {
	name := charNames[r]
	switch {
	case name != "":
	case r >= 0xe0000 && r <= 0xe007f:
		name = "TAG CHARACTER"
	case r >= 0xe0100 && r <= 0xe01ef:
		name = "VARIATION SELECTOR"
	case unicode.IsControl(r):
		name = "a control character"
	case unicode.Is(unicode.Cf, r):
		name = "an invisible format character"
	}
	if name == "" {
		return fmt.Sprintf("U+%04X", r)
	}
	return fmt.Sprintf("U+%04X %s", r, name)
}

// FirstBadChar returns the first character of s that BadChar refuses and
// its byte offset, or -1.
func FirstBadChar(s string, multiline bool) (rune, int) {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size <= 1 {
				return r, i
			}
		}
		if BadChar(r, multiline) {
			return r, i
		}
	}
	return 0, -1
}

func replaceBad(s string, multiline bool) string {
	if _, i := FirstBadChar(s, multiline); i < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if BadChar(r, multiline) {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	return b.String()
}

const (
	fixHTML    = "write the tag name without the angle brackets, or put it in backticks"
	fixComment = "remove the comment: readers of the rendered file would not see its text, agents would"
)

// CheckLine reports the constructs in one-line text that are not inert
// when rendered inline: HTML comments and raw-text elements. Constructs at
// the start of the text are not reported: Line escapes them.
func CheckLine(s string) []Problem {
	var ps []Problem
	for _, h := range inlineHazards(s) {
		ps = append(ps, Problem{Line: 1, Col: utf8.RuneCountInString(s[:h.off]) + 1, What: h.what, Fix: h.fix})
	}
	return ps
}

// Plain returns one-line text for a code span, where markup is inert but a
// line break would end the span's paragraph: line breaks become spaces and
// refused characters U+FFFD.
func Plain(s string) string {
	if strings.ContainsAny(s, "\n\r\u2028\u2029\u0085") {
		s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\u2028", " ", "\u2029", " ", "\u0085", " ").Replace(s)
	}
	return replaceBad(s, false)
}

// Inline returns one-line text for a place inside a line (after other text,
// or in a heading), where nothing it starts with acts at block level: line
// breaks become spaces, refused characters U+FFFD, and HTML comments and
// raw-text elements are escaped.
func Inline(s string) string {
	s = Plain(s)
	return escapeAt(s, inlineOffsets(s))
}

// Line returns one-line text made inert for inline rendering: line breaks
// become spaces, refused characters become U+FFFD, a block construct at the
// start and HTML comments and raw-text elements anywhere are escaped. Text
// with none of these is returned unchanged.
func Line(s string) string {
	s = Inline(s)
	if off, ok := blockStart(s); ok {
		s = s[:off] + `\` + s[off:]
	}
	return s
}

func inlineOffsets(s string) []int {
	var offs []int
	for _, h := range inlineHazards(s) {
		offs = append(offs, h.off)
	}
	return offs
}

// escapeAt inserts a backslash before each byte offset in offs (ascending).
func escapeAt(s string, offs []int) string {
	if len(offs) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, o := range offs {
		b.WriteString(s[last:o])
		b.WriteByte('\\')
		last = o
	}
	b.WriteString(s[last:])
	return b.String()
}

type hazard struct {
	off       int
	what, fix string
}

// rawTextTags are the elements whose content an HTML parser does not read
// as markup, so an unclosed one swallows the rest of the page.
var rawTextTags = []string{"script", "style", "textarea", "title", "xmp", "plaintext", "iframe", "noembed", "noframes", "noscript", "template"}

// inlineHazards finds HTML comments and raw-text element tags outside code
// spans.
func inlineHazards(s string) []hazard {
	if !strings.Contains(s, "<") {
		return nil
	}
	var hs []hazard
	for _, seg := range textSegments(s) {
		t := s[seg[0]:seg[1]]
		for i := 0; i < len(t); i++ {
			if t[i] != '<' || i > 0 && t[i-1] == '\\' {
				continue
			}
			rest := t[i+1:]
			if strings.HasPrefix(rest, "!--") {
				hs = append(hs, hazard{seg[0] + i, "an HTML comment", fixComment})
				continue
			}
			name := strings.TrimPrefix(rest, "/")
			for _, tag := range rawTextTags {
				if len(name) >= len(tag) && strings.EqualFold(name[:len(tag)], tag) &&
					(len(name) == len(tag) || strings.ContainsRune(" \t>/", rune(name[len(tag)]))) {
					hs = append(hs, hazard{seg[0] + i, "an HTML <" + tag + "> tag, which hides or swallows the text after it", fixHTML})
					break
				}
			}
		}
	}
	return hs
}

// textSegments returns the byte ranges of s outside inline code spans, as
// CommonMark finds them: a run of n backticks opens a span that the next run
// of exactly n backticks closes; an unmatched run is literal text.
func textSegments(s string) [][2]int {
	if !strings.Contains(s, "`") {
		return [][2]int{{0, len(s)}}
	}
	var segs [][2]int
	start := 0
	for i := 0; i < len(s); {
		if s[i] == '\\' {
			i += 2
			continue
		}
		if s[i] != '`' {
			i++
			continue
		}
		n := run(s, i, '`')
		// find the closing run of exactly n backticks
		closeAt := -1
		for j := i + n; j < len(s); {
			if s[j] != '`' {
				j++
				continue
			}
			m := run(s, j, '`')
			if m == n {
				closeAt = j
				break
			}
			j += m
		}
		if closeAt < 0 {
			i += n
			continue
		}
		segs = append(segs, [2]int{start, i})
		start = closeAt + n
		i = start
	}
	if start < len(s) {
		segs = append(segs, [2]int{start, len(s)})
	}
	return segs
}

func run(s string, i int, c byte) int {
	n := 0
	for i+n < len(s) && s[i+n] == c {
		n++
	}
	return n
}

// indent returns the width of the leading whitespace of line (tabs to the
// next multiple of 4) and its length in bytes.
func indent(line string) (width, n int) {
	for n < len(line) {
		switch line[n] {
		case ' ':
			width++
		case '\t':
			width += 4 - width%4
		default:
			return width, n
		}
		n++
	}
	return width, n
}

func blank(line string) bool { return strings.TrimLeft(line, " \t") == "" }

// blockStart reports whether one-line text begins, after its leading
// whitespace, with something that acts at block level inside a list item or
// a heading, and the byte offset of the character to escape.
func blockStart(s string) (int, bool) {
	_, n := indent(s)
	t := s[n:]
	if t == "" {
		return 0, false
	}
	if what, off := construct(t); what != "" {
		return n + off, true
	}
	if c := t[0]; c == '>' || (c == '-' || c == '+' || c == '*') && (len(t) == 1 || t[1] == ' ' || t[1] == '\t') {
		return n, true // a quote or a list inside the item
	}
	if d := ordered(t); d > 0 {
		return n + d - 1, true // escape the . or ) of "1."
	}
	return 0, false
}

// ordered returns the length of an ordered list marker ("12." or "3)")
// followed by a space or the end, or 0.
func ordered(t string) int {
	i := 0
	for i < len(t) && i < 9 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 || i >= len(t) || t[i] != '.' && t[i] != ')' {
		return 0
	}
	if i+1 == len(t) || t[i+1] == ' ' || t[i+1] == '\t' {
		return i + 1
	}
	return 0
}

// construct reports a block construct that t (a line with its indentation
// and container markers removed) starts with, and the offset to escape.
func construct(t string) (what string, off int) {
	switch {
	case heading(t):
		return "a markdown heading", 0
	case thematic(t):
		return "a markdown rule (thematic break)", 0
	case underline(t):
		return "a setext heading underline (=== or --- under a line makes that line a heading)", 0
	case fence(t) > 0:
		return "a code fence", 0
	case htmlBlock(t):
		return "an HTML block", 0
	case linkDef(t):
		return "a link reference definition (it is not shown, and it redefines links)", 0
	}
	return "", 0
}

// heading: 1–6 # then a space, a tab or the end.
func heading(t string) bool {
	n := run(t, 0, '#')
	return n >= 1 && n <= 6 && (len(t) == n || t[n] == ' ' || t[n] == '\t')
}

// thematic: three or more of the same -, * or _, with only spaces or tabs between.
func thematic(t string) bool {
	c := t[0]
	if c != '-' && c != '*' && c != '_' {
		return false
	}
	n := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case c:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// underline: = or - repeated, then only whitespace. One is enough under a
// paragraph line.
func underline(t string) bool {
	c := t[0]
	if c != '=' && c != '-' {
		return false
	}
	return blank(t[run(t, 0, c):])
}

// fence returns the length of the code fence t opens (3 or more ` or ~), or 0.
// A backtick fence's info string cannot hold a backtick (that is inline code).
func fence(t string) int {
	c := t[0]
	if c != '`' && c != '~' {
		return 0
	}
	n := run(t, 0, c)
	if n < 3 || c == '`' && strings.IndexByte(t[n:], '`') >= 0 {
		return 0
	}
	return n
}

// closes reports whether t (with indentation removed) closes a fence of n c's.
func closes(t string, c byte, n int) bool {
	m := run(t, 0, c)
	return m >= n && blank(t[m:])
}

// htmlBlock: < then !, ?, or a tag name (optionally after / and spaces) followed by
// a space, a tab, >, /> or the end — the start of CommonMark's HTML blocks,
// widened to every tag name. An autolink such as <https://x> is not one.
func htmlBlock(t string) bool {
	if len(t) < 2 || t[0] != '<' {
		return false
	}
	rest := t[1:]
	if rest[0] == '!' || rest[0] == '?' {
		return true
	}
	if r, ok := strings.CutPrefix(rest, "/"); ok {
		// goldmark (as GitHub renders) also takes "</ a>" for a closing tag.
		rest = strings.TrimLeft(r, " \t")
	}
	i := 0
	for i < len(rest) && (rest[i] >= 'a' && rest[i] <= 'z' || rest[i] >= 'A' && rest[i] <= 'Z' || i > 0 && (rest[i] >= '0' && rest[i] <= '9' || rest[i] == '-')) {
		i++
	}
	return i > 0 && (i == len(rest) || strings.ContainsRune(" \t>/", rune(rest[i])))
}

// linkDef: [label]: …, including footnote definitions ([^1]: …).
func linkDef(t string) bool {
	if t[0] != '[' {
		return false
	}
	for i := 1; i < len(t); i++ {
		switch t[i] {
		case '\\':
			i++
		case '[':
			return false
		case ']':
			return i > 1 && i+1 < len(t) && t[i+1] == ':'
		}
	}
	return false
}

// containerMarker returns the length of a block quote marker (> and an
// optional space) or a list marker (-, +, * or 1. / 1) and a space) that t
// starts with, or 0.
func containerMarker(t string) int {
	switch {
	case t == "":
		return 0
	case t[0] == '>':
		if len(t) > 1 && (t[1] == ' ' || t[1] == '\t') {
			return 2
		}
		return 1
	case (t[0] == '-' || t[0] == '+' || t[0] == '*') && (len(t) == 1 || t[1] == ' ' || t[1] == '\t'):
		return min(2, len(t))
	}
	if d := ordered(t); d > 0 {
		return min(d+1, len(t))
	}
	return 0
}

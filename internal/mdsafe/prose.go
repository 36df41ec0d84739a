package mdsafe

import (
	"strings"
	"unicode/utf8"
)

// CheckProse reports every construct in multi-line text that could swallow
// or restructure what a render puts after it. Lines and columns count in
// s as given; the render trims surrounding whitespace, and the check looks
// at the text as rendered.
func CheckProse(s string) []Problem {
	t := strings.TrimSpace(s)
	if t == "" {
		return nil
	}
	// Where t starts in s: the lines and columns dropped before it.
	lead := s[:strings.Index(s, t)]
	dl := strings.Count(lead, "\n")
	dc := utf8.RuneCountInString(lead[strings.LastIndexByte(lead, '\n')+1:])
	var ps []Problem
	for _, f := range analyse(t) {
		p := Problem{Line: f.line + 1 + dl, Col: utf8.RuneCountInString(f.text[:f.off]) + 1, What: f.what, Fix: f.fix}
		if f.line == 0 {
			p.Col += dc
		}
		ps = append(ps, p)
	}
	return ps
}

// Prose returns multi-line text (already trimmed, as rendered) with each
// construct CheckProse reports escaped, refused characters replaced with
// U+FFFD and carriage returns made line feeds. Text CheckProse accepts is
// returned unchanged.
func Prose(s string) string {
	if strings.ContainsRune(s, '\r') {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	}
	s = replaceBad(s, true)
	fs := analyse(s)
	if len(fs) == 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	byLine := map[int][]int{}
	for _, f := range fs {
		byLine[f.line] = append(byLine[f.line], f.off)
	}
	for i, offs := range byLine {
		lines[i] = escapeAt(lines[i], dedupe(offs))
	}
	return strings.Join(lines, "\n")
}

func dedupe(offs []int) []int {
	out := offs[:0]
	for _, o := range offs {
		if len(out) == 0 || out[len(out)-1] < o {
			out = append(out, o)
		}
	}
	return out
}

// Fenced reports, for each line of s (split at \n), whether it belongs to a
// closed code fence — its opening and closing lines included — as Prose
// leaves them.
func Fenced(s string) []bool {
	lines := strings.Split(s, "\n")
	in, _ := regions(lines)
	return in
}

type finding struct {
	line int    // 0-based
	off  int    // byte offset in the line of the character to escape
	text string // the line
	what string
	fix  string
}

const (
	fixHeading = "use plain paragraphs or lists; Bridle renders the headings"
	fixRule    = "remove the line, or put other text on it; it would restructure the rendered file"
	fixFence   = "close the code block with a line holding the same fence (``` or ~~~), at the opening fence's indentation, and start the fence at the beginning of a line, outside lists and quotes"
	fixBlock   = "start the line with other text, or put the markup in backticks"
)

// regions finds the closed code fences: an opening fence indented at most
// 3 columns, lines indented at least as much (or blank), and a closing fence
// of the same character, at least as long, between the opening's indentation
// and 3 columns, with nothing after it. Requiring the inner lines to keep
// the indentation means a fence that a list item holds cannot be closed
// early by the end of that item. It also returns the unclosed openings.
func regions(lines []string) (in []bool, unclosed []int) {
	in = make([]bool, len(lines))
	for i := 0; i < len(lines); i++ {
		w, n := indent(lines[i])
		t := lines[i][n:]
		if w > 3 || t == "" {
			continue
		}
		flen := fence(t)
		if flen == 0 {
			continue
		}
		c := t[0]
		end := -1
		for j := i + 1; j < len(lines); j++ {
			if blank(lines[j]) {
				continue
			}
			wj, nj := indent(lines[j])
			if wj < w {
				break
			}
			if wj <= 3 && closes(lines[j][nj:], c, flen) {
				end = j
				break
			}
		}
		if end < 0 {
			unclosed = append(unclosed, i)
			continue
		}
		for j := i; j <= end; j++ {
			in[j] = true
		}
		i = end
	}
	return in, unclosed
}

// analyse finds every dangerous construct in t, line by line.
func analyse(t string) []finding {
	if !strings.ContainsAny(t, "#=-*_`~<[") {
		return nil // nothing that could start a construct: the common fast path
	}
	lines := strings.Split(t, "\n")
	in, unclosed := regions(lines)
	var fs []finding
	add := func(i, off int, what, fix string) {
		fs = append(fs, finding{line: i, off: off, text: lines[i], what: what, fix: fix})
	}
	for _, i := range unclosed {
		_, n := indent(lines[i])
		add(i, n, "an unclosed code fence (it would turn the rest of the file into code)", fixFence)
	}
	isUnclosed := map[int]bool{}
	for _, i := range unclosed {
		isUnclosed[i] = true
	}
	for i, line := range lines {
		if in[i] {
			continue
		}
		// Look at the line's content at every container depth: as written,
		// then after each block quote or list marker. Indentation of any
		// width is skipped, since inside a list item it is not code.
		pos := 0
		for depth := 0; depth < 100 && pos < len(line); depth++ {
			_, n := indent(line[pos:])
			pos += n
			rest := line[pos:]
			if rest == "" {
				break
			}
			if what, off := construct(rest); what != "" {
				switch {
				case strings.HasPrefix(what, "a code fence"):
					if !isUnclosed[i] {
						add(i, pos+off, "a code fence inside a list or a quote, or indented", fixFence)
					}
				case strings.HasPrefix(what, "a markdown heading"):
					add(i, pos+off, "a markdown heading", fixHeading)
				case strings.HasPrefix(what, "an HTML block"), strings.HasPrefix(what, "a link reference"):
					add(i, pos+off, what, fixBlock)
				default:
					add(i, pos+off, what, fixRule)
				}
				break
			}
			m := containerMarker(rest)
			if m == 0 {
				break
			}
			pos += m
		}
		for _, h := range inlineHazards(line) {
			if len(fs) > 0 && fs[len(fs)-1].line == i && fs[len(fs)-1].off == h.off {
				continue // already reported as an HTML block
			}
			add(i, h.off, h.what, h.fix)
		}
	}
	sortFindings(fs)
	return fs
}

func sortFindings(fs []finding) {
	// insertion sort: findings are few and nearly sorted
	for i := 1; i < len(fs); i++ {
		for j := i; j > 0 && (fs[j].line < fs[j-1].line || fs[j].line == fs[j-1].line && fs[j].off < fs[j-1].off); j-- {
			fs[j], fs[j-1] = fs[j-1], fs[j]
		}
	}
}

package adopt

import (
	"bytes"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// md reads markdown as CommonMark: tables stay paragraphs (their lines are
// kept as written, in the overview), so no extension is needed. Built on
// first use, not at init.
var md = sync.OnceValue(func() goldmark.Markdown { return goldmark.New() })

// maxDepth bounds the container nesting the walk follows; deeper content
// is reported as lost, never recursed into.
const maxDepth = 64

// maxPrefix bounds the leading container markup of a line (goldmark's work
// grows with the square of the containers one line opens).
const maxPrefix = 128

// kind is what a unit of an instruction file is.
type kind int

const (
	paragraph kind = iota // prose: its sentences are rules or overview
	listItem              // a list item's own text: a rule, a convention, a command or a stack entry
	code                  // a fenced block in a shell language: commands
	prose                 // kept as written in the overview: tables, quotes, other code
	html                  // HTML: not expressible (the schema refuses it)
	deep                  // nested beyond maxDepth
)

// unit is one block of an instruction file, positioned.
type unit struct {
	kind    kind
	line    int      // 1-based, in the file
	text    string   // paragraph and item: one line; code, prose, html: the lines as written
	spans   []string // the code spans of a paragraph or an item
	lang    string   // a fenced block's info word
	section []string // the headings above, outermost first
}

// parse reduces markdown to units, in document order, with the line each
// starts on. It never fails: what it cannot place becomes a deep or html
// unit, reported as lost.
func parse(src []byte) []unit {
	src = shallow(src)
	doc := md().Parser().Parse(text.NewReader(src))
	w := walker{src: src, starts: lineStarts(src)}
	w.blocks(doc, 0)
	return w.units
}

type walker struct {
	src     []byte
	starts  []int // byte offset of each line
	units   []unit
	section []string
	levels  []int
}

func (w *walker) lineOf(off int) int {
	lo, hi := 0, len(w.starts)
	for lo+1 < hi {
		m := (lo + hi) / 2
		if w.starts[m] <= off {
			lo = m
		} else {
			hi = m
		}
	}
	return lo + 1
}

func (w *walker) add(u unit) {
	u.section = w.section
	w.units = append(w.units, u)
}

func (w *walker) blocks(n ast.Node, depth int) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if depth > maxDepth {
			if lo, hi, ok := w.span(c); ok {
				w.add(unit{kind: deep, line: w.lineOf(lo), text: w.raw(lo, hi)})
			}
			continue
		}
		switch c := c.(type) {
		case *ast.Heading:
			for len(w.levels) > 0 && w.levels[len(w.levels)-1] >= c.Level {
				w.levels = w.levels[:len(w.levels)-1]
				w.section = w.section[:len(w.section)-1]
			}
			w.levels = append(w.levels, c.Level)
			w.section = append(w.section[:len(w.section):len(w.section)], strings.TrimSpace(w.lines(c, " ")))
		case *ast.Paragraph, *ast.TextBlock:
			lo, hi, ok := w.span(c)
			if !ok {
				continue
			}
			k := paragraph
			if _, in := c.Parent().(*ast.ListItem); in {
				k = listItem
			}
			t := strings.TrimSpace(w.lines(c, " "))
			if k == paragraph && strings.HasPrefix(t, "|") {
				w.add(unit{kind: prose, line: w.lineOf(lo), text: w.raw(lo, hi)}) // a table
				continue
			}
			w.add(unit{kind: k, line: w.lineOf(lo), text: t, spans: w.codeSpans(c)})
		case *ast.FencedCodeBlock:
			lo, _, ok := w.span(c)
			lang := ""
			if c.Info != nil {
				lang = strings.ToLower(strings.TrimSpace(string(c.Language(w.src))))
			}
			if !ok {
				continue
			}
			if shellLang(lang) {
				w.add(unit{kind: code, line: w.lineOf(lo), text: w.lines(c, ""), lang: lang})
				continue
			}
			body := w.lines(c, "")
			w.add(unit{kind: prose, line: w.lineOf(lo) - 1, text: fence(body, lang) + strings.TrimRight(body, "\n") + "\n" + fence(body, "")})
		case *ast.CodeBlock:
			if lo, hi, ok := w.span(c); ok {
				w.add(unit{kind: prose, line: w.lineOf(lo), text: w.raw(lo, hi)})
			}
		case *ast.Blockquote:
			if lo, hi, ok := w.span(c); ok {
				w.add(unit{kind: prose, line: w.lineOf(lo), text: w.raw(lo, hi)})
			}
		case *ast.HTMLBlock:
			if lo, hi, ok := w.span(c); ok {
				w.add(unit{kind: html, line: w.lineOf(lo), text: w.raw(lo, hi)})
			}
		case *ast.List, *ast.ListItem:
			w.blocks(c, depth+1)
		}
		// thematic breaks and link reference definitions carry no text
	}
}

// span is the byte range of n's lines, descendants included.
func (w *walker) span(n ast.Node) (lo, hi int, ok bool) {
	lo, hi = -1, -1
	var visit func(n ast.Node, d int)
	visit = func(n ast.Node, d int) {
		if d > maxDepth+8 {
			return
		}
		if n.Type() == ast.TypeBlock {
			ls := n.Lines()
			if ls.Len() > 0 {
				if s := ls.At(0).Start; lo < 0 || s < lo {
					lo = s
				}
				if e := ls.At(ls.Len() - 1).Stop; e > hi {
					hi = e
				}
			}
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				visit(c, d+1)
			}
		}
	}
	visit(n, 0)
	return lo, hi, lo >= 0 && hi >= lo
}

// raw is the source from the start of lo's line to hi, as written.
func (w *walker) raw(lo, hi int) string {
	start := w.starts[w.lineOf(lo)-1]
	return strings.TrimRight(string(w.src[start:hi]), " \t\r\n")
}

// lines is n's own lines joined by sep ("" keeps each line's newline).
func (w *walker) lines(n ast.Node, sep string) string {
	var b strings.Builder
	ls := n.Lines()
	for i := 0; i < ls.Len(); i++ {
		seg := ls.At(i)
		v := seg.Value(w.src)
		if sep != "" {
			v = bytes.TrimRight(v, "\r\n")
			if i > 0 {
				b.WriteString(sep)
			}
		}
		b.Write(v)
	}
	return b.String()
}

func (w *walker) codeSpans(n ast.Node) []string {
	var out []string
	var visit func(n ast.Node, d int)
	visit = func(n ast.Node, d int) {
		if d > maxDepth {
			return
		}
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if cs, ok := c.(*ast.CodeSpan); ok {
				var b strings.Builder
				for t := cs.FirstChild(); t != nil; t = t.NextSibling() {
					if t, ok := t.(*ast.Text); ok {
						b.Write(t.Value(w.src))
						if t.SoftLineBreak() {
							b.WriteByte(' ')
						}
					}
				}
				if s := strings.TrimSpace(b.String()); s != "" {
					out = append(out, s)
				}
				continue
			}
			visit(c, d+1)
		}
	}
	visit(n, 0)
	return out
}

func lineStarts(src []byte) []int {
	starts := []int{0}
	for i, c := range src {
		if c == '\n' && i+1 < len(src) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// shallow cuts the run of whitespace and container markers at the start of
// every line to maxPrefix bytes, keeping the line count.
func shallow(src []byte) []byte {
	var out []byte
	start := 0
	for start < len(src) {
		end := bytes.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += start + 1
		}
		line := src[start:end]
		n := 0
		for n < len(line) && strings.IndexByte(" \t>-*+0123456789.)", line[n]) >= 0 {
			n++
		}
		if n > maxPrefix {
			if out == nil {
				out = append([]byte{}, src[:start]...)
			}
			out = append(out, line[:maxPrefix]...)
			out = append(out, ' ')
			out = append(out, line[n:]...)
		} else if out != nil {
			out = append(out, line...)
		}
		start = end
	}
	if out == nil {
		return src
	}
	return out
}

// shellLang reports a fenced block's info word that marks shell commands
// (or none: an unlabelled block of command lines).
func shellLang(lang string) bool {
	switch lang {
	case "", "sh", "bash", "shell", "console", "zsh", "shell-session", "terminal", "cmd", "powershell", "ps", "pwsh", "fish":
		return true
	}
	return false
}

// fence is a fence line (with info) longer than any backtick run in body.
func fence(body, info string) string {
	n, run := 3, 0
	for i := 0; i < len(body); i++ {
		if body[i] == '`' {
			run++
			n = max(n, run+1)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", n)
	if info != "" {
		return f + info + "\n"
	}
	return f
}

package feed

import (
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// md reads markdown as GitHub does, without linkify: a bare URL stays text.
// It is built on first use, not at init.
var md = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList))
})

// normaliseMarkdown walks goldmark's tree: headings keep their level,
// paragraphs and list items become blocks, inline code keeps its
// backticks, link text is kept and destinations dropped. Code blocks (fenced
// and indented), HTML blocks and inline HTML, images, autolinks,
// struck-through text and tables holding code are dropped.
func normaliseMarkdown(s string) []Block {
	src := []byte(shallow(s))
	doc := md().Parser().Parse(text.NewReader(src))
	w := &mdWalker{src: src, b: builder{kind: Paragraph}}
	w.blocks(doc, 0, 0)
	w.b.flush()
	return w.b.blocks
}

type mdWalker struct {
	src []byte
	b   builder
}

// blocks walks the block-level children of n; lists is the list depth.
func (w *mdWalker) blocks(n ast.Node, lists, depth int) {
	if depth > maxDepth {
		return
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Heading:
			w.b.start(Heading, c.Level)
			w.inline(c, false, depth)
			w.b.start(Paragraph, 0)
		case *ast.Paragraph, *ast.TextBlock:
			kind, level := Paragraph, 0
			if _, ok := c.Parent().(*ast.ListItem); ok {
				kind, level = Item, lists
			}
			w.b.start(kind, level)
			w.inline(c, false, depth)
			w.b.flush()
		case *ast.List:
			w.blocks(c, lists+1, depth+1)
		case *ast.ListItem, *ast.Blockquote:
			w.blocks(c, lists, depth+1)
		case *east.Table:
			if !w.tableHoldsCode(c) {
				w.table(c, depth)
			}
		}
		// code blocks, HTML blocks, thematic breaks, link reference
		// definitions: not prose
	}
}

// table makes each body cell a paragraph; header cells are labels.
func (w *mdWalker) table(t *east.Table, depth int) {
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		if _, ok := row.(*east.TableHeader); ok {
			continue
		}
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			w.b.start(Paragraph, 0)
			w.inline(cell, false, depth+1)
			w.b.flush()
		}
	}
}

// tableHoldsCode reports a table with a cell that is only code.
func (w *mdWalker) tableHoldsCode(t *east.Table) bool {
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			only, hasCode := true, false
			for c := cell.FirstChild(); c != nil; c = c.NextSibling() {
				if _, ok := c.(*ast.CodeSpan); ok {
					hasCode = true
				} else if txt, ok := c.(*ast.Text); !ok || len(util.TrimLeftSpace(util.TrimRightSpace(txt.Value(w.src)))) > 0 {
					only = false
				}
			}
			if hasCode && only {
				return true
			}
		}
	}
	return false
}

// inline writes the text of n's inline children to the current block.
func (w *mdWalker) inline(n ast.Node, link bool, depth int) {
	if depth > maxDepth {
		return
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			w.text(unescape(c.Value(w.src)), link)
			if c.SoftLineBreak() || c.HardLineBreak() {
				w.b.write(" ")
			}
		case *ast.String:
			w.text(string(c.Value), link)
		case *ast.CodeSpan:
			var code []byte
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				if t, ok := t.(*ast.Text); ok {
					code = append(code, t.Value(w.src)...)
				}
			}
			if s := clean(string(code)); s != "" {
				w.text(codeSpan(s), link)
			}
		case *ast.Link:
			w.inline(c, true, depth+1)
		case *ast.Image, *ast.AutoLink, *ast.RawHTML, *east.Strikethrough, *east.TaskCheckBox:
			// an image's alt text, a bare address, markup, deleted text
		default:
			w.inline(c, link, depth+1) // emphasis and the like
		}
	}
}

func (w *mdWalker) text(s string, link bool) {
	if link {
		w.b.writeLink(s)
	} else {
		w.b.write(s)
	}
}

// unescape resolves backslash escapes and character references, as a
// markdown renderer does.
func unescape(v []byte) string {
	return string(util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v))))
}

// maxPrefix bounds the leading container markup of a markdown line.
const maxPrefix = 128

// shallow cuts the run of whitespace and container markers (>, list
// markers) at the start of every line to maxPrefix bytes: goldmark's work
// grows with the square of the containers one line opens.
func shallow(s string) string {
	if len(s) <= maxPrefix {
		return s
	}
	var b strings.Builder
	changed := false
	for line := range strings.Lines(s) {
		n := 0
		for n < len(line) && strings.IndexByte(" \t>-*+0123456789.)", line[n]) >= 0 {
			n++
		}
		if n > maxPrefix {
			line = line[:maxPrefix] + " " + line[n:]
			changed = true
		}
		b.WriteString(line)
	}
	if !changed {
		return s
	}
	return b.String()
}

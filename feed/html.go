package feed

import (
	"fmt"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// dropped are the elements whose content is never a document's prose: code,
// scripts, navigation and page furniture, forms, embedded media, and text a
// page marks as deleted.
var dropped = map[atom.Atom]bool{
	atom.Head: true, atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Nav: true, atom.Header: true, atom.Footer: true, atom.Aside: true, atom.Menu: true,
	atom.Form: true, atom.Button: true, atom.Select: true, atom.Textarea: true, atom.Input: true,
	atom.Pre: true, atom.Samp: true, atom.Kbd: true, atom.Var: true,
	atom.Img: true, atom.Picture: true, atom.Svg: true, atom.Math: true, atom.Canvas: true,
	atom.Video: true, atom.Audio: true, atom.Iframe: true, atom.Object: true, atom.Embed: true,
	atom.Del: true, atom.S: true, atom.Dialog: true,
}

// droppedRoles are the ARIA landmarks of page furniture.
var droppedRoles = map[string]bool{
	"navigation": true, "banner": true, "contentinfo": true, "complementary": true,
	"search": true, "menu": true, "menubar": true, "toolbar": true, "dialog": true, "alert": true,
}

// blockElems end the text before them and after them.
var blockElems = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Blockquote: true, atom.Body: true, atom.Details: true,
	atom.Summary: true, atom.Div: true, atom.Dl: true, atom.Dt: true, atom.Dd: true, atom.Fieldset: true,
	atom.Figure: true, atom.Figcaption: true, atom.Hr: true, atom.Main: true, atom.Section: true,
	atom.P: true, atom.Br: true, atom.Table: true, atom.Caption: true, atom.Tr: true, atom.Hgroup: true,
	atom.Center: true, atom.Legend: true,
}

var headingLevel = map[atom.Atom]int{atom.H1: 1, atom.H2: 2, atom.H3: 3, atom.H4: 4, atom.H5: 5, atom.H6: 6}

// normaliseHTML walks the parsed document: headings keep their level,
// paragraphs and list items become blocks, inline code keeps its text in
// backticks, link text is kept and destinations dropped. Elements in
// dropped, landmarks in droppedRoles, hidden elements (the hidden
// attribute, aria-hidden, an inline display:none or visibility:hidden) and
// tables holding code are skipped whole.
func normaliseHTML(s string) ([]Block, error) {
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		// the reader cannot fail: the parser refused elements nested
		// deeper than 512
		return nil, fmt.Errorf("%w: %w", ErrTooDeep, err)
	}
	w := &htmlWalker{b: builder{kind: Paragraph}}
	w.walk(doc, 0)
	w.b.flush()
	return w.b.blocks, nil
}

type htmlWalker struct {
	b      builder
	lists  int    // depth of the list being read
	inLink int    // >0 inside a link
	outer  []open // the blocks begin interrupted
}

type open struct {
	kind  Kind
	level int
}

func (w *htmlWalker) walk(n *html.Node, depth int) {
	if depth > maxDepth {
		return
	}
	switch n.Type {
	case html.TextNode:
		if w.inLink > 0 {
			w.b.writeLink(n.Data)
		} else {
			w.b.write(n.Data)
		}
		return
	case html.ElementNode:
	case html.DocumentNode:
		w.children(n, depth)
		return
	default:
		return // comments, doctypes
	}
	if skipped(n) {
		return
	}
	a := n.DataAtom
	switch {
	case headingLevel[a] > 0:
		w.begin(Heading, headingLevel[a])
		w.children(n, depth)
		w.end()
	case a == atom.Ul || a == atom.Ol:
		w.b.flush()
		w.lists++
		w.children(n, depth)
		w.lists--
		w.b.flush()
	case a == atom.Li:
		w.begin(Item, max(w.lists, 1))
		w.children(n, depth)
		w.end()
	case a == atom.Td:
		w.begin(Paragraph, 0)
		w.children(n, depth)
		w.end()
	case a == atom.Th:
		w.b.flush() // column labels, not prose
	case a == atom.Code || a == atom.Tt:
		w.code(n)
	case a == atom.A:
		w.inLink++
		w.children(n, depth)
		w.inLink--
	case blockElems[a]:
		w.b.flush()
		w.children(n, depth)
		w.b.flush()
	default:
		w.children(n, depth)
	}
}

// begin starts a block of kind k inside whatever block is open; end returns
// to it.
func (w *htmlWalker) begin(k Kind, level int) {
	w.b.flush()
	w.outer = append(w.outer, open{w.b.kind, w.b.level})
	w.b.kind, w.b.level = k, level
}

func (w *htmlWalker) end() {
	w.b.flush()
	top := w.outer[len(w.outer)-1]
	w.outer = w.outer[:len(w.outer)-1]
	w.b.kind, w.b.level = top.kind, top.level
}

func (w *htmlWalker) children(n *html.Node, depth int) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c, depth+1)
	}
}

// code writes an inline code element's text as a markdown code span.
func (w *htmlWalker) code(n *html.Node) {
	var t strings.Builder
	textOf(n, &t, 0)
	if s := strings.TrimSpace(t.String()); s != "" {
		w.b.write(codeSpan(s))
	}
}

func textOf(n *html.Node, b *strings.Builder, depth int) {
	if depth > maxDepth {
		return
	}
	if n.Type == html.TextNode {
		b.WriteString(n.Data)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		textOf(c, b, depth+1)
	}
}

// skipped reports an element whose whole content is dropped.
func skipped(n *html.Node) bool {
	if dropped[n.DataAtom] {
		return true
	}
	if n.DataAtom == 0 && n.Namespace == "" {
		// unknown elements are read for their text, except custom
		// navigation widgets
		if strings.Contains(n.Data, "nav") || strings.Contains(n.Data, "menu") {
			return true
		}
	}
	for _, at := range n.Attr {
		v := strings.ToLower(strings.TrimSpace(at.Val))
		switch at.Key {
		case "hidden":
			return true
		case "aria-hidden":
			if v == "true" {
				return true
			}
		case "role":
			if droppedRoles[v] {
				return true
			}
		case "style":
			compact := strings.ReplaceAll(v, " ", "")
			if strings.Contains(compact, "display:none") || strings.Contains(compact, "visibility:hidden") {
				return true
			}
		}
	}
	return n.DataAtom == atom.Table && holdsCode(n, 0)
}

// holdsCode reports whether a table has a cell of code (pre, or code that is
// all of the cell's text): a table of commands or snippets.
func holdsCode(n *html.Node, depth int) bool {
	if depth > maxDepth {
		return false
	}
	if n.Type == html.ElementNode {
		switch n.DataAtom {
		case atom.Pre:
			return true
		case atom.Td, atom.Th:
			var all, code strings.Builder
			textOf(n, &all, 0)
			codeText(n, &code, 0)
			if c := strings.TrimSpace(code.String()); c != "" && c == strings.TrimSpace(all.String()) {
				return true
			}
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if holdsCode(c, depth+1) {
			return true
		}
	}
	return false
}

func codeText(n *html.Node, b *strings.Builder, depth int) {
	if depth > maxDepth {
		return
	}
	if n.Type == html.ElementNode && (n.DataAtom == atom.Code || n.DataAtom == atom.Tt) {
		textOf(n, b, depth)
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		codeText(c, b, depth+1)
	}
}

// codeSpan writes s as a markdown code span: a backtick fence longer than
// any run of backticks inside, padded when s starts or ends with one.
func codeSpan(s string) string {
	s = clean(s)
	longest, n := 0, 0
	for _, r := range s {
		if r == '`' {
			n++
			longest = max(longest, n)
		} else {
			n = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

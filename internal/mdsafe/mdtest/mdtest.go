// Package mdtest reads markdown the way GitHub and Gitea do (CommonMark with
// the GFM extensions, through goldmark), for tests that must show a render's
// structure survived what user text put into it.
package mdtest

import (
	"fmt"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

var md = goldmark.New(goldmark.WithExtensions(extension.GFM, extension.Footnote))

// Outline is what a markdown document's structure consists of.
type Outline struct {
	Headings []string // "## Title" (the title as written), every heading at any depth, in order
	Blocks   []string // problems: HTML blocks, thematic breaks, link definitions, hidden HTML
}

// Parse returns src's outline.
func Parse(src string) Outline {
	ctx := parser.NewContext()
	doc := md.Parser().Parse(text.NewReader([]byte(src)), parser.WithContext(ctx))
	var o Outline
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			o.Headings = append(o.Headings, strings.Repeat("#", n.Level)+" "+plain(n, []byte(src)))
			if n.Parent() != doc {
				o.Blocks = append(o.Blocks, "heading inside "+n.Parent().Kind().String())
			}
		case *ast.HTMLBlock:
			o.Blocks = append(o.Blocks, "HTML block")
		case *ast.ThematicBreak:
			o.Blocks = append(o.Blocks, "thematic break")
		case *ast.RawHTML:
			var b strings.Builder
			for i := 0; i < n.Segments.Len(); i++ {
				seg := n.Segments.At(i)
				b.Write(seg.Value([]byte(src)))
			}
			raw := strings.ToLower(b.String())
			if strings.HasPrefix(raw, "<!--") || hidingTag(raw) {
				o.Blocks = append(o.Blocks, "hidden HTML "+raw)
			}
		}
		return ast.WalkContinue, nil
	})
	for _, r := range ctx.References() {
		o.Blocks = append(o.Blocks, fmt.Sprintf("link definition [%s]", r.Label()))
	}
	return o
}

// plain is the heading's text as written in the source.
func plain(n *ast.Heading, src []byte) string {
	var b strings.Builder
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		b.Write(seg.Value(src))
	}
	return strings.TrimSpace(b.String())
}

// hidingTag reports whether raw opens an element whose content a browser
// does not render as markup (script, style, textarea, title, xmp): the tag
// name must end there, so <textarea0> is another element.
func hidingTag(raw string) bool {
	for _, t := range []string{"<script", "<style", "<textarea", "<title", "<xmp"} {
		if rest, ok := strings.CutPrefix(raw, t); ok && (rest == "" || strings.ContainsRune(" \t\n\r\f/>", rune(rest[0]))) {
			return true
		}
	}
	return false
}

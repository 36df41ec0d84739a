package memory

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"strings"
)

// Chunk is a piece of a source file worth retrieving on its own.
type Chunk struct {
	Path  string `json:"file_path"`
	Type  string `json:"chunk_type"` // func, method, type, var, const, section, block
	Name  string `json:"name,omitempty"`
	Start int    `json:"start_line"`
	End   int    `json:"end_line"`
	Text  string `json:"text"`
}

// Size bounds of chunks, in lines.
const (
	maxChunkLines   = 80
	blockChunkLines = 40
)

// ChunkFile splits a file: Go by declarations (with their doc comments),
// Markdown by headings, anything else by blank-line blocks; every chunk is
// at most maxChunkLines long.
func ChunkFile(p string, data []byte) []Chunk {
	switch strings.ToLower(path.Ext(p)) {
	case ".go":
		if cs, ok := chunkGo(p, data); ok {
			return cs
		}
	case ".md", ".markdown":
		return chunkMarkdown(p, data)
	}
	return chunkBlocks(p, data, "block")
}

func lines(data []byte) []string {
	return strings.Split(strings.TrimRight(string(data), "\n"), "\n")
}

// split cuts [start, end] (1-based, inclusive) into pieces of at most
// maxChunkLines.
func split(p, typ, name string, ls []string, start, end int) []Chunk {
	var out []Chunk
	for s := start; s <= end; s += maxChunkLines {
		e := min(s+maxChunkLines-1, end)
		text := strings.Join(ls[s-1:e], "\n")
		if strings.TrimSpace(text) == "" {
			continue
		}
		out = append(out, Chunk{Path: p, Type: typ, Name: name, Start: s, End: e, Text: text})
	}
	return out
}

func chunkGo(p string, data []byte) ([]Chunk, bool) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, p, data, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, false
	}
	ls := lines(data)
	var out []Chunk
	for _, d := range f.Decls {
		start, end := fset.Position(d.Pos()).Line, fset.Position(d.End()).Line
		var typ, name string
		switch d := d.(type) {
		case *ast.FuncDecl:
			typ, name = "func", d.Name.Name
			if d.Recv != nil && len(d.Recv.List) > 0 {
				typ = "method"
				name = recvName(d.Recv.List[0].Type) + "." + name
			}
			if d.Doc != nil {
				start = fset.Position(d.Doc.Pos()).Line
			}
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				continue
			}
			typ = strings.ToLower(d.Tok.String())
			if len(d.Specs) > 0 {
				if ts, ok := d.Specs[0].(*ast.TypeSpec); ok {
					name = ts.Name.Name
				}
			}
			if d.Doc != nil {
				start = fset.Position(d.Doc.Pos()).Line
			}
		}
		if start < 1 || end > len(ls) || start > end {
			continue
		}
		out = append(out, split(p, typ, name, ls, start, end)...)
	}
	return out, true
}

func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.IndexListExpr:
		return recvName(t.X)
	}
	return "?"
}

func chunkMarkdown(p string, data []byte) []Chunk {
	ls := lines(data)
	var out []Chunk
	start, name := 1, ""
	inFence := false
	flush := func(end int) {
		if end >= start {
			out = append(out, split(p, "section", name, ls, start, end)...)
		}
	}
	for i, l := range ls {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") {
			inFence = !inFence
		}
		if !inFence && strings.HasPrefix(t, "#") && i > 0 {
			flush(i)
			start, name = i+1, strings.TrimSpace(strings.TrimLeft(t, "#"))
		} else if i == 0 && strings.HasPrefix(t, "#") {
			name = strings.TrimSpace(strings.TrimLeft(t, "#"))
		}
	}
	flush(len(ls))
	return out
}

func chunkBlocks(p string, data []byte, typ string) []Chunk {
	ls := lines(data)
	var out []Chunk
	start := 1
	for i := 1; i <= len(ls); i++ {
		blank := strings.TrimSpace(ls[i-1]) == ""
		if i-start+1 >= maxChunkLines || (blank && i-start+1 >= blockChunkLines) || i == len(ls) {
			out = append(out, split(p, typ, "", ls, start, i)...)
			start = i + 1
		}
	}
	return out
}

// indexable reports whether a file is worth indexing: text, not generated,
// not vendored, not a lock file. (Size is capped by the Indexer's Limits.)
func indexable(p string, data []byte) bool {
	if len(data) == 0 {
		return false
	}
	head := data[:min(len(data), 8192)]
	if bytes.IndexByte(head, 0) >= 0 {
		return false
	}
	base := path.Base(p)
	switch base {
	case "go.sum", "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "Cargo.lock", "poetry.lock", "composer.lock":
		return false
	}
	if strings.HasSuffix(base, ".min.js") || strings.HasSuffix(base, ".pb.go") || strings.HasSuffix(base, "_generated.go") {
		return false
	}
	if bytes.Contains(head, []byte("Code generated")) && bytes.Contains(head, []byte("DO NOT EDIT")) {
		return false
	}
	switch strings.ToLower(path.Ext(p)) {
	case ".go", ".py", ".js", ".mjs", ".ts", ".tsx", ".jsx", ".java", ".kt", ".rs", ".rb", ".php", ".c", ".h", ".cc",
		".cpp", ".hpp", ".cs", ".swift", ".scala", ".sql", ".proto", ".yaml", ".yml", ".toml", ".md", ".markdown",
		".sh", ".tf", ".ex", ".exs", ".erl", ".hs", ".ml", ".lua", ".dart", ".vue", ".svelte":
		return true
	}
	return base == "Makefile" || base == "Dockerfile"
}

// skipDir lists directories never indexed.
var skipDir = map[string]bool{".git": true, "vendor": true, "node_modules": true, "third_party": true,
	"dist": true, "build": true, "target": true, ".venv": true, "__pycache__": true, ".idea": true, ".vscode": true}

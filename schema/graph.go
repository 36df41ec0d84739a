package schema

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// checkGraph looks at the node graph before anything walks or decodes it.
// go-yaml lets an alias refer to the value that contains it
// (`project: &p {<<: *p}`, `a: &a [*a]`), and such a cycle makes every
// recursive pass loop until the stack overflows: the walk below, position
// lookups and go-yaml's own typed decoding. It also bounds, before any
// expansion, the nesting and the number of values reached through aliases.
//
// It visits every node once, with an explicit stack, so it needs no
// recursion and costs one pass even on a "billion laughs" document. A
// document without aliases is a tree and takes the cheaper first loop.
func checkGraph(name string, root *yaml.Node) Diagnostics {
	fatal := func(n *yaml.Node, msg, fix string) Diagnostics {
		return Diagnostics{{File: name, Line: max(n.Line, 1), Col: max(n.Column, 1), Level: Error, Message: msg, Fix: fix}}
	}
	// The tree alone: its depth, and whether it holds any alias.
	type item struct {
		n     *yaml.Node
		depth int
	}
	stack := []item{{root, 0}}
	aliases := false
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.depth > MaxDepth {
			return fatal(it.n, fmt.Sprintf("document is nested deeper than %d levels", MaxDepth), "flatten the structure")
		}
		if it.n.Kind == yaml.AliasNode {
			aliases = true
		}
		if it.n.Kind == yaml.MappingNode && len(it.n.Content)/2 > MaxKeys {
			// go-yaml's typed decoding compares every key of a mapping
			// with every other: quadratic, minutes for a 2 MB document.
			return fatal(it.n, fmt.Sprintf("mapping holds %d keys, more than the %d allowed", len(it.n.Content)/2, MaxKeys),
				"a rules document needs a few keys per mapping; remove the extra keys")
		}
		for _, c := range it.n.Content {
			stack = append(stack, item{c, it.depth + 1})
		}
	}
	if !aliases {
		return nil
	}

	// With aliases the graph may have cycles and may expand far beyond its
	// size: a depth-first search with three states finds the cycles (an
	// edge to a node still on the stack) and computes, per node, the
	// height and the number of values it expands to, each once.
	const (
		unseen = iota
		open
		done
	)
	type info struct {
		state  uint8
		height int // deepest nesting below the node, aliases expanded
		size   int // values the node expands to, saturating above MaxNodes
	}
	seen := map[*yaml.Node]*info{}
	children := func(n *yaml.Node) []*yaml.Node {
		if n.Kind == yaml.AliasNode {
			if n.Alias == nil {
				return nil
			}
			return []*yaml.Node{n.Alias}
		}
		return n.Content
	}
	type frame struct {
		n    *yaml.Node
		next int
	}
	frames := []frame{{n: root}}
	seen[root] = &info{state: open}
	for len(frames) > 0 {
		fr := &frames[len(frames)-1]
		cs := children(fr.n)
		if fr.next < len(cs) {
			c := cs[fr.next]
			fr.next++
			ci := seen[c]
			switch {
			case ci == nil:
				seen[c] = &info{state: open}
				frames = append(frames, frame{n: c})
			case ci.state == open:
				return fatal(fr.n, fmt.Sprintf("alias *%s refers to a value that contains it, so it would repeat forever", c.Anchor),
					"an alias can only repeat a value defined before it and outside it; write the values out, or move the anchor")
			}
			continue
		}
		// All children are done: fold them into this node.
		ni := seen[fr.n]
		ni.state, ni.size = done, 1
		for _, c := range cs {
			ci := seen[c]
			ni.height = max(ni.height, ci.height+1)
			ni.size = min(ni.size+ci.size, MaxNodes+1)
		}
		frames = frames[:len(frames)-1]
	}

	if seen[root].height > MaxDepth {
		// Follow the deepest path down to the first node too deep, so the
		// diagnostic points at the alias that goes too far.
		n, depth := root, 0
		for depth <= MaxDepth {
			var next *yaml.Node
			for _, c := range children(n) {
				if next == nil || seen[c].height > seen[next].height {
					next = c
				}
			}
			n, depth = next, depth+1
		}
		return fatal(n, fmt.Sprintf("document is nested deeper than %d levels (counting what aliases repeat)", MaxDepth),
			"flatten the structure, or write out the values instead of nesting anchors and aliases")
	}
	aliased := 0
	for n := range seen {
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			aliased = min(aliased+seen[n.Alias].size, MaxNodes+1)
		}
	}
	if seen[root].size > MaxNodes || aliased > MaxAliased {
		return fatal(root, fmt.Sprintf("document expands to too many values (more than %d, or %d through aliases)", MaxNodes, MaxAliased),
			"write the values out instead of nesting anchors and aliases")
	}
	return nil
}

package mcp

import (
	"fmt"
	"sort"
	"strings"
)

// ToolsMarkdown documents the registry as a markdown table, in registry
// order. docs/reference/mcp-tools.md opens with this text (TestReferenceTools).
func ToolsMarkdown(tools []Tool) string {
	var b strings.Builder
	b.WriteString("| tool | toolset | needs | hints | what it does |\n|---|---|---|---|---|\n")
	for _, t := range tools {
		perm := "any agent"
		if t.Permission != "" {
			perm = "`" + string(t.Permission) + "`"
		}
		var hints []string
		a := t.Annotations()
		if a.ReadOnlyHint {
			hints = append(hints, "read-only")
		} else {
			if *a.DestructiveHint {
				hints = append(hints, "destructive")
			} else {
				hints = append(hints, "additive")
			}
			if a.IdempotentHint {
				hints = append(hints, "idempotent")
			}
		}
		if *a.OpenWorldHint {
			hints = append(hints, "open-world")
		}
		args := "—"
		if s, err := t.schema(); err == nil && len(s.Properties) > 0 {
			var names []string
			for n := range s.Properties {
				if !contains(s.Required, n) {
					n += "?"
				}
				names = append(names, n)
			}
			sort.Strings(names)
			args = strings.Join(names, ", ")
		}
		fmt.Fprintf(&b, "| `%s(%s)` | %s | %s | %s | %s |\n", t.Name, args, t.Toolset, perm, strings.Join(hints, ", "), t.Description)
	}
	return b.String()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

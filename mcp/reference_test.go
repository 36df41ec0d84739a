package mcp

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// referencePage is docs/reference/mcp-tools.md: the registry's table (as
// bridle mcp tools prints it), then each tool with its permission, hints
// and input schema.
const referencePage = "../docs/reference/mcp-tools.md"

func toolsReference(t *testing.T, tools []Tool) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`<!-- generated from the mcp package's tool registry by go test ./mcp -run ReferenceTools -update: do not edit -->
# MCP tools

Every tool Bridle's MCP server (the sidecar, and each gateway project) serves, from its registry, in
registry order. **needs** is the permission the rules must grant the calling agent: a tool it may not
use is hidden from ` + "`tools/list`" + ` and refused on ` + "`tools/call`" + `, naming the missing permission. A
toolset whose service is not set up (Kanboard, the vault) is absent. Tools of upstream MCP servers
(` + "`gitea_…`" + `) arrive at run time and are not listed here: see
[upstream MCP servers](../guides/integrations.md#upstream-mcp-servers-giteas-and-others).
` + "`bridle mcp tools`" + ` prints the table.

`)
	b.WriteString(ToolsMarkdown(tools))
	for _, tool := range tools {
		s, err := tool.schema()
		if err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		in, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		perm := "any agent"
		if tool.Permission != "" {
			perm = "`" + string(tool.Permission) + "`"
		}
		fmt.Fprintf(&b, "\n## %s\n\n**%s** — %s\n\nToolset `%s`; needs %s.\n\nInput schema:\n\n```json\n%s\n```\n",
			tool.Name, tool.Title, tool.Description, tool.Toolset, perm, in)
	}
	return b.String()
}

// TestReferenceTools keeps docs/reference/mcp-tools.md generated from the
// registry.
func TestReferenceTools(t *testing.T) {
	want := toolsReference(t, newFixture(t, Options{}).srv.Tools())
	if *update {
		if err := os.WriteFile(referencePage, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(referencePage)
	if err != nil {
		t.Fatalf("%v (go test ./mcp -run ReferenceTools -update)", err)
	}
	if string(got) != want {
		t.Error("docs/reference/mcp-tools.md is not the registry's; go test ./mcp -run ReferenceTools -update")
	}
}

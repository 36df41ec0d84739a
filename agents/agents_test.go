package agents

import (
	"slices"
	"strings"
	"testing"
)

// TestRegistry: every entry is complete, and no two agents share a name, an
// MCP client name or a default output path.
func TestRegistry(t *testing.T) {
	names, clients, outputs := map[string]bool{}, map[string]string{}, map[string]string{}
	for _, a := range All() {
		if a.Name == "" || a.DisplayName == "" || a.Vendor == "" {
			t.Errorf("%+v: name, display name and vendor are required", a)
		}
		if !slices.Contains([]string{ClaudeMD, AgentsMD}, a.InstructionFormat) || !slices.Contains([]string{Reference, Stepwise}, a.Style) {
			t.Errorf("%s: format %q, style %q", a.Name, a.InstructionFormat, a.Style)
		}
		if names[a.Name] {
			t.Errorf("%s is listed twice", a.Name)
		}
		names[a.Name] = true
		for _, c := range a.MCPClients {
			if other, dup := clients[c]; dup {
				t.Errorf("client %s identifies both %s and %s", c, other, a.Name)
			}
			clients[c] = a.Name
		}
		out := Output(a.Name, a.InstructionFormat, a.Style)
		if other, dup := outputs[out]; dup {
			t.Errorf("%s and %s both render to %s by default", other, a.Name, out)
		}
		outputs[out] = a.Name
		for _, v := range a.VendorSources {
			if !strings.HasPrefix(v.URL, "https://") || (v.Format != "markdown" && v.Format != "html") {
				t.Errorf("%s: vendor source %+v: https and markdown or html", a.Name, v)
			}
		}
		if c := a.Config; c != nil && (c.Project == "" || c.User == "" || (c.Format != JSONServers && c.Format != TOMLServers)) {
			t.Errorf("%s: incomplete client config %+v", a.Name, c)
		}
	}
	if got := Installable(); !slices.Equal(got, []string{"claude", "codex", "kimi"}) {
		t.Errorf("installable = %v", got)
	}
	a, _ := Lookup("claude")
	a.MCPClients[0] = "changed"
	if b, _ := Lookup("claude"); b.MCPClients[0] != "claude-code" {
		t.Error("Lookup hands out the registry's own slice")
	}
}

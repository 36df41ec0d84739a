package agents

import (
	"slices"
	"strings"
	"testing"
)

// TestRegistry: every entry is complete, and no two agents share a name, an
// MCP client name or a default output path — but harnesses whose entries
// say they share their one instruction file (Shares: Amp reads only
// AGENTS.md, Codex's render), and those only where both render there.
func TestRegistry(t *testing.T) {
	names, clients, outputs := map[string]bool{}, map[string]string{}, map[string][]string{}
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
		out := Output(a.Name, a.Name, a.InstructionFormat, a.Style)
		for _, other := range outputs[out] {
			if !Share(other, a.Name) {
				t.Errorf("%s and %s both render to %s by default, and neither's entry says they share it", other, a.Name, out)
			}
		}
		outputs[out] = append(outputs[out], a.Name)
		if h := a.Harness; h != nil {
			for _, s := range h.Shares {
				o, ok := Lookup(s)
				if s == a.Name || !ok || o.Harness == nil || Output(o.Name, o.Name, o.InstructionFormat, o.Style) != out || h.Instructions != o.Harness.Instructions {
					t.Errorf("%s shares its %s with %s, which does not render it", a.Name, out, s)
				}
			}
		}
		for _, v := range a.VendorSources {
			if !strings.HasPrefix(v.URL, "https://") || (v.Format != "markdown" && v.Format != "html") {
				t.Errorf("%s: vendor source %+v: https and markdown or html", a.Name, v)
			}
		}
		h := a.Harness
		if h == nil {
			continue
		}
		if h.Instructions == "" || (h.Client == "") == (h.NoClient == "") {
			t.Errorf("%s: a harness needs its instruction file, and either a real client the tests run or the reason none runs here", a.Name)
		}
		if h.NoMCP && (h.Config != nil || len(a.MCPClients) > 0) {
			t.Errorf("%s has no MCP client, yet a client configuration or client names", a.Name)
		}
		if c := h.Config; c != nil {
			if (c.Project == "" && c.User == "") || !slices.Contains([]ConfigFormat{JSON, TOML, YAML}, c.Format) || c.Servers == "" {
				t.Errorf("%s: incomplete client config %+v", a.Name, c)
			}
			if x := c.HTTP; x != nil && (x.URL == "" || (x.Header == "") == (x.BearerEnv == "") || x.Header != "" && strings.Count(x.Header, "%s") != 1) {
				t.Errorf("%s: HTTP spelling %+v: a URL key, and a header with one %%s or a bearer variable key", a.Name, x)
			}
		}
	}
	for _, name := range Installable() {
		if a, _ := Lookup(name); a.Harness == nil || a.Harness.Config == nil {
			t.Errorf("%s is installable without a client config", name)
		}
	}
	a, _ := Lookup("claude")
	a.MCPClients[0] = "changed"
	if b, _ := Lookup("claude"); b.MCPClients[0] != "claude-code" {
		t.Error("Lookup hands out the registry's own slice")
	}
}

func TestTokenEnv(t *testing.T) {
	for agent, want := range map[string]string{"claude": "BRIDLE_TOKEN_CLAUDE", "my-agent.2": "BRIDLE_TOKEN_MY_AGENT_2"} {
		if got := TokenEnv(agent); got != want {
			t.Errorf("TokenEnv(%q) = %q, want %q", agent, got, want)
		}
	}
	if TokenEnv("claude") == TokenEnv("codex") || TokenFileEnv("claude") == TokenEnv("claude") {
		t.Error("two agents, or a token and its file, share a variable")
	}
}

// TestSession: a harness's session variable names it; nothing set names
// none.
func TestSession(t *testing.T) {
	for _, a := range All() {
		if a.Harness == nil {
			continue
		}
		for _, v := range a.Harness.SessionEnv {
			got, variable, ok := Session(func(k string) string {
				if k == v {
					return "1"
				}
				return ""
			})
			if !ok || got != a.Name || variable != v {
				t.Errorf("%s set: Session = %s %s %v, want %s", v, got, variable, ok, a.Name)
			}
		}
	}
	if _, _, ok := Session(func(string) string { return "" }); ok {
		t.Error("a session with nothing set")
	}
	// A harness built on another sets both harnesses' variables: Kilo
	// Code's sessions carry OPENCODE=1 beside KILO=1 (seen in kilo 7.7.7's
	// MCP server environment), and are Kilo's.
	for _, c := range []struct {
		set  []string
		want string
	}{
		{[]string{"KILO", "OPENCODE"}, "kilo"},
		{[]string{"OPENCODE"}, "opencode"},
	} {
		got, _, ok := Session(func(k string) string {
			if slices.Contains(c.set, k) {
				return "1"
			}
			return ""
		})
		if !ok || got != c.want {
			t.Errorf("%v set: Session = %s %v, want %s", c.set, got, ok, c.want)
		}
	}
}

package gateway

// Attacks on the vault as the gateway's configuration uses it: each test
// is one exploit attempt and passes when the defence holds.

import (
	"strings"
	"testing"
)

// TestAttackConfigErrorsDoNotEchoAValue: "a value never goes in the
// configuration", and a plain token in token: is refused without being
// echoed. But a token pasted after the prefix (token: secret:<the token>,
// a natural misreading of "secret:") is not a valid name, and ParseRef /
// ValidName quote it whole in the error, which goes to the log and the
// terminal; the value is in no redactor, since it was never read as one.
func TestAttackConfigErrorsDoNotEchoAValue(t *testing.T) {
	const tok = "Kb0Canary7Token3XYZ99"
	for _, doc := range []string{
		"kanboard: {url: http://kb.invalid, projects: [1], token: " + tok + "}\n",
		"kanboard: {url: http://kb.invalid, projects: [1], token: \"secret:" + tok + "\"}\n",
		"kanboard: {url: http://kb.invalid, agents: {claude: {user: c, token: \"secret:" + tok + "\"}}}\n",
		"upstreams:\n  gitea: {url: https://g.invalid, bearer_token: \"secret:" + tok + "\"}\n",
		"upstreams:\n  gitea: {command: [gitea-mcp], secrets: {GITEA_TOKEN: \"secret:" + tok + "\"}}\n",
	} {
		_, err := ParseIntegrations("mcp.yaml", []byte(doc), func(string) string { return "" })
		if err == nil {
			t.Errorf("accepted: %s", doc)
			continue
		}
		if strings.Contains(err.Error(), tok) || strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tok)) {
			t.Errorf("the error echoes the token: %v", err)
		}
	}
}

// TestAttackPlainSecretIsNotEchoedAsAPath: an upstream's secrets: value
// that is not secret:NAME is a file path. A token written there by mistake
// (secrets: {GITEA_TOKEN: <the token>}) passes the configuration check and
// fails at start with os.ReadFile's "open <the token>: no such file", in
// the log and the upstream's status.
func TestAttackPlainSecretIsNotEchoedAsAPath(t *testing.T) {
	const tok = "ghp0Canary7Token3XYZ99abcdef"
	doc := "upstreams:\n  gitea: {command: [gitea-mcp], secrets: {GITEA_TOKEN: " + tok + "}}\n"
	if _, err := ParseIntegrations("mcp.yaml", []byte(doc), func(string) string { return "" }); err != nil {
		if strings.Contains(err.Error(), tok) {
			t.Errorf("the configuration error echoes the token: %v", err)
		}
		return
	}
	read, _, err := Credentials{}.reader("upstream gitea (GITEA_TOKEN)", "", tok)
	if err == nil && read != nil {
		_, err = read()
	}
	if err == nil || strings.Contains(err.Error(), tok) {
		t.Errorf("a token given as a path is accepted, or echoed: %v", err)
	}
}

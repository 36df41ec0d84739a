package redact

import (
	"strings"
	"unicode"
)

// Token is a well-known credential found in text: its value and what it is
// ("a GitHub token").
type Token struct{ Value, What string }

// Tokens finds the well-known credentials in s whose prefix says what they
// are — GitHub, GitLab, Slack, OpenAI, Anthropic, Stripe, AWS and Google
// tokens — and private keys (the value is the whole PEM block, or the
// BEGIN line when the block is cut). A token's body must mix letters and
// digits, as generated tokens do, so words that share a prefix
// (sk-learn-documentation-pages) are not tokens. It allocates only for
// what it finds: it runs over whole files and every environment variable.
func Tokens(s string) []Token {
	var out []Token
	if i := strings.Index(s, "-----BEGIN "); i >= 0 && strings.Contains(s[i:], "PRIVATE KEY-----") {
		block := s[i:]
		if j := strings.Index(block, "PRIVATE KEY-----"); j >= 0 {
			end := j + len("PRIVATE KEY-----")
			if k := strings.Index(block[end:], "PRIVATE KEY-----"); k >= 0 {
				end += k + len("PRIVATE KEY-----")
			}
			block = block[:end]
		}
		out = append(out, Token{block, "a private key"})
	}
	tokenByte := func(c byte) bool {
		return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	for i := 0; i < len(s); {
		if !tokenByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && tokenByte(s[j]) {
			j++
		}
		w := s[i:j]
		i = j
		if len(w) < 20 {
			continue // shorter than any token
		}
		for _, p := range tokenPrefixes {
			if strings.HasPrefix(w, p.prefix) && len(w) >= p.min && randomish(w[len(p.prefix):]) {
				out = append(out, Token{w, p.what})
				break
			}
		}
	}
	return out
}

// tokenPrefixes are the starts of well-known tokens, what each is, and the
// shortest such token; a longer prefix comes before a shorter one it
// starts with (sk-ant- before sk-).
var tokenPrefixes = [...]struct {
	prefix, what string
	min          int
}{
	{"ghp_", "a GitHub token", 30}, {"gho_", "a GitHub token", 30}, {"ghu_", "a GitHub token", 30},
	{"ghs_", "a GitHub token", 30}, {"ghr_", "a GitHub token", 30}, {"github_pat_", "a GitHub token", 40},
	{"glpat-", "a GitLab token", 24}, {"xoxb-", "a Slack token", 24}, {"xoxp-", "a Slack token", 24},
	{"sk-ant-", "an Anthropic key", 40}, {"sk-proj-", "an OpenAI key", 40}, {"sk-", "an API key", 40},
	{"sk_live_", "a Stripe key", 24}, {"rk_live_", "a Stripe key", 24},
	{"AKIA", "an AWS access key", 20}, {"ASIA", "an AWS access key", 20}, {"AIza", "a Google API key", 39},
}

// randomish reports a token body with digits and letters mixed, as
// generated tokens are.
func randomish(s string) bool {
	digits, letters := 0, 0
	for _, c := range s {
		switch {
		case unicode.IsDigit(c):
			digits++
		case unicode.IsLetter(c):
			letters++
		}
	}
	return digits >= 2 && letters >= 2
}

package proposals

// Attacks on the vault's promise that agent-written text holding a secret
// is refused at write time (DESIGN.md, trust model), through a proposal.
// Each passes when the defence holds.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/redact"
)

// proposalText is everything a proposal leaves behind for people to read:
// its body (with the base64 change marker decoded), title and the files of
// its branch commit.
func proposalText(t *testing.T, p Proposal) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(p.Title + "\n" + p.Body + "\n")
	for _, m := range regexp.MustCompile(`[A-Za-z0-9+/=]{40,}`).FindAllString(p.Body, -1) {
		if raw, err := base64.StdEncoding.DecodeString(m); err == nil {
			b.Write(raw)
		}
	}
	if p.Draft != nil {
		raw, _ := json.Marshal(p.Draft)
		b.Write(raw)
	}
	return b.String()
}

// TestAttackInvisibleCharactersHideASecret: the secret check runs on the
// raw text; MultiLine then strips control and zero-width characters from
// the rationale. A token with U+200B (or NUL) inserted passes the check and
// is stored in clear in the pull request body, the commit and the marker.
func TestAttackInvisibleCharactersHideASecret(t *testing.T) {
	const token = "gtea_4f9a1c77e2b04d"
	for name, sep := range map[string]string{"zero-width space": "\u200b", "NUL": "\x00", "soft hyphen": "\u00ad", "word joiner": "\u2060"} {
		t.Run(name, func(t *testing.T) {
			dir, _ := rulesRepo(t)
			l, _ := OpenLocal(dir, "test")
			svc := Service{Backend: l, Redactor: redact.New(token)}
			hidden := token[:6] + sep + token[6:]
			c := guardrail("smuggle")
			c.Rationale = "the token is " + hidden
			p, err := svc.Propose(context.Background(), Draft{Change: c, Origin: agentOrigin()})
			if err != nil {
				if !errors.Is(err, redact.ErrSecret) {
					t.Logf("refused otherwise: %v", err)
				}
				return // refused: the defence holds
			}
			if got, _ := l.Get(context.Background(), p.Number); strings.Contains(proposalText(t, got), token) || strings.Contains(proposalText(t, p), token) {
				t.Errorf("a token with %s inserted was accepted and stored in clear in proposal #%d", name, p.Number)
			}
		})
	}
}

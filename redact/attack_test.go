package redact

// Attacks on the promise that a registered value is masked "in every
// encoding" (DESIGN.md, trust model): an agent that got hold of a value
// writes it somewhere that outlives the session (memory, a proposal's
// rationale, a Kanboard comment) in a form Check does not recognise.
// Each case passes when the defence holds.

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

const attackToken = "gtea_4f9a1c77e2b04dQx"

// The encodings the package promises: each is masked, and Check refuses it.
func TestAttackPromisedEncodingsAreMasked(t *testing.T) {
	r := New(attackToken)
	js, _ := json.Marshal(attackToken)
	for name, s := range map[string]string{
		"raw":        attackToken,
		"json":       string(js),
		"query":      url.QueryEscape(attackToken),
		"path":       url.PathEscape(attackToken),
		"base64":     base64.StdEncoding.EncodeToString([]byte(attackToken)),
		"base64url":  base64.RawURLEncoding.EncodeToString([]byte(attackToken)),
		"in a word":  "xx" + attackToken + "yy",
		"json doc":   `{"a":"` + attackToken + `"}`,
		"json \\u":   `{"a":"\u0067tea_4f9a1c77e2b04dQx"}`,
		"in a value": "Bearer " + attackToken,
	} {
		if !r.Contains(s) && string(r.JSON([]byte(s))) == s {
			t.Errorf("%s: %q is not masked", name, s)
		}
	}
}

// TestAttackOtherEncodingsAreRefused: common encodings any reader undoes
// in one step are not recognised: hex (what xxd -p, od and many tools
// print), a changed case, percent-escaping of letters, a literal \u escape
// in plain text, reversal. Check passes each, so memory
// stores it and a proposal's rationale carries it into the pull request.
func TestAttackOtherEncodingsAreRefused(t *testing.T) {
	r := New(attackToken)
	var pct, uesc strings.Builder
	for _, c := range []byte(attackToken) {
		pct.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
		uesc.WriteString(`\u00` + hex.EncodeToString([]byte{c}))
	}
	rev := []byte(attackToken)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	for name, s := range map[string]string{
		"hex":              hex.EncodeToString([]byte(attackToken)),
		"HEX":              strings.ToUpper(hex.EncodeToString([]byte(attackToken))),
		"upper case":       strings.ToUpper(attackToken),
		"lower case":       strings.ToLower(attackToken),
		"percent, letters": pct.String(),
		"literal \\u":      "the token is " + uesc.String(),
		"reversed":         string(rev),
	} {
		if err := r.Check("rationale", s); err == nil {
			t.Errorf("%s: %q passes Check", name, s)
		}
	}
}

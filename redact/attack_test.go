package redact

// Attacks on the promise that a registered value is masked "in every
// encoding" (DESIGN.md, trust model): an agent that got hold of a value
// writes it somewhere that outlives the session (memory, a proposal's
// rationale, a Kanboard comment) in a form Check does not recognise.
// Each case passes when the defence holds.

import (
	"encoding/base32"
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

// swapCase is s with the case of every ASCII letter changed.
func swapCase(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case 'a' <= c && c <= 'z':
			b[i] = c - 32
		case 'A' <= c && c <= 'Z':
			b[i] = c + 32
		}
	}
	return string(b)
}

// The forms that reached an agent from an upstream's result or a Kanboard
// error (issue 23, item 6): base32, base64 of user:token (a Basic header,
// for a known user and for any other), reversed, split by a line break,
// with its case changed, and long pieces of it. Each is masked by Redact,
// and no run of windowLen bytes of the secret is left, in any case.
func TestAttackRedactedForms(t *testing.T) {
	const tok = "gtea_4f9a1c77e2b04dQx9Zk" // 24 bytes
	r := New(tok)
	r.AddUsers("jsonrpc", "mira")
	b32 := base32.StdEncoding.EncodeToString([]byte(tok))
	hex32 := base32.HexEncoding.EncodeToString([]byte(tok))
	basic := func(e *base64.Encoding, user string) string { return e.EncodeToString([]byte(user + ":" + tok)) }
	for name, s := range map[string]string{
		"base32":                 b32,
		"base32, unpadded":       strings.TrimRight(b32, "="),
		"base32, lower case":     strings.ToLower(b32),
		"base32 hex":             hex32,
		"base32 hex, unpadded":   strings.TrimRight(hex32, "="),
		"basic, known user":      "Authorization: Basic " + basic(base64.StdEncoding, "jsonrpc"),
		"basic, url, unpadded":   basic(base64.RawURLEncoding, "mira"),
		"basic, unknown user":    "Proxy-Authorization: Basic " + basic(base64.StdEncoding, "proxy-user"),
		"basic, unknown user 2":  basic(base64.StdEncoding, "ab"),
		"basic, unknown user 3":  basic(base64.URLEncoding, "abc"),
		"base64 in a longer one": base64.StdEncoding.EncodeToString([]byte(`{"token":"` + tok + `"}`)),
		"reversed":               "nekot: " + reversed(tok),
		"split by LF":            tok[:10] + "\n" + tok[10:],
		"split by CRLF":          tok[:5] + "\r\n" + tok[5:17] + "\r\n" + tok[17:],
		"split in a JSON error":  `{"error":"bad token ` + tok[:11] + "\n" + tok[11:] + `"}`,
		"lower case":             strings.ToLower(tok),
		"upper case":             strings.ToUpper(tok),
		"swapped case":           swapCase(tok),
		"prefix of 12":           "token " + tok[:12] + "…",
		"prefix, all but one":    tok[:len(tok)-1],
		"suffix of 12":           tok[len(tok)-12:],
		"middle":                 "x" + tok[6:19] + "y",
		"prefix, upper case":     strings.ToUpper(tok[:14]),
		"kanboard error":         "kanboard: 401 Unauthorized: Basic " + basic(base64.StdEncoding, "jsonrpc") + " for " + strings.ToUpper(tok),
	} {
		got := r.Redact(s)
		if !strings.Contains(got, Mask) {
			t.Errorf("%s: %q is not masked", name, got)
			continue
		}
		low := strings.ToLower(strings.NewReplacer("\r", "", "\n", "").Replace(got))
		for i := 0; i+windowLen <= len(tok); i++ {
			w := strings.ToLower(tok[i : i+windowLen])
			if strings.Contains(low, w) || strings.Contains(low, reversed(w)) {
				t.Errorf("%s: %d bytes of the secret left: %q", name, windowLen, got)
				break
			}
		}
		for _, f := range []string{b32, hex32, basic(base64.StdEncoding, "jsonrpc"), basic(base64.StdEncoding, "proxy-user"), basic(base64.StdEncoding, "ab")} {
			if strings.Contains(strings.ToLower(got), strings.ToLower(strings.TrimRight(f, "="))[4:20]) {
				t.Errorf("%s: encoded secret left: %q", name, got)
			}
		}
		if err := r.Check("comment", s); err == nil {
			t.Errorf("%s: %q passes Check", name, s)
		}
	}
}

// What the rule of windowLen-byte runs does not mask: a secret shorter than
// windowLen is masked only whole (in any case and form), so its pieces and
// ordinary text stay; and a piece of a longer one shorter than windowLen
// stays.
func TestAttackRedactedFormsBounds(t *testing.T) {
	const short, long = "Pw9!xk2Q", "gtea_4f9a1c77e2b04dQx9Zk"
	r := New(short, long)
	r.AddUsers("jsonrpc")
	for _, s := range []string{
		strings.ToLower(short),
		reversed(short),
		base32.StdEncoding.EncodeToString([]byte(short)),
		base64.StdEncoding.EncodeToString([]byte("jsonrpc:" + short)),
		"pre" + strings.ToUpper(short) + "post",
	} {
		if got := r.Redact(s); !strings.Contains(got, Mask) || strings.Contains(strings.ToLower(got), strings.ToLower(short)) {
			t.Errorf("%q: not masked: %q", s, got)
		}
	}
	for _, s := range []string{
		short[:7], short[1:], "the pw is " + short[:5] + " or so",
		long[:windowLen-1], long[len(long)-windowLen+1:],
		"Merge branch main into feature/parser: 4f9a1c77e2b1 is the commit",
	} {
		if got := r.Redact(s); got != s {
			t.Errorf("%q masked: %q", s, got)
		}
	}
}

// A secret that is a number is masked in a JSON document's numbers too.
func TestAttackNumberInJSON(t *testing.T) {
	r := New("48213377")
	out := r.JSON([]byte(`{"pin":48213377,"n":1}`))
	if strings.Contains(string(out), "48213377") || !json.Valid(out) {
		t.Errorf("%s", out)
	}
}

// Package redact removes secret values from what leaves Bridle: tool
// results, resource contents, JSON-RPC errors, audit events, log lines and
// CLI output all pass through one Redactor.
//
// Promise: once a value is registered, no output that went through Redact,
// JSON or Value contains it in any of the forms below, whole or (for a
// value of 12 bytes or more) as a run of 12 bytes or more. Nothing else is
// promised: a value rewritten otherwise (every other character, ROT13,
// gzip, a 10-byte piece) is beyond any redactor.
//
// What is registered (FromEnv):
//
//   - The value of every environment variable whose name marks a secret
//     (IsSecretName), and the contents of the file a secret-named *_FILE
//     variable names (Docker secrets), but for its comment lines (# …: an
//     age key file's public key is not secret).
//   - The password in every URL userinfo (scheme://user:PASSWORD@host) and in
//     every DSN (user:PASSWORD@tcp(host)/db, password=PASSWORD key=value) found
//     in any variable's value, whatever the variable is called: HTTPS_PROXY
//     and DATABASE_URL carry passwords as often as *_TOKEN does; and every
//     well-known token (Tokens: ghp_…, glpat-…, sk-…, AKIA…, private keys).
//   - Values shorter than MinLen, and a few values that are never secrets
//     (true, false, yes, none, null, nil, unset), are not registered.
//
// The forms masked, ASCII letters in any case (a value lower-cased,
// upper-cased or with its case swapped is masked, and so is each form):
//
//   - the value raw, and reversed (character by character);
//   - JSON-escaped (with and without HTML escaping, and with non-ASCII as
//     \uXXXX), URL-encoded (query and path escaping), hex;
//   - base64 (standard and URL alphabets, padded and not) and base32
//     (standard and extended-hex alphabets, padded and not) of the value
//     alone;
//   - base64 of user:value, an HTTP Basic credential, for every user name
//     registered with AddUsers, for a one-line value (the whole credential
//     is masked).
//
// A value of windowLen (12) bytes or more is also masked in part: every
// run of 12 bytes or more of the value, or of any of its forms above but
// the Basic credential, is masked wherever it occurs, and so are the characters of base64 (both alphabets) that the value
// alone decides at any alignment inside a longer encoded text, so base64
// of user:value for any user, or of a document that holds the value, is
// masked where it encodes the value. These runs are matched across line
// breaks (CR and LF are ignored within them), so a value split over lines
// is masked, pieces and breaks together. A value shorter than 12 bytes is
// masked only whole, in its forms, and not across line breaks: masking its
// pieces would rewrite ordinary text.
//
// Multi-line values (a PEM key) are masked whole; every line of at least
// lineMinLen (8) bytes is registered as a value (PEM armour lines
// "-----BEGIN …" are not secret and are not), and so is the body (the lines
// joined), so the key joined into one line or re-wrapped at any width is
// masked too.
//
// A masked run is replaced by Mask, widened to whole UTF-8 characters.
// Finding them all is one pass over the text, whatever the number of
// values (AddPattern's expressions run after it).
//
// Redact works on text. For JSON, JSON and Value mask the decoded strings
// (keys and values) before re-encoding, so the result stays valid JSON even
// when a short secret also occurs in its syntax; a number that holds a
// secret becomes the string Mask.
package redact

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Mask replaces a secret value.
const Mask = "[REDACTED]"

// MinLen is the shortest value masked. Secrets of 1–3 bytes protect nothing
// (they can be guessed) and masking them would rewrite ordinary words,
// numbers and JSON syntax everywhere ("id", "ok", "10"). From 4 bytes up a
// value that sits in a secret-named variable is masked wherever it occurs,
// even inside other words: the operator said it is a secret, and a short
// password is still a password.
const MinLen = 4

// lineMinLen is the shortest line of a multi-line value masked on its own:
// short lines of a key file ("Proc-Type: 4") are not secret by themselves.
const lineMinLen = 8

// ErrSecret marks text that holds a secret value or a credential.
var ErrSecret = errors.New("holds a secret")

// Redactor masks known secret values.
type Redactor struct {
	mu       sync.RWMutex
	values   map[string]struct{} // as registered
	users    []string            // AddUsers
	m        matcher
	patterns []*regexp.Regexp // shapes of secrets no one registered (AddPattern)
}

// AddPattern masks every match of re, too: the shape of a credential the
// process never saw whole (a gateway's agent tokens are stored hashed, so
// after a restart only their shape is known). re must not match ordinary
// text.
func (r *Redactor) AddPattern(re *regexp.Regexp) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.patterns = append(r.patterns, re)
}

// New returns a Redactor for the given secret values.
func New(secrets ...string) *Redactor {
	r := &Redactor{}
	r.Add(secrets...)
	return r
}

// wholeWords mark a secret when they are a whole part of a variable's name
// (split at '_', '-' and '.'). Short words must be whole, so that MONKEY,
// KEYBOARD_LAYOUT, PATH, COMPASS and PASSAGE are not secrets.
var wholeWords = map[string]bool{
	"KEY": true, "KEYS": true, "PAT": true, "PASS": true, "PASSPHRASE": true,
	"TOKEN": true, "TOKENS": true, "SECRET": true, "SECRETS": true,
	"PASSWORD": true, "PASSWORDS": true, "PASSWD": true,
	"CREDENTIAL": true, "CREDENTIALS": true, "CREDS": true,
	"APIKEY": true, "PRIVATEKEY": true, "ACCESSKEY": true, "SECRETKEY": true,
}

// suffixWords mark a secret when a part ends with them (GITEATOKEN,
// CLIENTSECRET, DBPASSWORD); they are long enough not to end ordinary words.
// They are suffixes, not substrings, so TOKENIZERS_PARALLELISM is not one.
var suffixWords = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "APIKEY", "CREDENTIAL", "CREDENTIALS"}

// IsSecretName reports whether an environment variable's name marks a
// secret: one of its parts (split at '_', '-' and '.', case ignored) is one
// of wholeWords, or ends with one of suffixWords. PWD is deliberately not
// one: it is the shell's working directory far more often than a password.
func IsSecretName(name string) bool {
	parts := strings.FieldsFunc(strings.ToUpper(name), func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	for _, p := range parts {
		if wholeWords[p] {
			return true
		}
		for _, w := range suffixWords {
			if strings.HasSuffix(p, w) {
				return true
			}
		}
	}
	return false
}

// maxSecretFile is the largest *_FILE read; a secret is never bigger.
const maxSecretFile = 64 << 10

// FromEnv returns a Redactor for environ (KEY=VALUE pairs, as from
// os.Environ), by the rule in the package doc.
func FromEnv(environ []string) *Redactor {
	r := New()
	var add []string
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		add = append(add, Credentials(v)...)
		if !IsSecretName(k) {
			continue
		}
		if strings.HasSuffix(strings.ToUpper(k), "_FILE") {
			if st, err := os.Stat(v); err == nil && st.Mode().IsRegular() && st.Size() <= maxSecretFile {
				if b, err := os.ReadFile(v); err == nil {
					add = append(add, uncommented(string(b)))
				}
			}
			continue
		}
		add = append(add, v)
	}
	r.Add(add...)
	return r
}

// uncommented is a secret file's content without its comment lines: key
// files carry public information there (age-keygen's "# public key: age1…",
// which must stay readable wherever a recipient is shown).
func uncommented(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			b.WriteString(line)
		}
	}
	return strings.TrimSpace(b.String())
}

// neverSecret are values that sit in secret-named variables as switches
// (HF_HUB_DISABLE_TOKEN=true) and must not be masked everywhere.
var neverSecret = map[string]bool{"true": true, "false": true, "yes": true, "none": true, "null": true, "nil": true, "unset": true}

// Maskable reports whether s, registered, would be masked: values shorter
// than MinLen and a few words that are never secrets are not.
func Maskable(s string) bool { return registrable(s) }

func registrable(s string) bool {
	return len(s) >= MinLen && !neverSecret[strings.ToLower(s)] && !strings.Contains(maskText, foldString(s))
}

// Add registers more secret values.
func (r *Redactor) Add(secrets ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range secrets {
		if _, ok := r.values[s]; ok || !registrable(s) {
			continue
		}
		if r.values == nil {
			r.values = map[string]struct{}{}
		}
		r.values[s] = struct{}{}
		r.add(s)
	}
}

// AddUsers registers user names a secret may be paired with in an HTTP
// Basic credential (base64 of user:secret, as an echoed Authorization or
// Proxy-Authorization header shows it): every one-line value, registered
// before or after, is also masked whole in that form for each of them.
func (r *Redactor) AddUsers(names ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, u := range names {
		if slices.Contains(r.users, u) {
			continue
		}
		r.users = append(r.users, u)
		for v := range r.values {
			if !strings.ContainsAny(v, "\r\n") {
				for _, f := range basic(u, v) {
					r.m.addExact(f)
				}
			}
		}
	}
}

// add registers the forms of one value (r.mu held).
func (r *Redactor) add(s string) {
	if !strings.ContainsAny(s, "\r\n") {
		r.m.addValue(s)
		for _, u := range r.users {
			for _, f := range basic(u, s) {
				r.m.addExact(f)
			}
		}
		return
	}
	// A multi-line value: whole, its short lines whole, and its body (the
	// lines joined, PEM armour left out) as a one-line value, whose runs
	// are matched across line breaks however it is wrapped.
	for _, f := range forms(s) {
		r.m.addExact(f)
	}
	var body strings.Builder
	for line := range strings.Lines(s) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "-----") {
			continue // PEM armour: not secret, and common to every key
		}
		body.WriteString(line)
		if len(line) >= lineMinLen {
			r.m.addValue(line)
		}
	}
	if b := body.String(); len(b) >= lineMinLen {
		r.m.addValue(b)
	}
}

// jsonEscape is s as encoding/json writes it inside a string, without the
// quotes.
func jsonEscape(s string, html bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	enc.Encode(s)
	return strings.TrimSuffix(strings.TrimSuffix(b.String(), "\n"), `"`)[1:]
}

// jsonASCII is s JSON-escaped the way ASCII-only encoders (Python's
// json.dumps, jq -a) write it: every non-ASCII rune as \uXXXX.
func jsonASCII(s string) string {
	var b strings.Builder
	for _, r := range jsonEscape(s, false) {
		switch {
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case r > 0xFFFF:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// Redact returns s with every registered secret masked.
func (r *Redactor) Redact(s string) string {
	if r == nil {
		return s
	}
	r.mu.RLock()
	spans := r.m.find(s)
	patterns := r.patterns
	r.mu.RUnlock()
	s = mask(s, spans)
	for _, re := range patterns {
		s = re.ReplaceAllLiteralString(s, Mask)
	}
	return s
}

// Contains reports whether s holds a registered secret in any form.
func (r *Redactor) Contains(s string) bool { return r.Redact(s) != s }

// Value masks every string in v, a value decoded from JSON (maps, slices,
// strings, numbers), keys included, and returns it.
func (r *Redactor) Value(v any) any {
	switch x := v.(type) {
	case string:
		return r.Redact(x)
	case json.Number:
		// A number that holds a secret (a PIN) becomes the mask, a string.
		if r.Contains(string(x)) {
			return Mask
		}
	case []any:
		for i := range x {
			x[i] = r.Value(x[i])
		}
	case map[string]any:
		for k, e := range x {
			if rk := r.Redact(k); rk != k {
				delete(x, k)
				k = rk
			}
			x[k] = r.Value(e)
		}
	}
	return v
}

// JSON masks the strings of a JSON document before re-encoding it, so that
// every escaped form is covered and the result stays valid JSON. b is
// returned as is when it holds no secret; text that is not JSON is masked
// as text.
func (r *Redactor) JSON(b []byte) []byte {
	if r == nil || !r.Contains(string(b)) && !r.containsDecoded(b) {
		return b
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return []byte(r.Redact(string(b)))
	}
	out, err := json.Marshal(r.Value(v))
	if err != nil {
		return []byte(r.Redact(string(b)))
	}
	return out
}

// containsDecoded catches escapes no registered form spells (\u0070 for p):
// it is only consulted when the text holds a backslash.
func (r *Redactor) containsDecoded(b []byte) bool {
	if !bytes.ContainsRune(b, '\\') {
		return false
	}
	var v any
	if json.Unmarshal(b, &v) != nil {
		return false
	}
	found := false
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			found = found || r.Contains(x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for k, e := range x {
				found = found || r.Contains(k)
				walk(e)
			}
		}
	}
	walk(v)
	return found
}

// Error returns err with its message masked; errors.Is and errors.As still
// see the original chain.
func (r *Redactor) Error(err error) error {
	if err == nil || r == nil {
		return err
	}
	msg := err.Error()
	if red := r.Redact(msg); red != msg {
		return &redactedError{msg: red, err: err}
	}
	return err
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// Credentials finds passwords in s: in URL userinfo
// (scheme://user:PASSWORD@host, percent-decoded too), in MySQL-style DSNs
// (user:PASSWORD@tcp(host)/db) and in key=value strings (password=PASSWORD,
// pwd='…'; ADO.NET's Password=…;). Placeholders ($VAR, ${VAR}, <pw>, {{…}},
// ***) are not passwords. It also returns every well-known token in s
// (Tokens), which is a credential whatever surrounds it.
func Credentials(s string) []string {
	var out []string
	for _, t := range Tokens(s) {
		out = append(out, t.Value)
	}
	// Every command runs this over every environment variable (FromEnv): an
	// expression runs only where the text holds what any match of it must
	// (credentialHints), which most values do not.
	return passwords(s, out, credentialHints)
}

// passwords appends to out the passwords credentialPatterns find in s,
// running only the expressions hints says can match.
func passwords(s string, out []string, hints func(string) (userinfo, dsn, kv bool)) []string {
	add := func(pw string) {
		if placeholder(pw) {
			return
		}
		out = append(out, pw)
		if dec, err := url.PathUnescape(pw); err == nil && dec != pw {
			out = append(out, dec)
		}
	}
	re := credentialPatterns()
	userinfo, dsn, kv := hints(s)
	if userinfo {
		for _, m := range re.urlUserinfo.FindAllStringSubmatch(s, -1) {
			add(m[1])
		}
	}
	if dsn {
		for _, m := range re.mysqlDSN.FindAllStringSubmatch(s, -1) {
			add(m[1])
		}
	}
	if kv {
		for _, m := range re.keyValuePassword.FindAllStringSubmatch(s, -1) {
			add(m[1] + m[2] + m[3])
		}
	}
	return out
}

// credentialHints says which of credentialPatterns' expressions can match s,
// from text each match must hold: a URL's userinfo "://" and "@"; a DSN ":",
// "@" and "("; a key=value password "=" and a p or P (every alternative
// starts with p, which case-folds to P only).
func credentialHints(s string) (userinfo, dsn, kv bool) {
	at := strings.IndexByte(s, '@') >= 0
	userinfo = at && strings.Contains(s, "://")
	dsn = at && strings.IndexByte(s, '(') >= 0 && strings.IndexByte(s, ':') >= 0
	kv = strings.IndexByte(s, '=') >= 0 && strings.ContainsAny(s, "pP")
	return userinfo, dsn, kv
}

// credentialPatterns are compiled at first use.
var credentialPatterns = sync.OnceValue(func() (re struct{ urlUserinfo, mysqlDSN, keyValuePassword *regexp.Regexp }) {
	// The userinfo ends at the last '@' before the path: greedy, then back.
	re.urlUserinfo = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:]*:([^\s/?#]+)@[^\s/?#@]*`)
	re.mysqlDSN = regexp.MustCompile(`(?:^|[\s"'=])[^\s:@/"'=]+:([^\s@"']+)@(?:tcp|udp|unix)?\(`)
	re.keyValuePassword = regexp.MustCompile(`(?i)\b(?:password|passwd|pwd|pass)\s*=\s*(?:'([^']*)'|"([^"]*)"|([^\s;'"&]+))`)
	return re
})

func placeholder(pw string) bool {
	if pw == "" || strings.Contains(pw, Mask) {
		return true
	}
	for _, p := range []string{"$", "<", "{{", "%(", "***", "..."} {
		if strings.HasPrefix(pw, p) {
			return true
		}
	}
	return false
}

// MaskCredentials returns s with every password Credentials finds masked,
// and whether it found one: for agent text, which may carry a password no
// environment variable holds.
func MaskCredentials(s string) (string, bool) {
	pws := Credentials(s)
	if len(pws) == 0 {
		return s, false
	}
	return New(pws...).Redact(s), true
}

// Check returns an error wrapping ErrSecret, naming field (never the
// value), if s holds a registered secret or a password. It is the check on
// what agents write, so it also sees through what a reader undoes in one
// step: invisible and control characters inserted in the value, a changed
// case, percent-escaped or literal \uXXXX-escaped letters, and the value
// reversed. A value split across fields or rewritten is beyond any check.
func (r *Redactor) Check(field, s string) error {
	if r.Contains(s) || r.hidden(s) {
		return fmt.Errorf("%s %w: a value Bridle knows as a secret (a token, key or password from its environment)", field, ErrSecret)
	}
	if _, found := MaskCredentials(s); found {
		return fmt.Errorf("%s %w: a password (in a URL's user:password@ or a connection string) or a well-known token", field, ErrSecret)
	}
	return nil
}

// Handler wraps a slog.Handler so that messages and attributes are redacted
// before they are encoded.
func (r *Redactor) Handler(h slog.Handler) slog.Handler { return &handler{h: h, r: r} }

type handler struct {
	h slog.Handler
	r *Redactor
}

func (h *handler) Enabled(ctx context.Context, l slog.Level) bool { return h.h.Enabled(ctx, l) }

func (h *handler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.r.Redact(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.h.Handle(ctx, out)
}

func (h *handler) attr(a slog.Attr) slog.Attr {
	key := h.r.Redact(a.Key)
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(key, h.r.Redact(v.String()))
	case slog.KindGroup:
		var as []any
		for _, g := range v.Group() {
			as = append(as, h.attr(g))
		}
		return slog.Group(key, as...)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(key, h.r.Redact(err.Error()))
		}
		if b, ok := v.Any().([]byte); ok {
			return slog.String(key, h.r.Redact(string(b)))
		}
		return slog.String(key, h.r.Redact(v.String()))
	}
	return slog.Attr{Key: key, Value: v}
}

func (h *handler) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = h.attr(a)
	}
	return &handler{h: h.h.WithAttrs(red), r: h.r}
}

func (h *handler) WithGroup(name string) slog.Handler {
	return &handler{h: h.h.WithGroup(h.r.Redact(name)), r: h.r}
}

// hidden reports whether a registered secret is in s once s is undone the
// ways Check promises (invisible characters, case, escapes, reversal).
func (r *Redactor) hidden(s string) bool {
	if r == nil {
		return false
	}
	base := []string{s, strings.Map(dropInvisible, s)}
	variants := slices.Clone(base)
	for _, b := range base {
		variants = append(variants, percentDecoded(b), unicodeUnescaped(b))
	}
	for _, v := range variants {
		if v != s && r.Contains(v) {
			return true
		}
	}
	return false
}

// dropInvisible removes what a reader does not see: control characters
// and format characters (zero-width spaces and joiners, BOMs, bidi marks).
func dropInvisible(r rune) rune {
	if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || unicode.Is(unicode.Cf, r) {
		return -1
	}
	return r
}

// percentDecoded is s with every %XX decoded (the rest as it is).
func percentDecoded(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := hex.DecodeString(s[i+1 : i+3]); err == nil {
				b.WriteByte(v[0])
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unicodeUnescaped is s with every literal \uXXXX decoded.
func unicodeUnescaped(s string) string {
	if !strings.Contains(s, `\u`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+6 <= len(s) && s[i+1] == 'u' {
			if v, err := strconv.ParseUint(s[i+2:i+6], 16, 32); err == nil {
				b.WriteRune(rune(v))
				i += 5
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func reversed(s string) string {
	rs := []rune(s)
	slices.Reverse(rs)
	return string(rs)
}

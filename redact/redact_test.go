package redact

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const canary = "canary-7f3a9c1e-secret"

// hostile is a secret every encoder changes: HTML-escaped characters, a
// quote, a backslash, non-ASCII, a control character.
const hostile = "p&<a>\"ss\\word-123é\u2028\t!"

func TestRedact(t *testing.T) {
	file := filepath.Join(t.TempDir(), "token")
	os.WriteFile(file, []byte("file-secret-value\n"), 0o600)
	r := FromEnv([]string{
		"GITEA_TOKEN=" + canary,
		"KANBOARD_API_TOKEN_FILE=" + file,
		"HOME=/root",      // not a secret name
		"SHORT_TOKEN=abc", // below MinLen
		"QDRANT_API_KEY=qk-" + canary,
	})
	in := "token " + canary + " and qk-" + canary + " and file-secret-value in /root with abc"
	got := r.Redact(in)
	for _, s := range []string{canary, "file-secret-value"} {
		if strings.Contains(got, s) {
			t.Errorf("%q leaked: %s", s, got)
		}
	}
	if !strings.Contains(got, "/root") || !strings.Contains(got, "abc") {
		t.Errorf("non-secrets were masked: %s", got)
	}
	var nilR *Redactor
	if nilR.Redact("x") != "x" {
		t.Error("nil Redactor must pass text through")
	}
}

func TestIsSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"GITEA_TOKEN": true, "GITEA_TOKEN_FILE": true, "GITEATOKEN": true, "QDRANT_API_KEY": true, "API_KEY": true,
		"SSH_KEY": true, "AGE_KEY": true, "AWS_SECRET_ACCESS_KEY": true, "GH_PAT": true, "SMTP_PASS": true,
		"DB_PASSWORD": true, "MYSQL_PASSWD": true, "CLIENTSECRET": true, "GOOGLE_CREDENTIALS": true, "gpg_passphrase": true,
		"bridle-examples-token": true, "KEY": true, "SIGNING_KEYS": true, "DOCKER_CREDS": true,

		"KEYBOARD_LAYOUT": false, "MONKEY": false, "PATH": false, "GOPATH": false, "PASSAGE": false, "COMPASS_DIR": false,
		"PWD": false, "OLDPWD": false, "TOKENIZERS_PARALLELISM": false, "PATTERN": false, "BYPASS_CACHE": false,
		"HOME": false, "KEYCHAIN": false, "SECRETARY": false, "XAUTHORITY": false, "DATABASE_URL": false,
	} {
		if got := IsSecretName(name); got != want {
			t.Errorf("IsSecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestFromEnvCredentialsAndShortValues(t *testing.T) {
	r := FromEnv([]string{
		"DATABASE_URL=postgres://app:pg-pa%40ss@db.internal:5432/app",
		"HTTPS_PROXY=http://proxy-user:Pr0xy!@proxy:3128",
		"MYSQL_DSN=root:my-sql-pw@tcp(127.0.0.1:3306)/app",
		"PG_DSN=host=db user=app password='libpq pw' sslmode=disable",
		"MSSQL=Server=tcp:x;User Id=sa;Password=Ado.Net9;",
		"PLACEHOLDER_URL=https://u:${DB_PASSWORD}@h/",
		"PIN_PASS=4321",             // short, but from a secret-named variable
		"TINY_TOKEN=ab1",            // below MinLen
		"HF_HUB_DISABLE_TOKEN=true", // a switch, not a secret
		"GREETING=hello world",
	})
	for _, leak := range []string{"pg-pa%40ss", "pg-pa@ss", "Pr0xy!", "my-sql-pw", "libpq pw", "Ado.Net9", "4321"} {
		if got := r.Redact("x " + leak + " y"); strings.Contains(got, leak) {
			t.Errorf("%q not masked: %s", leak, got)
		}
	}
	for _, keep := range []string{"ab1", "true", "hello world", "${DB_PASSWORD}", "db.internal", "proxy-user"} {
		if got := r.Redact(keep); got != keep {
			t.Errorf("%q masked: %s", keep, got)
		}
	}
}

// TestEncodedForms: a hostile secret is masked in every form it can leave
// in, and JSON stays valid JSON.
func TestEncodedForms(t *testing.T) {
	r := FromEnv([]string{"APP_PASS=" + hostile})
	html, _ := json.Marshal(hostile)
	var plain bytes.Buffer
	enc := json.NewEncoder(&plain)
	enc.SetEscapeHTML(false)
	enc.Encode(hostile)
	forms := map[string]string{
		"raw":         hostile,
		"json":        string(html),
		"json-nohtml": plain.String(),
		"json-ascii":  jsonASCII(hostile),
		"query":       url.QueryEscape(hostile),
		"path":        url.PathEscape(hostile),
		"base64":      base64.StdEncoding.EncodeToString([]byte(hostile)),
		"base64url":   base64.RawURLEncoding.EncodeToString([]byte(hostile)),
	}
	for name, f := range forms {
		got := r.Redact("before " + f + " after")
		if strings.Contains(got, f) || !strings.Contains(got, Mask) {
			t.Errorf("%s form leaked: %s", name, got)
		}
	}
	doc, _ := json.Marshal(map[string]any{"text": "token " + hostile, hostile: []any{1.5, hostile}})
	out := r.JSON(doc)
	if !json.Valid(out) || bytes.Contains(out, []byte("ss\\\\word")) || strings.Contains(string(out), "word-123") {
		t.Errorf("JSON: %s", out)
	}
	// An escape no encoder of ours writes (\u0070 for p) is still caught.
	odd := []byte(`{"a":"\u0070&<a>\"ss\\word-123\u00e9\u2028\t!"}`)
	if out := r.JSON(odd); strings.Contains(string(out), "word-123") {
		t.Errorf("odd escapes leaked: %s", out)
	}
}

// TestShortSecretKeepsJSONValid: a 4-byte secret that is also a JSON key
// is masked in values and keys without breaking the document.
func TestShortSecretKeepsJSONValid(t *testing.T) {
	r := New("kind")
	out := r.JSON([]byte(`{"kind":"note","text":"what kind of thing","n":12345678901234567890}`))
	if !json.Valid(out) || strings.Contains(string(out), "kind") || !strings.Contains(string(out), "12345678901234567890") {
		t.Errorf("%s", out)
	}
}

func pemKey(t *testing.T) string {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(k)
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

// TestMultiLineFileSecret: a PEM key from a *_FILE variable is masked whole,
// line by line, joined and re-wrapped, and JSON-escaped.
func TestMultiLineFileSecret(t *testing.T) {
	key := pemKey(t)
	file := filepath.Join(t.TempDir(), "key.pem")
	os.WriteFile(file, []byte(key), 0o600)
	r := FromEnv([]string{"DEPLOY_PRIVATE_KEY_FILE=" + file})
	var lines []string
	for l := range strings.Lines(key) {
		if l = strings.TrimSpace(l); !strings.HasPrefix(l, "-----") {
			lines = append(lines, l)
		}
	}
	body := strings.Join(lines, "")
	var rewrapped strings.Builder
	for i := 0; i < len(body); i += 76 {
		rewrapped.WriteString(body[i:min(i+76, len(body))] + "\r\n")
	}
	jsonKey, _ := json.Marshal(key)
	for name, out := range map[string]string{
		"whole":     key,
		"one line":  lines[3],
		"joined":    body,
		"rewrapped": rewrapped.String(),
		"json":      string(jsonKey),
		"in a log":  "loaded key " + lines[5] + " from disk",
	} {
		got := r.Redact(out)
		for i, l := range lines[:len(lines)-1] { // the last line may be short
			if strings.Contains(got, l) {
				t.Errorf("%s: line %d leaked", name, i)
			}
		}
		for i := 0; i+windowLen <= len(body); i += windowLen {
			if strings.Contains(got, body[i:i+windowLen]) {
				t.Errorf("%s: %d bytes of the body leaked at %d: %s", name, windowLen, i, got)
				break
			}
		}
	}
	if got := r.Redact("-----BEGIN PRIVATE KEY----- is PEM armour"); got != "-----BEGIN PRIVATE KEY----- is PEM armour" {
		t.Errorf("armour masked: %s", got)
	}
}

func TestSecretFileLimits(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	os.WriteFile(big, bytes.Repeat([]byte("x"), maxSecretFile+1), 0o600)
	r := FromEnv([]string{"A_TOKEN_FILE=" + big, "B_TOKEN_FILE=" + dir, "C_TOKEN_FILE=/nonexistent"})
	if len(r.values) != 0 {
		t.Errorf("registered %d values from unusable files", len(r.values))
	}
}

func TestCheck(t *testing.T) {
	r := New(hostile)
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{"use " + hostile, true},
		{"clone https://bob:hunter22@git.example.com/x.git", true},
		{"set password=hunter22 in the file", true},
		{"clone https://git.example.com/x.git", false},
		{"set password=$DB_PASSWORD", false},
		{"Never commit a password.", false},
	} {
		err := r.Check("statement", tt.in)
		if got := errors.Is(err, ErrSecret); got != tt.want {
			t.Errorf("Check(%q) = %v", tt.in, err)
		}
		if err != nil && (strings.Contains(err.Error(), "hunter22") || strings.Contains(err.Error(), "word-123") || !strings.Contains(err.Error(), "statement")) {
			t.Errorf("Check error must name the field, never the value: %v", err)
		}
	}
}

func TestError(t *testing.T) {
	r := New(canary)
	err := r.Error(fmt.Errorf("open %s: %w", canary, fs.ErrNotExist))
	if strings.Contains(err.Error(), canary) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%v", err)
	}
}

func TestHandler(t *testing.T) {
	var buf bytes.Buffer
	r := New(canary, hostile)
	log := slog.New(r.Handler(slog.NewJSONHandler(&buf, nil))).With("token", canary)
	log.Error("failed with "+canary, "err", errors.New("auth "+canary), slog.Group("g", "k", canary), "pw", hostile, "raw", []byte(canary))
	if strings.Contains(buf.String(), canary) || strings.Contains(buf.String(), "word-123") {
		t.Fatalf("log leaked the secret: %s", buf.String())
	}
	if strings.Count(buf.String(), Mask) != 6 {
		t.Errorf("expected 6 masks: %s", buf.String())
	}
}

// FuzzRedact: whatever surrounds a secret, it never survives, in any
// case, nor does a run of windowLen bytes of it (line breaks ignored); and
// JSON stays valid.
func FuzzRedact(f *testing.F) {
	f.Add("prefix", "suffix", hostile)
	f.Add("", "", "abcd")
	f.Add("token ", "\n", "gtea_4f9a1c77e2b04dQx9Zk")
	f.Add("GTEA_4F9A1C77E2B0", "4DQX9ZK", "gtea_4f9a1c77e2b04dQx9Zk")
	f.Add("a\r\n", "é", "é€p4ss-word-with-ünïcode")
	f.Add("[", "]", "x]y[REDACTED]z-long-enough")
	f.Fuzz(func(t *testing.T, pre, post, secret string) {
		if !registrable(secret) || !utf8Valid(pre+secret+post) {
			return
		}
		r := New(secret)
		got := r.Redact(pre + secret + post)
		if strings.Contains(foldString(got), foldString(secret)) {
			t.Fatalf("leaked: %q", got)
		}
		if len(secret) >= windowLen && !strings.ContainsAny(secret, "\r\n") {
			flat := foldString(strings.NewReplacer("\r", "", "\n", "").Replace(got))
			for i := 0; i+windowLen <= len(secret); i++ {
				if w := foldString(secret[i : i+windowLen]); !strings.ContainsAny(w, "[]") && strings.Contains(flat, w) {
					t.Fatalf("%d bytes at %d leaked: %q", windowLen, i, got)
				}
			}
		}
		doc, _ := json.Marshal(map[string]string{"k": pre + secret + post})
		if out := r.JSON(doc); !json.Valid(out) {
			t.Fatalf("invalid JSON: %s", out)
		}
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestAddPatternMasksAShape(t *testing.T) {
	r := New()
	r.AddPattern(regexp.MustCompile(`bridle_[A-Za-z0-9_-]{43}`))
	tok := "bridle_" + strings.Repeat("A", 43)
	if got := r.Redact("token " + tok + " here"); got != "token "+Mask+" here" {
		t.Errorf("Redact = %q", got)
	}
	if got := string(r.JSON([]byte(`{"t":"` + tok + `"}`))); strings.Contains(got, tok) {
		t.Errorf("JSON = %s", got)
	}
	if got := r.Redact("bridle_short"); got != "bridle_short" {
		t.Errorf("a non-token was masked: %q", got)
	}
}

// An age key file's comments (its public key) are not masked; its key is.
func TestFromEnvKeyFileComments(t *testing.T) {
	p := filepath.Join(t.TempDir(), "age.key")
	const pub, key = "age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p", "AGE-SECRET-KEY-1QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ"
	if err := os.WriteFile(p, []byte("# created: 2026-12-01\n# public key: "+pub+"\n"+key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := FromEnv([]string{"SOPS_AGE_KEY_FILE=" + p})
	if got := r.Redact(pub + " " + key); got != pub+" "+Mask {
		t.Errorf("Redact = %q", got)
	}
}

// credentialsUnfiltered is Credentials without credentialHints: every
// expression on every string.
func credentialsUnfiltered(s string) []string {
	var out []string
	for _, t := range Tokens(s) {
		out = append(out, t.Value)
	}
	return passwords(s, out, func(string) (bool, bool, bool) { return true, true, true })
}

var credentialCases = []string{
	"", "/usr/bin:/bin", "postgres://app:s3cr%40t@db:5432/x", "https://u:p@h/x@y", "user:pw@tcp(db:3306)/x",
	"a=1 Password='x y' PWD=\"z\" pass=w&q=1", "PaSsWoRd = v;", "paſſword=long-s", "pwd=", "x@y(z", "=p", "p=",
	"DSN=u:pw@unix(/tmp/s)/db", "mysql://u:pw@h", "no secrets here", "ǅ=Pass=1", "http://[::1]:p@x",
}

// TestCredentialHintsChangeNothing: the hints skip only expressions that
// cannot match.
func TestCredentialHintsChangeNothing(t *testing.T) {
	for _, s := range credentialCases {
		if got, want := Credentials(s), credentialsUnfiltered(s); !slices.Equal(got, want) {
			t.Errorf("Credentials(%q) = %q, want %q (without hints)", s, got, want)
		}
	}
}

func FuzzCredentials(f *testing.F) {
	for _, s := range credentialCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Credentials(s), credentialsUnfiltered(s); !slices.Equal(got, want) {
			t.Errorf("Credentials(%q) = %q, want %q (without hints)", s, got, want)
		}
	})
}

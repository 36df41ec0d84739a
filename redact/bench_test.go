package redact

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchSecrets are n tokens of the shapes a gateway holds (Gitea, Kanboard,
// agent tokens), fixed by seed.
func benchSecrets(n int) []string {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]string, n)
	for i := range out {
		b := make([]byte, 20+rng.IntN(12))
		for j := range b {
			b[j] = byte(rng.UintN(256))
		}
		switch i % 3 {
		case 0:
			out[i] = hex.EncodeToString(b)
		case 1:
			out[i] = "bridle_" + base64.RawURLEncoding.EncodeToString(b)
		default:
			out[i] = fmt.Sprintf("tok-%s", base64.RawStdEncoding.EncodeToString(b))
		}
	}
	return out
}

// benchText is size bytes of what an upstream answers (JSON with prose,
// SHAs and URLs), with each of leaks placed once in it.
func benchText(size int, leaks []string) string {
	rng := rand.New(rand.NewPCG(3, 4))
	words := strings.Fields("the issue pull request merge branch main commit review label milestone Comment opened closed by user with a fix for bug in parser and tests")
	var b strings.Builder
	for b.Len() < size {
		sha := make([]byte, 20)
		for j := range sha {
			sha[j] = byte(rng.UintN(256))
		}
		fmt.Fprintf(&b, `{"id":%d,"sha":"%x","url":"https://git.example.com/runic/app/pulls/%d","body":"`, rng.IntN(1e6), sha, rng.IntN(1000))
		for range 12 {
			b.WriteString(words[rng.IntN(len(words))] + " ")
		}
		b.WriteString("\"}\n")
	}
	s := b.String()[:size]
	for i, l := range leaks {
		at := (i + 1) * size / (len(leaks) + 1)
		s = s[:at] + l + s[at+len(l):]
	}
	return s
}

// BenchmarkRedact: 20 registered secrets over a 64 KiB answer, without a
// secret in it (the common case) and with each of them once.
func BenchmarkRedact(b *testing.B) {
	secrets := benchSecrets(20)
	r := New(secrets...)
	for _, bc := range []struct {
		name string
		text string
	}{
		{"clean", benchText(64<<10, nil)},
		{"leaks", benchText(64<<10, secrets)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.text)))
			for b.Loop() {
				r.Redact(bc.text)
			}
		})
	}
}

// BenchmarkNew: registering 20 secrets, and one (what a client that masks
// its own token does at each start).
func BenchmarkNew(b *testing.B) {
	secrets := benchSecrets(20)
	b.Run("20", func(b *testing.B) {
		for b.Loop() {
			New(secrets...)
		}
	})
	b.Run("1", func(b *testing.B) {
		for b.Loop() {
			New(secrets[0])
		}
	})
}

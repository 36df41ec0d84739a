// Package redact removes secret values from text before it leaves Bridle:
// tool results, resource contents, audit events and log lines all pass
// through one Redactor.
//
// Promise: once a value is registered (directly, or because it sits in an
// environment variable whose name marks it as a secret, or in the file such a
// variable's *_FILE twin names), no output that went through Redact contains
// it, whole or as a substring.
package redact

import (
	"context"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
)

// Mask replaces a secret value.
const Mask = "[REDACTED]"

// minLen is the shortest value treated as a secret: shorter ones would mask
// ordinary words.
const minLen = 6

// Redactor masks known secret values.
type Redactor struct {
	mu       sync.RWMutex
	secrets  []string // longest first, so a secret containing another is masked whole
	replacer *strings.Replacer
}

// New returns a Redactor for the given secret values.
func New(secrets ...string) *Redactor {
	r := &Redactor{}
	r.Add(secrets...)
	return r
}

// secretNameParts mark an environment variable as holding a secret.
var secretNameParts = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "APIKEY", "PRIVATE_KEY", "CREDENTIAL", "AGE_KEY"}

// IsSecretName reports whether an environment variable's name marks a secret.
func IsSecretName(name string) bool {
	up := strings.ToUpper(name)
	for _, p := range secretNameParts {
		if strings.Contains(up, p) {
			return true
		}
	}
	return false
}

// FromEnv returns a Redactor for every secret-named variable in environ
// (KEY=VALUE pairs, as from os.Environ), and for the contents of the files
// named by secret-named *_FILE variables (Docker secrets).
func FromEnv(environ []string) *Redactor {
	r := New()
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !IsSecretName(k) {
			continue
		}
		if strings.HasSuffix(k, "_FILE") {
			if b, err := os.ReadFile(v); err == nil && len(b) <= 64<<10 {
				r.Add(strings.TrimSpace(string(b)))
			}
			continue
		}
		r.Add(v)
	}
	return r
}

// Add registers more secret values.
func (r *Redactor) Add(secrets ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range secrets {
		if len(s) >= minLen && !slices.Contains(r.secrets, s) {
			r.secrets = append(r.secrets, s)
		}
	}
	slices.SortFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(r.secrets))
	for _, s := range r.secrets {
		pairs = append(pairs, s, Mask)
	}
	r.replacer = strings.NewReplacer(pairs...)
}

// Redact returns s with every registered secret masked.
func (r *Redactor) Redact(s string) string {
	if r == nil {
		return s
	}
	r.mu.RLock()
	rep := r.replacer
	r.mu.RUnlock()
	if rep == nil {
		return s
	}
	return rep.Replace(s)
}

// Handler wraps a slog.Handler so that messages and string attributes are
// redacted before they are written.
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
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.r.Redact(v.String()))
	case slog.KindGroup:
		var as []any
		for _, g := range v.Group() {
			as = append(as, h.attr(g))
		}
		return slog.Group(a.Key, as...)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, h.r.Redact(err.Error()))
		}
		return slog.String(a.Key, h.r.Redact(v.String()))
	}
	return a
}

func (h *handler) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = h.attr(a)
	}
	return &handler{h: h.h.WithAttrs(red), r: h.r}
}

func (h *handler) WithGroup(name string) slog.Handler {
	return &handler{h: h.h.WithGroup(name), r: h.r}
}

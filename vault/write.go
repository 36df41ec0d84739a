package vault

import (
	"context"
	"errors"
	"fmt"
	"github.com/bridle-dev/bridle/redact"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/renameio/v2"
)

// MaxValue is the largest value Set and Rotate take.
const MaxValue = 64 << 10

// Set stores a new secret in the SOPS file. A name that already has a
// value is ErrExists (Rotate replaces it); a revoked name may be set again.
func (v *Scope) Set(ctx context.Context, name, value string) (Info, error) {
	return v.put(ctx, "set", name, value)
}

// Rotate replaces a secret's value in the SOPS file. When Rotate returns,
// every Get answers the new value and every watcher has been told.
func (v *Scope) Rotate(ctx context.Context, name, value string) (Info, error) {
	return v.put(ctx, "rotate", name, value)
}

func (v *Scope) put(ctx context.Context, op, name, value string) (Info, error) {
	if err := ValidName(name); err != nil {
		return Info{}, err
	}
	// Surrounding whitespace is no part of a credential (HTTP trims it,
	// Docker secrets are trimmed): the value is stored, and masked, as
	// services will see and echo it.
	value = strings.TrimSpace(value)
	switch {
	case value == "":
		return Info{}, fmt.Errorf("%s %s: the value is empty; give it on stdin or with --from-file", op, name)
	case len(value) > MaxValue:
		return Info{}, fmt.Errorf("%s %s: the value is larger than %d bytes", op, name, MaxValue)
	case !redact.Maskable(value):
		return Info{}, fmt.Errorf("%s %s: the value is too short or too common to be masked wherever it appears (at least %d characters, not a word like true or none): a secret that cannot be masked would leak", op, name, redact.MinLen)
	}
	v.o.Redactor.Add(value) // before anything could echo it
	return v.write(ctx, op, name, func(f *File) error {
		_, has := f.Secrets[name]
		m := f.Meta[name]
		now := v.o.Now().UTC().Truncate(time.Second)
		switch {
		case op == "set" && has:
			return fmt.Errorf("set %s: the secret %w: rotate it (bridle secrets rotate %s)", name, ErrExists, name)
		case op == "rotate" && !has:
			if err := v.readOnly(name); err != nil {
				return err
			}
			return fmt.Errorf("rotate %s: secret %s %w: set it first (bridle secrets set %s)", name, name, ErrNotFound, name)
		case op == "set":
			m = Meta{Created: now}
		default:
			m.Rotated = now
		}
		f.Secrets[name], f.Meta[name] = value, m
		return nil
	})
}

// readOnly says that name lives where Bridle cannot change it, or nil.
func (v *Scope) readOnly(name string) error {
	if _, src, loc, _ := v.external(name); src != "" {
		return fmt.Errorf("secret %s %w: it lives in %s (%s); change it there", name, ErrReadOnly, loc, src)
	}
	return nil
}

// Revoke removes a secret's value from the SOPS file and records the
// revocation: from then on Get answers ErrRevoked, whatever other source
// holds the name, until it is set again.
func (v *Scope) Revoke(ctx context.Context, name string) (Info, error) {
	if err := ValidName(name); err != nil {
		return Info{}, err
	}
	return v.write(ctx, "revoke", name, func(f *File) error {
		if _, has := f.Secrets[name]; !has {
			if err := v.readOnly(name); err != nil {
				return err
			}
			if !f.Meta[name].Revoked.IsZero() {
				return fmt.Errorf("revoke %s: secret %s %w already", name, name, ErrRevoked)
			}
			return fmt.Errorf("revoke %s: secret %s %w", name, name, ErrNotFound)
		}
		delete(f.Secrets, name)
		m := f.Meta[name]
		m.Revoked = v.o.Now().UTC().Truncate(time.Second)
		f.Meta[name] = m
		return nil
	})
}

// Rekey encrypts the SOPS file to recipients instead, with a new data key,
// and writes them to .sops.yaml: whoever held only an old identity can no
// longer decrypt what is written from now on (git history keeps the old
// files: rotate the secrets they held).
func (v *Scope) Rekey(ctx context.Context, recipients []string) error {
	rs, err := CheckRecipients(recipients)
	if err != nil {
		return err
	}
	_, err = v.write(ctx, "rekey", "", func(f *File) error {
		f.Recipients = rs
		return nil
	})
	return err
}

// Init writes .sops.yaml naming recipients, committed, unless one exists.
func Init(ctx context.Context, dir string, recipients []string, commit func(context.Context, map[string][]byte, string) (string, error)) (written bool, err error) {
	rs, err := CheckRecipients(recipients)
	if err != nil {
		return false, err
	}
	p := filepath.Join(dir, ConfigName)
	if _, err := os.Stat(p); err == nil {
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	b := Config(rs)
	if err := renameio.WriteFile(p, b, 0o644); err != nil {
		return false, err
	}
	if commit != nil {
		if _, err := commit(ctx, map[string][]byte{ConfigName: b}, "secrets: name the age recipients of "+FileName+"\n\nBridle-Source: user\nBridle-Kind: secrets\n"); err != nil {
			return true, fmt.Errorf("wrote %s, but could not commit it: %w", p, err)
		}
	}
	return true, nil
}

// write applies change to a copy of the file, encrypts, writes and
// commits it, then swaps it in and tells the watchers.
func (v *Scope) write(ctx context.Context, op, name string, change func(*File) error) (Info, error) {
	if v.o.Dir == "" {
		return Info{}, fmt.Errorf("%s %s: this vault has no SOPS file (no rules repository)", op, name)
	}
	v.wmu.Lock()
	defer v.wmu.Unlock()
	v.mu.RLock()
	f, exists, loadErr := v.file.clone(), v.exists, v.loadErr
	v.mu.RUnlock()
	if loadErr != nil {
		return Info{}, fmt.Errorf("%s %s: nothing changed: %w", op, name, loadErr)
	}
	files := map[string][]byte{}
	if !exists || op == "rekey" || len(f.Recipients) == 0 {
		cb, err := os.ReadFile(filepath.Join(v.o.Dir, ConfigName))
		switch {
		case op == "rekey":
		case errors.Is(err, fs.ErrNotExist):
			return Info{}, fmt.Errorf("%s %s: %s names no recipients yet: run bridle secrets init first", op, name, ConfigName)
		case err != nil:
			return Info{}, err
		default:
			if f.Recipients, err = ParseConfig(cb); err != nil {
				return Info{}, err
			}
		}
	}
	if err := change(&f); err != nil {
		return Info{}, err
	}
	if op == "rekey" {
		files[ConfigName] = Config(f.Recipients)
	}
	c, err := v.codec()
	if err != nil {
		return Info{}, err
	}
	enc, err := c.Encrypt(ctx, f)
	if err != nil {
		return Info{}, fmt.Errorf("%s %s: encrypt: %w", op, name, err)
	}
	files[FileName] = enc
	for rel, b := range files {
		if err := renameio.WriteFile(filepath.Join(v.o.Dir, rel), b, 0o644); err != nil {
			return Info{}, fmt.Errorf("%s %s: %w", op, name, err)
		}
	}
	ch := Change{Scope: v.o.Scope, Op: op, Name: name}
	if val, ok := f.Secrets[name]; ok {
		ch.Fingerprint = v.Fingerprint(val)
	}
	var commitErr error
	if v.o.Commit != nil {
		subject := "secrets: " + op + " " + name
		if op == "rekey" {
			subject = "secrets: re-key " + FileName + " to " + fmt.Sprint(len(f.Recipients)) + " age recipient(s)"
		}
		ch.Commit, commitErr = v.o.Commit(ctx, files, strings.TrimSpace(subject)+"\n\nOnly encrypted values are in this commit.\n\nBridle-Source: user\nBridle-Kind: secrets\n")
	}
	v.mu.Lock()
	v.file, v.exists, v.stamp = f, true, stampOf(v.Path())
	v.mu.Unlock()
	if name != "" {
		v.notify(name)
	}
	if v.o.OnChange != nil {
		v.o.OnChange(ctx, ch)
	}
	in := v.info(name)
	if commitErr != nil {
		return in, fmt.Errorf("%s %s: written to %s and in effect, but not committed: %w", op, name, v.Path(), commitErr)
	}
	return in, nil
}

// info is name's entry in List.
func (v *Scope) info(name string) Info {
	for _, in := range v.List() {
		if in.Name == name {
			return in
		}
	}
	return Info{Name: name, Scope: v.o.Scope}
}

// Package sopsfile is the vault's SOPS codec: it reads and writes
// secrets.enc.yaml with github.com/getsops/sops/v3 and age recipients, in
// the format the sops CLI reads and writes (sops -d decrypts what it
// writes; what sops -e writes, it reads).
//
// It is the only package that imports sops/v3, and only the bridle-sops
// helper (cmd/bridle-sops) imports it: sops links its key services' cloud
// SDKs (AWS, GCP, Azure, Vault, HuaweiCloud), whose package initialisation
// alone would add ~17 ms and ~33 MB to every bridle command.
//
// Layout: one top-level key per secret, its value encrypted; the key
// vault.MetaKey (bridle_unencrypted) holds created/rotated/revoked times
// in clear. SOPS' MAC covers both, so a changed timestamp is tampering too.
//
// Errors wrap vault.ErrKey, vault.ErrIntegrity or vault.ErrFormat
// and never hold a value.
package sopsfile

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/getsops/sops/v3"
	"github.com/getsops/sops/v3/aes"
	sopsage "github.com/getsops/sops/v3/age"
	"github.com/getsops/sops/v3/config"
	"github.com/getsops/sops/v3/keys"
	"github.com/getsops/sops/v3/keyservice"
	sopsyaml "github.com/getsops/sops/v3/stores/yaml"
	"github.com/getsops/sops/v3/version"

	"github.com/bridle-dev/bridle/vault"
)

// Codec implements vault.Codec with sops/v3.
type Codec struct {
	// Identities are age identity files' contents. nil: sops finds them as
	// the sops CLI does (SOPS_AGE_KEY_FILE, SOPS_AGE_KEY, …).
	Identities []string
}

var _ vault.Codec = Codec{}

const unencryptedSuffix = "_unencrypted"

func store() *sopsyaml.Store { return sopsyaml.NewStore(&config.YAMLStoreConfig{}) }

// Decrypt implements vault.Codec.
func (c Codec) Decrypt(_ context.Context, encrypted []byte) (vault.File, error) {
	f := vault.File{Secrets: map[string]string{}, Meta: map[string]vault.Meta{}}
	tree, err := store().LoadEncryptedFile(encrypted)
	if err != nil {
		return f, fmt.Errorf("%w: not a SOPS YAML file: %v", vault.ErrFormat, err)
	}
	if len(tree.Branches) != 1 {
		return f, fmt.Errorf("%w: %d YAML documents; the vault is one", vault.ErrFormat, len(tree.Branches))
	}
	key, err := c.dataKey(tree.Metadata)
	if err != nil {
		return f, err
	}
	cipher := aes.NewCipher()
	mac, err := tree.Decrypt(key, cipher)
	if err != nil {
		return f, fmt.Errorf("%w: a value does not decrypt (edited by hand?)", vault.ErrIntegrity)
	}
	want, err := cipher.Decrypt(tree.Metadata.MessageAuthenticationCode, key, tree.Metadata.LastModified.Format(time.RFC3339))
	if err != nil || want != mac {
		return f, fmt.Errorf("%w: MAC mismatch: the file was changed without its key", vault.ErrIntegrity)
	}
	for _, g := range tree.Metadata.KeyGroups {
		for _, k := range g {
			if a, ok := k.(*sopsage.MasterKey); ok {
				f.Recipients = append(f.Recipients, a.Recipient)
			}
		}
	}
	for _, item := range tree.Branches[0] {
		name, ok := item.Key.(string)
		if !ok {
			continue // a comment
		}
		if name == vault.MetaKey {
			f.Meta = readMeta(item.Value)
			continue
		}
		if vault.ValidName(name) != nil {
			return f, fmt.Errorf("%w: key %q: %v", vault.ErrFormat, name, vault.ValidName(name))
		}
		switch v := item.Value.(type) {
		case string:
			f.Secrets[name] = v
		case int, int64, float64, bool:
			f.Secrets[name] = fmt.Sprint(v)
		default:
			return f, fmt.Errorf("%w: secret %s is not a string (a secret is one value: quote it)", vault.ErrFormat, name)
		}
	}
	return f, nil
}

// dataKey opens the data key with age only: c's identities, or (none
// given) the ones sops' age support finds itself (SOPS_AGE_KEY,
// SOPS_AGE_KEY_FILE, the user's age key file). A file's other key types —
// PGP, cloud KMS, HashiCorp Vault — are never used: whoever can commit the
// file could point one at a server of theirs and have the helper call it
// with the user's credentials (a Vault token, cloud keys). Key groups
// (Shamir's secret sharing) are not supported: Bridle writes one group.
func (c Codec) dataKey(m sops.Metadata) ([]byte, error) {
	if len(m.KeyGroups) != 1 {
		return nil, fmt.Errorf("%w: the file has %d key groups; Bridle's vault opens files with one group of age recipients", vault.ErrKey, len(m.KeyGroups))
	}
	var ids sopsage.ParsedIdentities
	if c.Identities != nil {
		if err := ids.Import(c.Identities...); err != nil {
			return nil, fmt.Errorf("%w: the age identity does not parse", vault.ErrKey)
		}
	}
	ages := 0
	var last error
	for _, k := range m.KeyGroups[0] {
		a, ok := k.(*sopsage.MasterKey)
		if !ok {
			continue // never another key service
		}
		ages++
		if c.Identities != nil {
			ids.ApplyToMasterKey(a)
		}
		key, err := a.Decrypt()
		if err == nil {
			return key, nil
		}
		last = err
	}
	if ages == 0 {
		return nil, fmt.Errorf("%w: the file is encrypted to no age recipient (Bridle opens age only, never PGP, KMS or Vault keys)", vault.ErrKey)
	}
	if c.Identities == nil && last != nil {
		return nil, fmt.Errorf("%w: no age identity opens it (it is encrypted to %s): %v", vault.ErrKey, strings.Join(recipients(m), ", "), oneLine(last))
	}
	return nil, fmt.Errorf("%w: it is encrypted to %s", vault.ErrKey, strings.Join(recipients(m), ", "))
}

func recipients(m sops.Metadata) []string {
	var out []string
	for _, g := range m.KeyGroups {
		for _, k := range g {
			if a, ok := k.(*sopsage.MasterKey); ok {
				out = append(out, a.Recipient)
			}
		}
	}
	return out
}

func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }

func readMeta(v any) map[string]vault.Meta {
	out := map[string]vault.Meta{}
	b, ok := v.(sops.TreeBranch)
	if !ok {
		return out
	}
	for _, item := range b {
		name, _ := item.Key.(string)
		fields, ok := item.Value.(sops.TreeBranch)
		if name == "" || !ok {
			continue
		}
		var m vault.Meta
		for _, fi := range fields {
			k, _ := fi.Key.(string)
			s, _ := fi.Value.(string)
			t, err := time.Parse(time.RFC3339, s)
			if err != nil {
				continue
			}
			switch k {
			case "created":
				m.Created = t
			case "rotated":
				m.Rotated = t
			case "revoked":
				m.Revoked = t
			}
		}
		out[name] = m
	}
	return out
}

// Encrypt implements vault.Codec: a new data key, encrypted to every
// recipient.
func (c Codec) Encrypt(_ context.Context, f vault.File) ([]byte, error) {
	rs, err := vault.CheckRecipients(f.Recipients)
	if err != nil {
		return nil, err
	}
	var group sops.KeyGroup
	for _, r := range rs {
		k, err := sopsage.MasterKeyFromRecipient(r)
		if err != nil {
			return nil, fmt.Errorf("%w: recipient %s: %v", vault.ErrFormat, r, err)
		}
		group = append(group, keys.MasterKey(k))
	}
	var branch sops.TreeBranch
	for _, name := range slices.Sorted(maps.Keys(f.Secrets)) {
		if err := vault.ValidName(name); err != nil {
			return nil, err
		}
		branch = append(branch, sops.TreeItem{Key: name, Value: f.Secrets[name]})
	}
	if len(f.Meta) > 0 {
		var meta sops.TreeBranch
		for _, name := range slices.Sorted(maps.Keys(f.Meta)) {
			m := f.Meta[name]
			var fields sops.TreeBranch
			for _, kv := range []struct {
				k string
				t time.Time
			}{{"created", m.Created}, {"rotated", m.Rotated}, {"revoked", m.Revoked}} {
				if !kv.t.IsZero() {
					fields = append(fields, sops.TreeItem{Key: kv.k, Value: kv.t.UTC().Format(time.RFC3339)})
				}
			}
			meta = append(meta, sops.TreeItem{Key: name, Value: fields})
		}
		branch = append(branch, sops.TreeItem{Key: vault.MetaKey, Value: meta})
	}
	tree := sops.Tree{Branches: sops.TreeBranches{branch}, Metadata: sops.Metadata{
		KeyGroups: []sops.KeyGroup{group}, UnencryptedSuffix: unencryptedSuffix, Version: version.Version,
	}}
	key, errs := tree.GenerateDataKeyWithKeyServices([]keyservice.KeyServiceClient{keyservice.NewLocalClient()})
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: encrypt the data key: %v", vault.ErrKey, errors.Join(errs...))
	}
	cipher := aes.NewCipher()
	mac, err := tree.Encrypt(key, cipher)
	if err != nil {
		return nil, fmt.Errorf("encrypt: %w", err)
	}
	tree.Metadata.LastModified = time.Now().UTC()
	if tree.Metadata.MessageAuthenticationCode, err = cipher.Encrypt(mac, key, tree.Metadata.LastModified.Format(time.RFC3339)); err != nil {
		return nil, fmt.Errorf("encrypt the MAC: %w", err)
	}
	out, err := store().EmitEncryptedFile(tree)
	if err != nil {
		return nil, fmt.Errorf("emit: %w", err)
	}
	return out, nil
}

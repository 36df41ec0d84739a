package vault

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"filippo.io/age"
	"go.yaml.in/yaml/v3"
)

// FileName is the vault's file in a rules repository; ConfigName is the
// SOPS configuration beside it, naming the recipients (what sops edit and
// sops -e read too).
const (
	FileName   = "secrets.enc.yaml"
	ConfigName = ".sops.yaml"
)

// maxConfig bounds .sops.yaml.
const maxConfig = 64 << 10

type sopsConfig struct {
	CreationRules []struct {
		PathRegex string    `yaml:"path_regex"`
		Age       yaml.Node `yaml:"age"`
	} `yaml:"creation_rules"`
}

// ParseConfig returns the age recipients .sops.yaml (b) names for
// FileName: those of the first creation rule whose path_regex matches it
// (or that has none), as sops picks. Recipients are checked; errors wrap
// ErrFormat.
func ParseConfig(b []byte) ([]string, error) {
	if len(b) > maxConfig {
		return nil, fmt.Errorf("%s %w: larger than %d bytes", ConfigName, ErrFormat, maxConfig)
	}
	var c sopsConfig
	if err := yaml.NewDecoder(bytes.NewReader(b)).Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s %w: %v", ConfigName, ErrFormat, err)
	}
	for i, r := range c.CreationRules {
		if r.PathRegex != "" {
			re, err := regexp.Compile(r.PathRegex)
			if err != nil {
				return nil, fmt.Errorf("%s %w: creation_rules[%d].path_regex: %v", ConfigName, ErrFormat, i, err)
			}
			if !re.MatchString(FileName) {
				continue
			}
		}
		var list []string
		switch r.Age.Kind {
		case yaml.ScalarNode:
			list = strings.Split(r.Age.Value, ",")
		case yaml.SequenceNode:
			if err := r.Age.Decode(&list); err != nil {
				return nil, fmt.Errorf("%s %w: creation_rules[%d].age: %v", ConfigName, ErrFormat, i, err)
			}
		case 0:
		default:
			return nil, fmt.Errorf("%s %w: creation_rules[%d].age is a comma-separated string or a list", ConfigName, ErrFormat, i)
		}
		return CheckRecipients(list)
	}
	return nil, fmt.Errorf("%s %w: no creation rule with age recipients for %s: run bridle secrets init", ConfigName, ErrFormat, FileName)
}

// CheckRecipients trims recipients and checks each is an age X25519
// recipient (age1…); at least one is needed.
func CheckRecipients(list []string) ([]string, error) {
	var out []string
	for _, r := range list {
		r = strings.TrimSpace(r)
		if r == "" {
			continue
		}
		if _, err := age.ParseX25519Recipient(r); err != nil {
			return nil, fmt.Errorf("age recipient %q %w: %v", r, ErrFormat, err)
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("recipients %w: no age recipient (age1…)", ErrFormat)
	}
	return out, nil
}

// Config is a .sops.yaml naming recipients for FileName.
func Config(recipients []string) []byte {
	return []byte("# Written by bridle secrets: who can decrypt " + FileName + ".\n" +
		"creation_rules:\n  - path_regex: (^|/)secrets\\.enc\\.yaml$\n    age: " + strings.Join(recipients, ",") + "\n")
}

// NewIdentity is a new age identity: the key file's content (with its
// recipient as a comment, as age-keygen writes it) and the recipient.
func NewIdentity() (keyFile []byte, recipient string, err error) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		return nil, "", err
	}
	r := id.Recipient().String()
	return []byte("# created by bridle secrets init\n# public key: " + r + "\n" + id.String() + "\n"), r, nil
}

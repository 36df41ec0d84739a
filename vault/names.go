package vault

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bridle-dev/bridle/internal/lazyregexp"
)

// Prefix marks a reference to a secret in configuration: secret:NAME.
const Prefix = "secret:"

// The errors a caller matches with errors.Is.
var (
	// ErrBadName: not a secret's name, or not a secret:NAME reference.
	ErrBadName = errors.New("is not a secret name")
	// ErrNotFound: no source holds the name.
	ErrNotFound = errors.New("is not in the vault")
	// ErrRevoked: the secret was revoked; consumers answer "secret NAME was revoked".
	ErrRevoked = errors.New("was revoked")
	// ErrExists: set of a name that already has a value (rotate replaces one).
	ErrExists = errors.New("already exists")
	// ErrReadOnly: the secret lives in a Docker secret or the environment,
	// which belong to whoever mounted them.
	ErrReadOnly = errors.New("cannot be changed by Bridle")
	// ErrSource: a Docker secret or *_FILE that is a directory, empty or unreadable.
	ErrSource = errors.New("cannot be read")
	// ErrKey: no age identity opens the SOPS file (missing, or not one of its recipients).
	ErrKey = errors.New("no age identity opens the SOPS file")
	// ErrIntegrity: the SOPS file was tampered with or corrupted (a MAC or
	// authentication failure).
	ErrIntegrity = errors.New("failed its integrity check")
	// ErrFormat: the SOPS file, .sops.yaml or a codec answer is not what
	// it should be.
	ErrFormat = errors.New("is malformed")
	// ErrNoCodec: the SOPS helper (bridle-sops) was not found.
	ErrNoCodec = errors.New("the SOPS helper bridle-sops was not found")
)

// A name is lower-case letters, digits, '-' and '_', starting with a
// letter; it cannot end in _unencrypted (SOPS would leave it in clear) and
// "sops" and "bridle_unencrypted" are the file's own keys.
var namePattern = lazyregexp.New(`^[a-z][a-z0-9_-]{0,62}$`)

// MetaKey is the SOPS file's key for the metadata Bridle keeps beside the
// values (created, rotated, revoked): in clear, covered by the file's MAC.
const MetaKey = "bridle_unencrypted"

// ValidName says why name is not a secret's name, or nil.
func ValidName(name string) error {
	switch {
	case !namePattern.MatchString(name):
		// Never echoed: what stands where a name belongs may be the value
		// itself, pasted by mistake (token: secret:<the token>).
		return fmt.Errorf("%w (%d bytes): a name is 1 to 63 of a-z, 0-9, '-' and '_', starting with a letter (e.g. gitea-bot)", ErrBadName, len(name))
	case strings.HasSuffix(name, "_unencrypted"), name == "sops":
		return fmt.Errorf("%q %w: it is reserved by SOPS", name, ErrBadName)
	}
	return nil
}

// ParseRef reads a configuration value: secret:NAME gives NAME and true;
// anything without the prefix gives false (a file path, in the *_file
// fields); secret: with a bad name is ErrBadName.
func ParseRef(s string) (name string, ok bool, err error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), Prefix)
	if !ok {
		return "", false, nil
	}
	if err := ValidName(rest); err != nil {
		return "", true, fmt.Errorf("reference secret:…: %w", err)
	}
	return rest, true, nil
}

// EnvName is the variable a secret is read from in development (NAME, and
// NAME_FILE for a file): upper case, '-' as '_'.
func EnvName(name string) string {
	return strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

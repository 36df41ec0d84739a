// Package vault is Bridle's secrets vault: named secrets, per project and
// server-wide, that configuration refers to by name (secret:gitea-bot) and
// never by value.
//
// A name is looked up in these sources, in order:
//
//  1. the SOPS file (secrets.enc.yaml in the rules repository, age
//     recipients), decrypted through a Codec;
//  2. Docker secrets: the file DIR/NAME (DIR is /run/secrets unless
//     Options.DockerDir says otherwise), then the file named by the
//     variable NAME_FILE (NAME upper-cased, '-' as '_');
//  3. the variable NAME itself, for development, with a warning.
//
// then, when Options.Parent is set (a project's vault over the server-wide
// one), in the parent's.
//
// Promises:
//
//   - No value leaves the vault except through Get to the consumer that
//     asked. Info, List, errors and Change never hold a value; every value
//     read is registered with the redactor before Get returns it, so it is
//     masked wherever it goes afterwards. Errors name the secret and the
//     source, never the value.
//   - Only SOPS secrets can be set, rotated or revoked (Docker and the
//     environment belong to whoever mounted them). A change is written to
//     the file encrypted, committed when Options.Commit is set, reported to
//     Options.OnChange, and visible to every Get and every Watch callback
//     before the call returns: after Rotate returns, nobody is handed the
//     old value; after Revoke, Get answers ErrRevoked.
//   - A source that cannot be read (a wrong or missing age key, a tampered
//     file, a Docker secret that is a directory, empty or unreadable) fails
//     the names it would have answered, with an error naming the secret and
//     what to do; every other name keeps working.
//   - The fingerprint in Info is HMAC-SHA256 under the vault key (Key),
//     shortened: it shows whether two values are the same without letting
//     anyone without the key test guesses against it.
package vault

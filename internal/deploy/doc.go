// Package deploy holds the tests of Bridle's deployment files at the
// repository root: docker-compose.yml, loaded with compose-go as
// `docker compose` loads it, under every combination of its profiles, and
// the Dockerfile, read as plain text.
//
// What they promise: the services each profile set runs; the environment's
// defaults and overrides (every bundled service can be replaced by an
// existing one through its URL, GITEA_URL is required); every secret a
// running service uses is a file under ./secrets/ and no environment
// variable holds a secret value, only *_FILE paths; the bridle service runs
// read-only, with no capabilities and no privilege escalation, as a non-root
// user, publishes only on loopback by default and has an exec-form
// healthcheck; the image is multi-stage, static (CGO_ENABLED=0), non-root,
// with no shell needed at run time.
//
// The package has no code of its own: only tests import what it tests.
package deploy

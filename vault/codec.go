package vault

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/bridle-dev/bridle/internal/lazyregexp"
)

// File is a SOPS file's content, decrypted: the values, the metadata kept
// beside them in clear, and the age recipients it is encrypted to.
type File struct {
	Secrets    map[string]string `json:"secrets"`
	Meta       map[string]Meta   `json:"meta,omitempty"`
	Recipients []string          `json:"recipients"`
}

// Meta is what the vault records about a secret; never its value.
type Meta struct {
	Created time.Time `json:"created,omitzero" yaml:"created,omitempty"`
	Rotated time.Time `json:"rotated,omitzero" yaml:"rotated,omitempty"`
	Revoked time.Time `json:"revoked,omitzero" yaml:"revoked,omitempty"`
}

func (f File) clone() File {
	c := File{Secrets: maps.Clone(f.Secrets), Meta: maps.Clone(f.Meta), Recipients: append([]string(nil), f.Recipients...)}
	if c.Secrets == nil {
		c.Secrets = map[string]string{}
	}
	if c.Meta == nil {
		c.Meta = map[string]Meta{}
	}
	return c
}

// A Codec reads and writes SOPS files. Decrypt's errors wrap ErrKey,
// ErrIntegrity or ErrFormat; no error holds a value.
//
// The implementation that links github.com/getsops/sops/v3 is
// vault/sopsfile, run in its own process by ExecCodec (the bridle-sops
// helper): sops' key-service SDKs would add ~17 ms to the start of every
// bridle command, including the sidecar's.
type Codec interface {
	Decrypt(ctx context.Context, encrypted []byte) (File, error)
	// Encrypt encrypts f to f.Recipients with a new data key.
	Encrypt(ctx context.Context, f File) ([]byte, error)
}

// codecRequest and codecReply are ExecCodec's protocol: one JSON document
// each way, over the helper's stdin and stdout.
type codecRequest struct {
	Op        string `json:"op"` // decrypt or encrypt
	Encrypted []byte `json:"encrypted,omitempty"`
	File      *File  `json:"file,omitempty"`
}

type codecReply struct {
	File      *File  `json:"file,omitempty"`
	Encrypted []byte `json:"encrypted,omitempty"`
	Error     string `json:"error,omitempty"`
	Kind      string `json:"kind,omitempty"` // key, integrity, format
}

// maxCodecIO bounds what the codec protocol reads: a vault file is small.
const maxCodecIO = 8 << 20

var kinds = map[string]error{"key": ErrKey, "integrity": ErrIntegrity, "format": ErrFormat}

// ServeCodec answers one request read from in with c, on out: the helper's
// main. Errors go in the reply, classified; an error is returned only when
// the reply cannot be written.
func ServeCodec(ctx context.Context, c Codec, in io.Reader, out io.Writer) error {
	var req codecRequest
	var rep codecReply
	dec := json.NewDecoder(io.LimitReader(in, maxCodecIO))
	err := dec.Decode(&req)
	switch {
	case err != nil:
		err = fmt.Errorf("codec request: %w: %v", ErrFormat, err)
	case req.Op == "decrypt":
		var f File
		if f, err = c.Decrypt(ctx, req.Encrypted); err == nil {
			rep.File = &f
		}
	case req.Op == "encrypt" && req.File != nil:
		rep.Encrypted, err = c.Encrypt(ctx, *req.File)
	default:
		err = fmt.Errorf("codec request: %w: op %q", ErrFormat, req.Op)
	}
	if err != nil {
		rep.Error = err.Error()
		for k, e := range kinds {
			if errors.Is(err, e) {
				rep.Kind = k
			}
		}
	}
	return json.NewEncoder(out).Encode(rep)
}

// ExecCodec runs the helper at Path (bridle-sops) once per call, with only
// Env as its environment (SOPS_AGE_KEY_FILE and what sops reads beside it).
type ExecCodec struct {
	Path string
	Env  []string
}

// Decrypt implements Codec.
func (e ExecCodec) Decrypt(ctx context.Context, encrypted []byte) (File, error) {
	rep, err := e.call(ctx, codecRequest{Op: "decrypt", Encrypted: encrypted})
	if err != nil {
		return File{}, err
	}
	if rep.File == nil {
		return File{}, fmt.Errorf("the SOPS helper's answer %w: no file", ErrFormat)
	}
	return *rep.File, nil
}

// Encrypt implements Codec.
func (e ExecCodec) Encrypt(ctx context.Context, f File) ([]byte, error) {
	rep, err := e.call(ctx, codecRequest{Op: "encrypt", File: &f})
	if err != nil {
		return nil, err
	}
	if len(rep.Encrypted) == 0 {
		return nil, fmt.Errorf("the SOPS helper's answer %w: nothing encrypted", ErrFormat)
	}
	return rep.Encrypted, nil
}

func (e ExecCodec) call(ctx context.Context, req codecRequest) (codecReply, error) {
	var rep codecReply
	in, err := json.Marshal(req)
	if err != nil {
		return rep, err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Path)
	cmd.Env = e.Env
	cmd.Stdin = bytes.NewReader(in)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &limited{w: &errOut, n: 4 << 10}
	runErr := cmd.Run()
	if err := json.NewDecoder(io.LimitReader(&out, maxCodecIO)).Decode(&rep); err != nil {
		// sops logs no values; its stderr says why the helper failed.
		return rep, fmt.Errorf("the SOPS helper %s failed (%v): %w: %s", e.Path, runErr, ErrFormat, bytes.TrimSpace(errOut.Bytes()))
	}
	if rep.Error != "" {
		if k, ok := kinds[rep.Kind]; ok {
			return rep, &codecError{msg: rep.Error, kind: k}
		}
		return rep, errors.New(rep.Error)
	}
	return rep, nil
}

// codecError is a helper's error, still matching its sentinel.
type codecError struct {
	msg  string
	kind error
}

func (e *codecError) Error() string { return e.msg }
func (e *codecError) Unwrap() error { return e.kind }

type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if len(p) > l.n {
		p = p[:l.n]
	}
	l.n -= len(p)
	if _, err := l.w.Write(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// HelperName is the SOPS helper's command name.
const HelperName = "bridle-sops"

// FindHelper is the SOPS helper's path: BRIDLE_SOPS, else bridle-sops next
// to this executable, else on PATH.
func FindHelper(getenv func(string) string) (string, error) {
	if p := getenv("BRIDLE_SOPS"); p != "" {
		return p, nil
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), HelperName)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(HelperName); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%w (next to bridle, on PATH, or at $BRIDLE_SOPS): %s; it is a separate binary so that the cloud SDKs SOPS links do not slow every bridle command", ErrNoCodec, InstallHelper())
}

// InstallHelper says how to install the SOPS helper next to this bridle,
// as a command that works where it is printed: built from a checkout that
// is still there, go install from that checkout (its module needs no
// proxy); installed as a published version, go install of the same
// version; else, where to build it from.
func InstallHelper() string { return installHelper() }

var installHelper = sync.OnceValue(func() string {
	gobin := ""
	if exe, err := os.Executable(); err == nil {
		gobin = "GOBIN=" + shellQuote(filepath.Dir(exe)) + " "
	}
	// This file's path as compiled: the checkout's, unless built with
	// -trimpath.
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		root := filepath.Dir(filepath.Dir(file))
		if _, err := os.Stat(filepath.Join(root, "cmd", HelperName, "main.go")); err == nil {
			return "install it with: cd " + shellQuote(root) + " && " + gobin + "go install ./cmd/" + HelperName
		}
	}
	if bi, ok := debug.ReadBuildInfo(); ok && published(bi.Main.Version) {
		return "install it with: " + gobin + "go install " + bi.Main.Path + "/cmd/" + HelperName + "@" + bi.Main.Version
	}
	return "build it from the checkout bridle was built from (go install ./cmd/" + HelperName + " there), or set BRIDLE_SOPS to its path"
})

// published reports whether v names a release a module proxy may serve:
// not a build from a work tree ((devel), +dirty) nor a pseudo-version.
func published(v string) bool {
	return v != "" && v != "(devel)" && !strings.Contains(v, "+") && !pseudo.MatchString(v)
}

var pseudo = lazyregexp.New(`[-.](0\.)?[0-9]{14}-[0-9a-f]{12}$`)

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:@,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// HelperEnv is the environment the helper runs with: the variables sops'
// age support reads (SOPS_AGE_KEY_FILE, SOPS_AGE_KEY, SOPS_AGE_KEY_CMD,
// SOPS_AGE_SSH_PRIVATE_KEY_FILE) and where it looks by default (HOME,
// XDG_CONFIG_HOME). keyFile, when set, is SOPS_AGE_KEY_FILE.
func HelperEnv(getenv func(string) string, keyFile string) []string {
	var env []string
	for _, k := range []string{"SOPS_AGE_KEY_FILE", "SOPS_AGE_KEY", "SOPS_AGE_KEY_CMD", "SOPS_AGE_SSH_PRIVATE_KEY_FILE", "HOME", "XDG_CONFIG_HOME", "PATH"} {
		v := getenv(k)
		if k == "SOPS_AGE_KEY_FILE" && keyFile != "" {
			v = keyFile
		}
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

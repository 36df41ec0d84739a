package upstream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// inherited reports whether a variable of Bridle's own environment is passed
// to a child: only what a program needs to run, never a credential.
func inherited(name string) bool {
	return name == "PATH" || name == "HOME" || name == "LANG" || strings.HasPrefix(name, "LC_")
}

// child is a running stdio upstream.
type child struct {
	cmd     *exec.Cmd
	stdin   *os.File // ours: the child's input
	stdout  *os.File // ours: the child's output
	exited  chan struct{}
	exitErr error
	once    sync.Once
}

// ErrExited is wrapped by the error of a child that exited.
var ErrExited = errors.New("upstream process exited")

// env is the child's environment: the inherited variables, Config.Env,
// then the secrets, each read now.
func (u *Upstream) env() ([]string, error) {
	vars := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && inherited(k) {
			vars[k] = v
		}
	}
	for k, v := range u.cfg.Env {
		vars[k] = v
	}
	for k, read := range u.cfg.Secrets {
		v, err := read()
		if err != nil {
			return nil, fmt.Errorf("secret %s: %w", k, err)
		}
		u.red.Add(v)
		if !strings.HasSuffix(k, "_FILE") {
			vars[k] = v
			continue
		}
		if u.secrets == nil {
			d, err := newSecretDir(u.cfg.Name)
			if err != nil {
				return nil, fmt.Errorf("secret %s: %w", k, err)
			}
			u.secrets = d
		}
		path, err := u.secrets.write(k, v)
		if err != nil {
			return nil, fmt.Errorf("secret %s: %w", k, err)
		}
		vars[k] = path
	}
	env := make([]string, 0, len(vars))
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	slices.Sort(env)
	return env, nil
}

// startChild starts the command with its environment, in a process group of
// its own.
func (u *Upstream) startChild() (*child, error) {
	env, err := u.env()
	if err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd := exec.Command(u.cfg.Command[0], u.cfg.Command[1:]...)
	cmd.Env, cmd.Dir = env, u.cfg.Dir
	// Files, not readers and writers: the child holds the descriptors
	// themselves, and no copying goroutine or Wait closes them under the
	// session.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	ownGroup(cmd)
	err = cmd.Start()
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("start %s: %w", filepath.Base(u.cfg.Command[0]), err)
	}
	c := &child{cmd: cmd, stdin: inW, stdout: outR, exited: make(chan struct{})}
	go u.logStderr(errR)
	go func() {
		err := cmd.Wait()
		if err == nil {
			err = ErrExited
		} else {
			err = fmt.Errorf("%w: %w", ErrExited, err)
		}
		c.exitErr = err
		close(c.exited)
	}()
	return c, nil
}

// transport speaks MCP over the child's standard input and output.
func (c *child) transport(maxResult int, log func(string)) sdk.Transport {
	// A line holds a JSON-RPC message; JSON escaping can grow a result
	// several times, and the limit on results is checked once decoded.
	line := max(sdk.DefaultMaxLineLength, 8*maxResult)
	return &sdk.IOTransport{Reader: &jsonLines{r: bufio.NewReaderSize(c.stdout, 64<<10), c: c.stdout, max: line, log: log}, Writer: c.stdin, MaxLineLength: line}
}

// jsonLines passes on the lines of a child's output that are JSON (a
// JSON-RPC message is one line of JSON) and logs the others: servers that
// print to stdout (gitea-mcp 0.0.10 dumps each HTTP cache hit there, over
// several lines) would otherwise break the connection. A line longer than
// max ends the connection.
type jsonLines struct {
	r       *bufio.Reader
	c       io.Closer
	max     int
	log     func(string)
	pending []byte // passed on, not yet read
}

func (j *jsonLines) Read(p []byte) (int, error) {
	for len(j.pending) == 0 {
		line, err := j.line()
		if json.Valid(line) {
			j.pending = line
		} else if t := bytes.TrimSpace(line); len(t) > 0 {
			j.log(truncate(strings.ToValidUTF8(string(t), "?"), 500))
		}
		if err != nil && len(j.pending) == 0 {
			return 0, err
		}
		if err != nil {
			break
		}
	}
	n := copy(p, j.pending)
	j.pending = j.pending[n:]
	return n, nil
}

// line reads one line, newline included; a line longer than max ends the
// connection, as the SDK's own limit would.
func (j *jsonLines) line() ([]byte, error) {
	var line []byte
	for {
		chunk, err := j.r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > j.max {
			return nil, fmt.Errorf("upstream output: a line longer than %d bytes", j.max)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// Close closes the child's output.
func (j *jsonLines) Close() error { return j.c.Close() }

// stop ends the child: its input closed (how a stdio server is told to
// stop), then SIGTERM to its process group, then SIGKILL. Every process
// left in the group is killed even when the child exits by itself.
func (c *child) stop() {
	c.once.Do(func() {
		c.stdin.Close()
		wait := func(d time.Duration) bool {
			select {
			case <-c.exited:
				return true
			case <-time.After(d):
				return false
			}
		}
		if !wait(2 * time.Second) {
			signalGroup(c.cmd.Process, syscall.SIGTERM)
			if !wait(2 * time.Second) {
				signalGroup(c.cmd.Process, syscall.SIGKILL)
				<-c.exited
			}
		}
		signalGroup(c.cmd.Process, syscall.SIGKILL)
		c.stdout.Close()
	})
}

// logStderr logs the child's standard error, line by line, cut to length
// (and masked, by the logger).
func (u *Upstream) logStderr(r io.ReadCloser) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 4096)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			text := strings.TrimRight(string(line), "\r\n")
			if errors.Is(err, bufio.ErrBufferFull) {
				text += " …"
				for errors.Is(err, bufio.ErrBufferFull) {
					_, err = br.ReadSlice('\n')
				}
			}
			u.log.Info("upstream stderr", "line", truncate(strings.ToValidUTF8(text, "?"), 2000))
		}
		if err != nil {
			return
		}
	}
}

// secretDir holds the files of *_FILE secrets: a 0700 directory, 0600 files.
type secretDir struct{ dir string }

func newSecretDir(name string) (*secretDir, error) {
	d, err := os.MkdirTemp("", "bridle-upstream-"+name+"-")
	if err != nil {
		return nil, err
	}
	return &secretDir{dir: d}, os.Chmod(d, 0o700)
}

// write replaces the file of the variable name with value and returns its
// path; it is never readable by anyone but Bridle's user.
func (s *secretDir) write(name, value string) (string, error) {
	f, err := os.CreateTemp(s.dir, ".tmp-")
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(value)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	path := filepath.Join(s.dir, strings.ToLower(strings.TrimSuffix(name, "_FILE")))
	if err == nil {
		err = os.Chmod(f.Name(), 0o600)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return path, nil
}

func (s *secretDir) remove() { os.RemoveAll(s.dir) }

// Package giteatest starts a real Gitea (built from its Go module by
// scripts/gitea.sh) on 127.0.0.1 with SQLite in a temporary directory, with
// an admin user and token, for integration tests.
//
// When the binary is missing, Start skips the test with a message saying how
// to build it, unless BRIDLE_REQUIRE_GITEA=1 (set by scripts/test.sh), in
// which case it fails.
package giteatest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Version is the Gitea version scripts/gitea.sh builds.
const Version = "v1.26.0"

// Server is a running Gitea.
type Server struct {
	URL        string
	AdminUser  string
	AdminToken string
	dir        string
	bin        string
	cmd        *exec.Cmd
	log        *os.File
	mu         sync.Mutex
	users      map[string]string // user → token
	passwords  map[string]string // user → password, for signing in through Gitea's pages
}

// paths returns the binary and the module source (for locale files).
func paths() (bin, src string) {
	if b := os.Getenv("BRIDLE_GITEA_BIN"); b != "" {
		return b, os.Getenv("BRIDLE_GITEA_SRC")
	}
	cache := os.Getenv("BRIDLE_GITEA_CACHE")
	if cache == "" {
		base := os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			home, _ := os.UserHomeDir()
			base = filepath.Join(home, ".cache")
		}
		cache = filepath.Join(base, "bridle", "gitea")
	}
	return filepath.Join(cache, "gitea-"+Version), filepath.Join(cache, "src-"+Version)
}

var (
	shared     *Server
	sharedErr  error
	sharedOnce sync.Once
)

// Available reports whether the Gitea that Shared starts is built: nil, or
// an error naming what is missing. The binary is $BRIDLE_GITEA_BIN, else
// gitea-<Version> in the cache ($BRIDLE_GITEA_CACHE, else
// ~/.cache/bridle/gitea) beside the module source it serves files from,
// as scripts/gitea.sh build leaves them.
func Available() error {
	bin, src := paths()
	if fi, err := os.Stat(bin); err != nil || fi.IsDir() {
		return fmt.Errorf("real Gitea not built (%s missing)", bin)
	}
	if src != "" {
		if fi, err := os.Stat(src); err != nil || !fi.IsDir() {
			return fmt.Errorf("real Gitea not built (%s missing)", src)
		}
	}
	return nil
}

// Shared starts one Gitea for the whole test binary; Stop it from TestMain.
func Shared(t testing.TB) *Server {
	t.Helper()
	if err := Available(); err != nil {
		msg := err.Error() + "; run scripts/gitea.sh build, or scripts/test.sh which builds it"
		if os.Getenv("BRIDLE_REQUIRE_GITEA") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	sharedOnce.Do(func() { shared, sharedErr = start() })
	if sharedErr != nil {
		t.Fatalf("start gitea: %v", sharedErr)
	}
	return shared
}

// Main is a test binary's TestMain for packages that use Shared: it runs
// the tests, then stops the shared server, then exits with their code.
func Main(m *testing.M) {
	code := m.Run()
	StopShared()
	os.Exit(code)
}

// StopShared stops the shared server, if one was started.
func StopShared() {
	if shared != nil {
		shared.Stop()
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func random() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func start() (*Server, error) {
	bin, src := paths()
	dir, err := os.MkdirTemp("", "bridle-gitea-")
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port), AdminUser: "bridle-admin", dir: dir, bin: bin}
	conf := filepath.Join(dir, "custom", "conf", "app.ini")
	os.MkdirAll(filepath.Dir(conf), 0o755)
	ini := fmt.Sprintf(`I_AM_BEING_UNSAFE_RUNNING_AS_ROOT = true
APP_NAME = bridle-test
RUN_MODE = prod
WORK_PATH = %[1]s

[server]
PROTOCOL = http
HTTP_ADDR = 127.0.0.1
HTTP_PORT = %[2]d
ROOT_URL = %[3]s/
DOMAIN = 127.0.0.1
STATIC_ROOT_PATH = %[4]s
APP_DATA_PATH = %[1]s/data
DISABLE_SSH = true
OFFLINE_MODE = true
LFS_START_SERVER = false

[database]
DB_TYPE = sqlite3
PATH = %[1]s/gitea.db
SQLITE_JOURNAL_MODE = WAL

[repository]
ROOT = %[1]s/repos
DEFAULT_BRANCH = main

[security]
INSTALL_LOCK = true
SECRET_KEY = %[5]s
PASSWORD_HASH_ALGO = pbkdf2_hi

[service]
DISABLE_REGISTRATION = true

[actions]
ENABLED = false

[cron]
ENABLED = false

[mailer]
ENABLED = false

[session]
PROVIDER = memory

[cache]
ADAPTER = memory

[indexer]
ISSUE_INDEXER_TYPE = db
REPO_INDEXER_ENABLED = false

[log]
MODE = file
LEVEL = Warn
ROOT_PATH = %[1]s/log
`, dir, port, s.URL, src, random())
	if err := os.WriteFile(conf, []byte(ini), 0o644); err != nil {
		return nil, err
	}
	run := func(args ...string) error {
		cmd := exec.Command(bin, append(args, "--config", conf)...)
		cmd.Env = append(os.Environ(), "GITEA_WORK_DIR="+dir, "HOME="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("gitea %s: %v\n%s", args[0], err, out)
		}
		return nil
	}
	if err := run("migrate"); err != nil {
		return nil, err
	}
	pass := "Pw-" + random()
	if err := run("admin", "user", "create", "--admin", "--username", s.AdminUser, "--password", pass,
		"--email", "admin@bridle.test", "--must-change-password=false"); err != nil {
		return nil, err
	}
	s.log, _ = os.Create(filepath.Join(dir, "stdout.log"))
	s.cmd = exec.Command(bin, "web", "--config", conf)
	s.cmd.Env = append(os.Environ(), "GITEA_WORK_DIR="+dir, "HOME="+dir)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(s.URL + "/api/v1/version")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			s.Stop()
			logs, _ := os.ReadFile(filepath.Join(dir, "stdout.log"))
			return nil, fmt.Errorf("gitea did not answer within 60s:\n%s", logs)
		}
		time.Sleep(100 * time.Millisecond)
	}
	tok, err := s.token(s.AdminUser, pass)
	if err != nil {
		s.Stop()
		return nil, err
	}
	s.AdminToken = tok
	return s, nil
}

// token creates an access token for user with password.
func (s *Server) token(user, pass string) (string, error) {
	body, _ := json.Marshal(map[string]any{"name": "t-" + random()[:8], "scopes": []string{"all"}})
	req, _ := http.NewRequest("POST", s.URL+"/api/v1/users/"+user+"/tokens", bytes.NewReader(body))
	req.SetBasicAuth(user, pass)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct {
		SHA1    string `json:"sha1"`
		Message string `json:"message"`
	}
	json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != 201 || out.SHA1 == "" {
		return "", fmt.Errorf("create token for %s: %s %s", user, resp.Status, out.Message)
	}
	return out.SHA1, nil
}

// CreateUser makes a non-admin user and returns its token; asking again
// for the same user returns the same token.
func (s *Server) CreateUser(t testing.TB, name string) string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if tok, ok := s.users[name]; ok {
		return tok
	}
	pass := "Pw-" + random()
	body, _ := json.Marshal(map[string]any{"username": name, "password": pass, "email": name + "@bridle.test", "must_change_password": false})
	if err := s.Do("POST", "/api/v1/admin/users", s.AdminToken, body, nil); err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("create user %s: %v", name, err)
	}
	tok, err := s.token(name, pass)
	if err != nil {
		t.Fatal(err)
	}
	if s.users == nil {
		s.users, s.passwords = map[string]string{}, map[string]string{}
	}
	s.users[name], s.passwords[name] = tok, pass
	return tok
}

// Password is the password of a user CreateUser made ("" for another), to
// sign in through Gitea's own login page.
func (s *Server) Password(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.passwords[name]
}

// Do calls the API with token; out, if non-nil, receives the JSON answer.
func (s *Server) Do(method, path, token string, body []byte, out any) error {
	req, _ := http.NewRequest(method, s.URL+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "token "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		var e struct{ Message string }
		json.NewDecoder(resp.Body).Decode(&e)
		return fmt.Errorf("%s %s: %s %s", method, path, resp.Status, e.Message)
	}
	if out != nil {
		return json.NewDecoder(resp.Body).Decode(out)
	}
	return nil
}

// Stop ends Gitea and removes its directory.
func (s *Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			s.cmd.Process.Kill()
			<-done
		}
	}
	if s.log != nil {
		s.log.Close()
	}
	os.RemoveAll(s.dir)
}

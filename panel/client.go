package panel

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/bridle-dev/bridle/actor"
	"github.com/bridle-dev/bridle/gateway"
)

// apiError is an error answer of the admin API.
type apiError struct {
	Status int
	API    gateway.APIError
}

func (e *apiError) Error() string {
	if e.API.Error != "" {
		return e.API.Error
	}
	return http.StatusText(e.Status)
}

// statusOf is the API's status for err, 0 when it did not answer one.
func statusOf(err error) int {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.Status
	}
	return 0
}

// request is an admin API request made for the browser's request c.r: the
// admin credential of the session, the browser's address (for the API's
// limit on failed credentials) and its context (it ends when the browser
// goes away).
func (c *call) request(method, path string, in any) (*http.Request, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("panel: encode %s %s: %w", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	ctx := c.r.Context()
	if c.ss.token == "" && c.ss.person.IsHuman() {
		// A person signed in through a provider: the API acts as them.
		ctx = actor.With(ctx, c.ss.person)
		if g := c.p.sessions.groupsOf(c.ss); len(g) > 0 {
			ctx = gateway.WithGroups(ctx, g)
		}
		if tok := c.p.sessions.providerToken(c.ss); tok != "" {
			ctx = gateway.WithProviderToken(ctx, tok)
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, path, body)
	if err != nil {
		return nil, fmt.Errorf("panel: %s %s: %w", method, path, err)
	}
	req.RemoteAddr, req.Host, req.TLS = c.r.RemoteAddr, c.r.Host, c.r.TLS
	if c.ss.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.ss.token)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// do calls the admin API in process; a 2xx answer's JSON goes into out.
func (c *call) do(method, path string, in, out any) error {
	_, err := c.exchange(method, path, in, out)
	return err
}

// exchange is do, answering the API's response headers too.
func (c *call) exchange(method, path string, in, out any) (http.Header, error) {
	req, err := c.request(method, path, in)
	if err != nil {
		return nil, err
	}
	rec := &recorder{header: http.Header{}, code: http.StatusOK}
	c.p.api.ServeHTTP(rec, req)
	if rec.code < 200 || rec.code > 299 {
		e := &apiError{Status: rec.code}
		if json.Unmarshal(rec.body.Bytes(), &e.API) != nil {
			e.API.Error = string(bytes.TrimSpace(rec.body.Bytes()))
		}
		return rec.header, e
	}
	if out != nil {
		if err := json.Unmarshal(rec.body.Bytes(), out); err != nil {
			return rec.header, fmt.Errorf("panel: %s %s: the answer is not the JSON expected: %w", method, path, err)
		}
	}
	return rec.header, nil
}

func (c *call) get(path string, out any) error { return c.do(http.MethodGet, path, nil, out) }

// getPage is a paged listing's GET: out gets the page, total the API's
// X-Total-Count (the matches before paging).
func (c *call) getPage(path string, out any) (total int, err error) {
	h, err := c.exchange(http.MethodGet, path, nil, out)
	if err != nil {
		return 0, err
	}
	total, err = strconv.Atoi(h.Get("X-Total-Count"))
	if err != nil {
		return 0, fmt.Errorf("panel: GET %s: the answer has no X-Total-Count: %w", path, err)
	}
	return total, nil
}

// stream calls an NDJSON endpoint and hands each line to line as the API
// writes it (the API runs on its own goroutine, writing into a pipe).
func (c *call) stream(method, path string, line func([]byte)) error {
	req, err := c.request(method, path, nil)
	if err != nil {
		return err
	}
	pr, pw := io.Pipe()
	sw := &streamWriter{header: http.Header{}, pw: pw, started: make(chan struct{})}
	go func() {
		c.p.api.ServeHTTP(sw, req)
		sw.start(http.StatusOK)
		pw.Close()
	}()
	<-sw.started
	if sw.code < 200 || sw.code > 299 {
		b, _ := io.ReadAll(pr)
		e := &apiError{Status: sw.code}
		if json.Unmarshal(b, &e.API) != nil {
			e.API.Error = string(bytes.TrimSpace(b))
		}
		return e
	}
	sc := bufio.NewScanner(pr)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			line(sc.Bytes())
		}
	}
	if err := sc.Err(); err != nil {
		pr.CloseWithError(err)
		return fmt.Errorf("panel: %s %s: %w", method, path, err)
	}
	return nil
}

// recorder is an http.ResponseWriter that keeps the answer.
type recorder struct {
	header http.Header
	code   int
	wrote  bool
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.code, r.wrote = code, true
	}
}
func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}

// streamWriter is an http.ResponseWriter whose body is a pipe, read as the
// handler writes it; Flush is a no-op (every write goes through at once).
type streamWriter struct {
	header  http.Header
	code    int
	pw      *io.PipeWriter
	started chan struct{}
	once    bool
}

func (s *streamWriter) Header() http.Header { return s.header }
func (s *streamWriter) start(code int) {
	if !s.once {
		s.once, s.code = true, code
		close(s.started)
	}
}
func (s *streamWriter) WriteHeader(code int) { s.start(code) }
func (s *streamWriter) Write(b []byte) (int, error) {
	s.start(http.StatusOK)
	return s.pw.Write(b)
}
func (s *streamWriter) Flush() {}

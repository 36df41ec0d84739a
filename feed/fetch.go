package feed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/html/charset"
)

// Source is a vendor document to fetch.
type Source struct {
	URL string
	// Format is markdown or html; empty means from the Content-Type
	// (text/html and application/xhtml+xml are HTML; text/markdown and
	// text/plain are markdown; none or application/octet-stream: HTML if
	// the body starts with <!doctype html or <html, else markdown).
	Format Format
	// Selector, when set, keeps only the section under one heading: its
	// text, case-insensitive, or a heading path "A > B". See Select.
	Selector string
}

// Previous is what an earlier fetch of the source returned, for a
// conditional request.
type Previous struct {
	ETag, LastModified, Hash string
}

// Options bound a fetch. Zero values take the defaults.
type Options struct {
	// HTTP is the client to use (its Transport and TLS settings); Fetch
	// replaces its redirect policy with its own. Default: a new client over
	// http.DefaultTransport.
	HTTP *http.Client
	// MaxBytes is the largest body read (after content decoding); default 2 MiB.
	MaxBytes int64
	// Timeout bounds the whole fetch, body included; default 20 s.
	Timeout time.Duration
	// MaxRedirects is the most redirects followed; default 3, negative for none.
	MaxRedirects int
}

// The defaults of Options.
const (
	DefaultMaxBytes     = 2 << 20
	DefaultTimeout      = 20 * time.Second
	DefaultMaxRedirects = 3
)

// Document is a fetched source.
type Document struct {
	URL  string // after redirects
	Text string // the normalised text (see Text); empty when a 304 answered
	// Blocks are Text's blocks (ParseText(Text) gives the same).
	Blocks []Block
	// Hash is the hex SHA-256 of Text; Previous.Hash when a 304 answered.
	Hash               string
	ETag, LastModified string
	// NotModified reports that the text is the one Previous describes:
	// the server answered 304 (Text and Blocks are empty, the other fields
	// are Previous's), or its answer hashes to Previous.Hash.
	NotModified bool
}

// Errors of Fetch, matched with errors.Is.
var (
	ErrInsecureURL      = errors.New("not an https URL (plain http is allowed only to loopback addresses)")
	ErrTooLarge         = errors.New("document too large")
	ErrTimeout          = errors.New("timed out")
	ErrRedirectLoop     = errors.New("redirect loop")
	ErrTooManyRedirects = errors.New("too many redirects")
	ErrContentType      = errors.New("not a text document")
	// ErrStatus is matched by every *StatusError.
	ErrStatus = errors.New("unexpected HTTP status")
)

// StatusError is a non-2xx answer (other than a 304 to a conditional
// request, and the redirects followed).
type StatusError struct {
	URL    string
	Code   int
	Status string // as the server sent it, e.g. "404 Not Found"
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("fetch %s: %s %s", e.URL, ErrStatus, e.Status)
}

// Is makes errors.Is(err, ErrStatus) true.
func (e *StatusError) Is(target error) bool { return target == ErrStatus }

// Fetch gets a source's document and normalises it.
//
// The URL, and every redirect target before it is followed, must be https,
// or http to a loopback address (127.0.0.0/8, ::1, localhost); anything else
// is refused with ErrInsecureURL before a request is sent. A redirect back
// to a URL already visited is ErrRedirectLoop; more than MaxRedirects is
// ErrTooManyRedirects. A body over MaxBytes is ErrTooLarge, refused from its
// Content-Length or after reading MaxBytes+1 bytes at most. A fetch that
// outlasts Timeout is ErrTimeout (a cancelled ctx gives ctx's error). A
// non-2xx answer is a *StatusError. Invalid UTF-8 (after decoding the
// charset the Content-Type names) is replaced with U+FFFD, one per invalid
// run: it never fails a fetch.
func Fetch(ctx context.Context, src Source, prev Previous, opts Options) (Document, error) {
	opts = opts.withDefaults()
	u, err := checkURL(src.URL)
	if err != nil {
		return Document{}, err
	}
	shown := u.Redacted()
	ctx, cancel := context.WithTimeoutCause(ctx, opts.Timeout, ErrTimeout)
	defer cancel()
	timedOut := func(err error) error {
		if errors.Is(context.Cause(ctx), ErrTimeout) {
			return fmt.Errorf("fetch %s: %w after %s: %w", shown, ErrTimeout, opts.Timeout, err)
		}
		return fmt.Errorf("fetch %s: %w", shown, err)
	}

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Document{}, fmt.Errorf("fetch %s: %w", shown, err)
	}
	req.Header.Set("Accept", "text/markdown, text/html;q=0.9, text/plain;q=0.8")
	req.Header.Set("User-Agent", "bridle-feed/1")
	if prev.ETag != "" {
		req.Header.Set("If-None-Match", prev.ETag)
	}
	if prev.LastModified != "" {
		req.Header.Set("If-Modified-Since", prev.LastModified)
	}
	client := *opts.HTTP
	client.Timeout = 0 // ctx bounds the fetch, body included
	client.CheckRedirect = redirectPolicy(opts.MaxRedirects)
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) && (errors.Is(ue.Err, ErrInsecureURL) || errors.Is(ue.Err, ErrRedirectLoop) || errors.Is(ue.Err, ErrTooManyRedirects)) {
			return Document{}, fmt.Errorf("fetch %s: %w", shown, ue.Err)
		}
		if errors.As(err, &ue) && ue.URL == u.String() {
			err = ue.Err // the URL is said once, in fetch URL:
		}
		return Document{}, timedOut(err)
	}
	defer resp.Body.Close()
	final := resp.Request.URL.Redacted()

	if resp.StatusCode == http.StatusNotModified && (prev.ETag != "" || prev.LastModified != "") {
		return Document{URL: final, Hash: prev.Hash, ETag: prev.ETag, LastModified: prev.LastModified, NotModified: true}, nil
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return Document{}, &StatusError{URL: final, Code: resp.StatusCode, Status: resp.Status}
	}
	if resp.ContentLength > opts.MaxBytes {
		return Document{}, fmt.Errorf("fetch %s: %w: %d bytes, the limit is %d", final, ErrTooLarge, resp.ContentLength, opts.MaxBytes)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, opts.MaxBytes+1))
	if err != nil {
		return Document{}, timedOut(err)
	}
	if int64(len(body)) > opts.MaxBytes {
		return Document{}, fmt.Errorf("fetch %s: %w: more than %d bytes", final, ErrTooLarge, opts.MaxBytes)
	}

	format, err := formatOf(src.Format, resp.Header.Get("Content-Type"), body)
	if err != nil {
		return Document{}, fmt.Errorf("fetch %s: %w", final, err)
	}
	blocks, err := Normalise(decode(body, resp.Header.Get("Content-Type")), format)
	if err != nil {
		return Document{}, fmt.Errorf("fetch %s: %w", final, err)
	}
	if blocks, err = Select(blocks, src.Selector); err != nil {
		return Document{}, fmt.Errorf("fetch %s: %w", final, err)
	}
	text := Text(blocks)
	sum := sha256.Sum256([]byte(text))
	doc := Document{
		URL: final, Text: text, Blocks: blocks, Hash: hex.EncodeToString(sum[:]),
		ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified"),
	}
	doc.NotModified = prev.Hash != "" && prev.Hash == doc.Hash
	return doc, nil
}

func (o Options) withDefaults() Options {
	if o.HTTP == nil {
		o.HTTP = &http.Client{}
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxRedirects == 0 {
		o.MaxRedirects = DefaultMaxRedirects
	}
	return o
}

// checkURL parses raw and refuses anything but https and loopback http.
func checkURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	if err := allowed(u); err != nil {
		return nil, fmt.Errorf("fetch %s: %w", u.Redacted(), err)
	}
	return u, nil
}

func allowed(u *url.URL) error {
	switch {
	case u.Scheme == "https" && u.Hostname() != "":
		return nil
	case u.Scheme == "http" && loopback(u.Hostname()):
		return nil
	}
	return ErrInsecureURL
}

// loopback reports localhost, 127.0.0.0/8 and ::1 (IPv4-mapped too). It
// does not resolve names: localhost is the only name.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Zone() == "" && ip.Unmap().IsLoopback()
}

func redirectPolicy(limit int) func(*http.Request, []*http.Request) error {
	limit = max(limit, 0)
	return func(req *http.Request, via []*http.Request) error {
		if err := allowed(req.URL); err != nil {
			return fmt.Errorf("redirect to %s: %w", req.URL.Redacted(), err)
		}
		for _, v := range via {
			if v.URL.String() == req.URL.String() {
				return fmt.Errorf("%w: %s is visited twice", ErrRedirectLoop, req.URL.Redacted())
			}
		}
		if len(via) > limit {
			return fmt.Errorf("%w: more than %d", ErrTooManyRedirects, limit)
		}
		return nil
	}
}

// formatOf decides a body's format.
func formatOf(f Format, contentType string, body []byte) (Format, error) {
	if f != "" {
		if f != Markdown && f != HTML {
			return "", fmt.Errorf("%w %q (want markdown or html)", ErrFormat, f)
		}
		return f, nil
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	switch mt {
	case "text/html", "application/xhtml+xml":
		return HTML, nil
	case "text/markdown", "text/x-markdown", "text/plain":
		return Markdown, nil
	case "", "application/octet-stream":
		head := strings.ToLower(strings.TrimSpace(string(body[:min(len(body), 512)])))
		if strings.HasPrefix(head, "<!doctype html") || strings.HasPrefix(head, "<html") {
			return HTML, nil
		}
		return Markdown, nil
	}
	if strings.HasPrefix(mt, "text/") {
		return Markdown, nil
	}
	return "", fmt.Errorf("%w: %s", ErrContentType, mt)
}

// decode converts a body in the charset its Content-Type names to UTF-8.
// No charset, or one not known, means UTF-8; Normalise replaces what is
// invalid.
func decode(body []byte, contentType string) []byte {
	_, params, _ := mime.ParseMediaType(contentType)
	label := strings.ToLower(params["charset"])
	if label == "" || label == "utf-8" || label == "utf8" || label == "us-ascii" {
		return body
	}
	enc, name := charset.Lookup(label)
	if enc == nil || name == "utf-8" {
		return body
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return body
	}
	return out
}

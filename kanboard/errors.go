package kanboard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// What Kanboard's answers mean, for errors.Is. Every *Error wraps one.
var (
	// ErrBadOptions: Options that name no usable endpoint or credential.
	ErrBadOptions = errors.New("bad kanboard options")
	// ErrNotFound: no such project, task, comment or subtask (Kanboard
	// answered null, false or 0 where that means missing).
	ErrNotFound = errors.New("not found in kanboard")
	// ErrRejected: Kanboard refused a write (a false result): an empty
	// title, a date it cannot parse, a column of another project.
	ErrRejected = errors.New("kanboard refused the change")
	// ErrUnauthorized: the credentials were refused (401). Kanboard locks a
	// user out after six failed logins; then the right token gets 401 too.
	ErrUnauthorized = errors.New("kanboard rejected the credentials (401)")
	// ErrForbidden: the identity may not do this (403): the application
	// identity calling getMe, or a user calling on a project it is not a
	// member of — or one that does not exist, which looks the same to a user.
	ErrForbidden = errors.New("kanboard refused access (403)")
	// ErrBadParams: Kanboard did not accept the parameters (-32602): a name
	// it does not know, or one missing.
	ErrBadParams = errors.New("kanboard refused the parameters (-32602)")
	// ErrUnavailable: Kanboard could not be reached or did not answer in
	// time, failed (5xx), or answered an HTML page. Reads are retried.
	ErrUnavailable = errors.New("kanboard is unavailable")
	// ErrTooLarge: the answer is larger than Options.MaxResponse.
	ErrTooLarge = errors.New("kanboard's answer is too large")
	// ErrProtocol: the answer is not the JSON-RPC Bridle expects (an
	// unknown method, a malformed body, a result of the wrong shape).
	ErrProtocol = errors.New("unexpected kanboard answer")
)

// Error is a failed Kanboard call: the JSON-RPC method, the HTTP status (0
// when none came back), a message free of credentials, and what it means.
type Error struct {
	Method  string
	Status  int
	Message string
	Kind    error // one of the sentinels
}

func (e *Error) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("kanboard %s: %s", e.Method, e.Kind)
	}
	return fmt.Sprintf("kanboard %s: %s: %s", e.Method, e.Kind, e.Message)
}

// Unwrap returns Kind, for errors.Is.
func (e *Error) Unwrap() error { return e.Kind }

// maxMessage caps the text of Kanboard's own error messages kept in an
// Error: it is the server's text, shown to people and models.
const maxMessage = 300

// decodeError is Decode's failure: which sentinel, and why.
type decodeError struct {
	kind error
	msg  string
}

func (e *decodeError) Error() string { return e.kind.Error() + ": " + e.msg }
func (e *decodeError) Unwrap() error { return e.kind }

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
	ID json.RawMessage `json:"id"`
}

// Decode reads one JSON-RPC response body to the call numbered id and
// returns its result, which is valid JSON ("null" when there is none). An
// error wraps ErrBadParams (-32602), ErrUnauthorized (401), ErrForbidden
// (403) or ErrProtocol (any other error object, a malformed body, a batch,
// another call's id). It never panics, whatever the body.
func Decode(body []byte, id int64) (json.RawMessage, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil, &decodeError{ErrProtocol, "empty answer (was the call sent as a notification?)"}
	}
	if body[0] != '{' {
		return nil, &decodeError{ErrProtocol, "the answer is not a JSON-RPC object"}
	}
	var r response
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, &decodeError{ErrProtocol, "malformed JSON-RPC answer: " + clean(err.Error(), maxMessage)}
	}
	if r.Error != nil {
		code := intOf(r.Error.Code)
		msg := clean(r.Error.Message, maxMessage)
		var data string
		if json.Unmarshal(r.Error.Data, &data) == nil && data != "" {
			msg += ": " + clean(data, maxMessage)
		}
		kind := ErrProtocol
		switch code {
		case -32602:
			kind = ErrBadParams
		case 401:
			kind = ErrUnauthorized
		case 403:
			kind = ErrForbidden
		}
		return nil, &decodeError{kind, fmt.Sprintf("error %d: %s", code, msg)}
	}
	if r.JSONRPC != "2.0" {
		return nil, &decodeError{ErrProtocol, `the answer has no "jsonrpc":"2.0"`}
	}
	if got := intOf(r.ID); got != id {
		return nil, &decodeError{ErrProtocol, fmt.Sprintf("the answer is to call %s, not %d", clean(string(r.ID), 40), id)}
	}
	if len(r.Result) == 0 {
		return nil, &decodeError{ErrProtocol, "the answer has neither a result nor an error"}
	}
	return r.Result, nil
}

// intOf reads a JSON number or numeric string; anything else is 0.
func intOf(raw json.RawMessage) int64 {
	var n Int
	if json.Unmarshal(raw, &n) != nil {
		return 0
	}
	return int64(n)
}

// clean makes server text safe to keep in an error: one line, no control
// characters, valid UTF-8, at most max bytes.
func clean(s string, max int) string {
	if len(s) > 4*max {
		s = s[:4*max]
	}
	s = strings.ToValidUTF8(s, "")
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == '\u2028' || r == '\u2029':
			return -1
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		s = s[:max]
		for len(s) > 0 && !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
	}
	return s
}

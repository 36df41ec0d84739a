package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/internal/lines"
	"github.com/bridle-dev/bridle/redact"
)

// DefaultMaxLine is the longest JSON-RPC line the stdio transport accepts.
const DefaultMaxLine = 4 << 20

// LineTransport speaks newline-delimited JSON-RPC over a reader and a
// writer, like the SDK's stdio transport, but survives bad input: a line
// that is not JSON, not JSON-RPC, a batch, or longer than MaxLine is answered
// with a JSON-RPC error and skipped, and the session goes on. Only the end of
// input ends it.
//
// It also keeps the JSON-RPC rules the SDK's connection does not: a call
// whose id is already in flight is answered at once with Invalid Request
// (as the SDK's streamable transport does) instead of being dropped, and an
// error response never carries code 0 (a call refused before initialize
// gets Invalid Request, anything else Internal error). Every line written is
// masked by Redactor, the last line of defence for what the SDK answers by
// itself.
type LineTransport struct {
	In       io.Reader
	Out      io.Writer
	MaxLine  int // 0 means DefaultMaxLine
	Logger   *slog.Logger
	Redactor *redact.Redactor
}

// Connect implements sdk.Transport.
func (t *LineTransport) Connect(context.Context) (sdk.Connection, error) {
	max := t.MaxLine
	if max <= 0 {
		max = DefaultMaxLine
	}
	log := t.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &lineConn{out: t.Out, incoming: make(chan jsonrpc.Message), done: make(chan struct{}), log: log, red: t.Redactor,
		inflight: map[string]bool{}}
	go c.readLoop(bufio.NewReaderSize(t.In, 64<<10), max)
	return c, nil
}

type lineConn struct {
	out      io.Writer
	wmu      sync.Mutex
	incoming chan jsonrpc.Message
	readErr  error // set before incoming is closed
	done     chan struct{}
	once     sync.Once
	log      *slog.Logger

	red *redact.Redactor

	// Calls read but not yet answered, by id: at the end of input, Read
	// waits (up to drainTimeout) for their responses before reporting EOF,
	// so `printf … | bridle mcp` gets every answer.
	pmu      sync.Mutex
	inflight map[string]bool // id → the call came before initialize
	initSeen bool            // an initialize request has been read
	idle     chan struct{}   // closed when inflight empties
}

const drainTimeout = 10 * time.Second

func (c *lineConn) readLoop(r *bufio.Reader, max int) {
	defer close(c.incoming)
	for {
		line, tooLong, err := lines.Read(r, max)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if msg := c.decode(line, tooLong, max); msg != nil {
				select {
				case c.incoming <- msg:
				case <-c.done:
					return
				}
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				c.readErr = err
			}
			return
		}
	}
}

// decode returns the message on a line, or answers the line with an error
// and returns nil.
func (c *lineConn) decode(line []byte, tooLong bool, max int) jsonrpc.Message {
	if tooLong {
		c.log.Warn("rejected an oversized JSON-RPC line", "limit", max)
		c.reject(nil, -32600, fmt.Sprintf("Invalid Request: line longer than %d bytes", max))
		return nil
	}
	line = bytes.TrimSpace(line)
	if line[0] == '[' {
		c.reject(nil, -32600, "Invalid Request: JSON-RPC batches are not supported")
		return nil
	}
	var probe struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(line, &probe) != nil {
		c.log.Warn("rejected a line that is not JSON")
		c.reject(nil, -32700, "Parse error: the line is not valid JSON")
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err == nil && probe.Method == nil && probe.Result == nil && probe.Error == nil {
		err = errors.New("a message needs a method (request) or a result or error (response)")
	}
	if err == nil {
		return msg
	}
	c.log.Warn("rejected a malformed JSON-RPC message", "err", err)
	c.reject(probe.ID, -32600, "Invalid Request: "+err.Error())
	return nil
}

// reject writes a JSON-RPC error response for a message the SDK never saw.
func (c *lineConn) reject(id json.RawMessage, code int, msg string) {
	if len(id) == 0 || !(id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9') {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.out.Write(append(c.red.JSON(b), '\n'))
}

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.done:
			return nil, io.EOF
		case msg, ok := <-c.incoming:
			if !ok {
				if c.readErr != nil {
					return nil, c.readErr
				}
				c.drain(ctx)
				return nil, io.EOF
			}
			if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() && !c.track(req) {
				// The SDK would drop it silently (and the drain would wait
				// for an answer that never comes).
				c.log.Warn("rejected a call whose id is already in flight", "method", req.Method)
				c.reject(idJSON(req.ID), jsonrpc.CodeInvalidRequest,
					fmt.Sprintf("Invalid Request: request id %s is already in flight; use a new id for every call", idJSON(req.ID)))
				continue
			}
			return msg, nil
		}
	}
}

// track records a call as in flight; false if its id already is.
func (c *lineConn) track(req *jsonrpc.Request) bool {
	key := idKey(req.ID)
	c.pmu.Lock()
	defer c.pmu.Unlock()
	if _, dup := c.inflight[key]; dup {
		return false
	}
	if req.Method == "initialize" {
		c.initSeen = true
	}
	c.inflight[key] = !c.initSeen && !perRequestProtocol(req.Params)
	return true
}

// perRequestProtocol reports whether a request names its protocol version in
// _meta (the sessionless protocol, which needs no initialize).
func perRequestProtocol(params json.RawMessage) bool {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	_, ok := p.Meta["io.modelcontextprotocol/protocolVersion"]
	return ok
}

func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

func idJSON(id jsonrpc.ID) json.RawMessage {
	b, err := json.Marshal(id.Raw())
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

// drain waits until every call read so far has been answered.
func (c *lineConn) drain(ctx context.Context) {
	c.pmu.Lock()
	if len(c.inflight) == 0 {
		c.pmu.Unlock()
		return
	}
	c.idle = make(chan struct{})
	idle := c.idle
	c.pmu.Unlock()
	select {
	case <-idle:
	case <-ctx.Done():
	case <-c.done:
	case <-time.After(drainTimeout):
	}
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, isResp := msg.(*jsonrpc.Response)
	var early bool
	if isResp {
		c.pmu.Lock()
		key := idKey(resp.ID)
		early = c.inflight[key]
		delete(c.inflight, key)
		if len(c.inflight) == 0 && c.idle != nil {
			close(c.idle)
			c.idle = nil
		}
		c.pmu.Unlock()
		if resp.Error != nil {
			msg = withCode(resp, early)
		}
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	_, err = c.out.Write(append(c.red.JSON(b), '\n'))
	c.wmu.Unlock()
	return err
}

// withCode gives an error response without a code (the SDK sends code 0
// for plain Go errors, such as a call before initialize) the proper one.
func withCode(resp *jsonrpc.Response, early bool) *jsonrpc.Response {
	var wire *jsonrpc.Error
	if errors.As(resp.Error, &wire) && wire.Code != 0 {
		return resp
	}
	e := &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: resp.Error.Error()}
	if wire != nil {
		e.Data = wire.Data
	}
	if early {
		// The MCP spec leaves the code open; -32600 is JSON-RPC's for a
		// request that is not valid here, and what the SDK uses for other
		// protocol-state violations. (-32002 was the SDK's old
		// resource-not-found code, so it would mislead.)
		e.Code = jsonrpc.CodeInvalidRequest
	}
	cp := *resp
	cp.Error = e
	return &cp
}

func (c *lineConn) Close() error {
	c.once.Do(func() { close(c.done) })
	return nil
}

func (c *lineConn) SessionID() string { return "" }

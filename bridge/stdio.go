package bridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/bridle-dev/bridle/internal/lines"
)

// readAgent reads newline-delimited JSON-RPC from in and sends each
// message to out, answering the lines that are not one (as the sidecar's
// stdio transport does) and going on. It returns nil at the end of input.
func readAgent(ctx context.Context, in io.Reader, max int, b *bridge, out chan<- jsonrpc.Message) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := lines.Read(r, max)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if msg := b.decode(line, tooLong); msg != nil {
				select {
				case out <- msg:
				case <-ctx.Done():
					return nil
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// decode returns the message on a line, or answers the line with an error
// and returns nil.
func (b *bridge) decode(line []byte, tooLong bool) jsonrpc.Message {
	null := jsonrpc.ID{}
	if tooLong {
		b.log.Warn("refused an oversized JSON-RPC line", "limit", b.max)
		b.reply(null, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: line longer than %d bytes", b.max))
		return nil
	}
	line = bytes.TrimSpace(line)
	if line[0] == '[' {
		b.reply(null, jsonrpc.CodeInvalidRequest, "Invalid Request: JSON-RPC batches are not supported")
		return nil
	}
	var probe struct {
		ID     any             `json:"id"`
		Method json.RawMessage `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(line, &probe) != nil {
		b.log.Warn("refused a line that is not JSON")
		b.reply(null, jsonrpc.CodeParseError, "Parse error: the line is not valid JSON")
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err == nil && probe.Method == nil && probe.Result == nil && probe.Error == nil {
		err = errors.New("a message needs a method (request) or a result or error (response)")
	}
	if err == nil {
		return msg
	}
	b.log.Warn("refused a malformed JSON-RPC message", "err", err)
	id, idErr := jsonrpc.MakeID(probe.ID)
	if idErr != nil {
		id = null
	}
	b.reply(id, jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error())
	return nil
}

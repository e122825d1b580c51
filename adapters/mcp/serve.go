package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMessageBytes is the longest message Serve reads, in bytes, without
// its line's end: one byte under the SDK's limit for a line with it.
const MaxMessageBytes = sdk.DefaultMaxLineLength - 1

// MaxInFlight is how many requests Serve lets wait for their answers at
// once; a request beyond it is refused (so a client that stops reading
// the answers cannot make the server hold ever more of them).
const MaxInFlight = 128

// maxID is the largest integer id: the SDK reads a number as a float64
// (exact up to 2^53) and echoes it as an integer.
const maxID = 1<<53 - 1

// MaxInFlightBytes bounds the bytes of the request lines waiting for
// their answers; a request that would pass it is refused, unless it is
// the only one.
const MaxInFlightBytes = 64 << 20

// CodeBusy is the JSON-RPC error code (in the range the specification
// leaves to servers) of a request refused because MaxInFlight requests,
// or MaxInFlightBytes of them, are waiting for their answers.
const CodeBusy = -32000

// Serve serves the tool set over MCP on r and w (newline-delimited
// JSON-RPC, as on a stdio connection), introducing itself with name and
// version, until the client closes the connection (r ends) or ctx is
// cancelled.
//
// When r ends, the requests in flight are answered before Serve
// returns nil. When ctx ends, the calls in flight are cancelled (an exec
// command is killed), nothing more is written, and Serve returns ctx's
// error once the calls have ended, even if an answer is still held up
// by a client that stopped reading.
//
// Serve reads each line before the SDK does and answers the ones that
// would end the SDK's connection, so that the session goes on: a line
// that is not one JSON value is a parse error (-32700); a batch, a line
// longer than MaxMessageBytes (whitespace included), a request whose id
// the SDK could not echo exactly (a number with a fraction or an
// exponent, or beyond ±(2^53-1); a string with a lone surrogate or a
// byte that is not UTF-8) or whose id is already in flight, and a
// message that is not JSON-RPC 2.0 are invalid requests (-32600); a
// request beyond MaxInFlight or MaxInFlightBytes is refused with
// CodeBusy. A client may reuse an id once it has read the answer.
func (s *Tools) Serve(ctx context.Context, r io.Reader, w io.Writer, name, version string) error {
	server := sdk.NewServer(&sdk.Implementation{Name: name, Version: version}, nil)
	f := newFlight(ctx)
	// The SDK's handlers run on the session's context, which outlives
	// ctx until every handler returns: each call is also ended by ctx.
	for _, t := range s.set.All() {
		handler := t.Handler
		server.AddTool(t.Definition, func(callCtx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			f.call(1)
			defer f.call(-1)
			callCtx, cancel := context.WithCancel(callCtx)
			defer cancel()
			defer context.AfterFunc(ctx, cancel)()
			return handler(callCtx, req)
		})
	}
	fw := &flightWriter{f: f, w: w}
	ran := make(chan error, 1)
	go func() {
		ran <- server.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(&flightReader{f: f, r: r, w: fw}), Writer: fw})
	}()
	select {
	case err := <-ran:
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		return nil
	case <-ctx.Done():
	}
	// The SDK's Run also waits for answers being written, and a client
	// that stopped reading would hold it forever: Serve returns once the
	// tool calls have ended (a command killed); nothing more is written.
	f.callsEnded()
	return ctx.Err()
}

// flight tracks the requests a client sent that the server has not
// answered yet, so that the end of the client's input (it closed the
// connection) reaches the server only once they are answered: the SDK
// stops serving at the end of its input. An answer ends its request
// before it is written, so that a client may reuse the id as soon as it
// has read it.
type flight struct {
	ctx     context.Context
	mu      sync.Mutex
	cond    *sync.Cond
	pending map[string]int // request id key → bytes of its line
	bytes   int            // of the lines in pending
	writing int            // answers being written
	calls   int            // tool calls running
}

func newFlight(ctx context.Context) *flight {
	f := &flight{ctx: ctx, pending: map[string]int{}}
	f.cond = sync.NewCond(&f.mu)
	context.AfterFunc(ctx, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.cond.Broadcast()
	})
	return f
}

// idKey spells an id as the SDK holds it (an int64 or a string), so
// that a request's and its response's match.
func idKey(id jsonrpc.ID) string {
	return fmt.Sprintf("%T %v", id.Raw(), id.Raw())
}

// admit notes a request of size bytes about to be passed on; it
// returns why it must be refused instead ("" to pass it on).
func (f *flight) admit(id jsonrpc.ID, size int) (code int, reason string) {
	k := idKey(id)
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.pending[k] > 0:
		return jsonrpc.CodeInvalidRequest, "a request with id " + fmt.Sprint(id.Raw()) + " is still in flight"
	case len(f.pending) >= MaxInFlight:
		return CodeBusy, "server busy: " + strconv.Itoa(MaxInFlight) + " requests are waiting for their answers"
	case len(f.pending) > 0 && f.bytes+size > MaxInFlightBytes:
		return CodeBusy, "server busy: the requests waiting for their answers hold " + strconv.Itoa(f.bytes>>20) + " MiB"
	}
	f.pending[k] = max(size, 1)
	f.bytes += max(size, 1)
	return 0, ""
}

// answering ends the requests the responses in p answer, before p is
// written; it returns how many, for written.
func (f *flight) answering(p []byte) int {
	n := 0
	for line := range bytes.SplitSeq(p, []byte("\n")) {
		id, ok := responseID(line)
		if !ok {
			continue
		}
		f.mu.Lock()
		k := idKey(id)
		f.bytes -= f.pending[k]
		delete(f.pending, k)
		f.writing++
		f.mu.Unlock()
		n++
	}
	return n
}

// written notes that n answers are written (or failed to be).
func (f *flight) written(n int) {
	if n == 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writing -= n
	f.cond.Broadcast()
}

// responseID is the id of a response the SDK wrote, read from the
// members before its result (the SDK writes jsonrpc and id first), so
// that a large result is not decoded again; ok is false for a message
// that is no response.
func responseID(line []byte) (id jsonrpc.ID, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return id, false
	}
	var raw any
	haveID, response := false, false
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return id, false
		}
		switch key {
		case "method":
			return id, false
		case "id":
			if dec.Decode(&raw) != nil {
				return id, false
			}
			haveID = true
		case "result", "error":
			response = true
			if haveID {
				id, err := jsonrpc.MakeID(raw)
				return id, err == nil && id.IsValid()
			}
			fallthrough
		default:
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return id, false
			}
		}
	}
	if !response || !haveID {
		return id, false
	}
	id, err := jsonrpc.MakeID(raw)
	return id, err == nil && id.IsValid()
}

// drain waits until every request read is answered and its answer
// written, or ctx ends.
func (f *flight) drain() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for (len(f.pending) > 0 || f.writing > 0) && f.ctx.Err() == nil {
		f.cond.Wait()
	}
}

// call notes a tool call starting (+1) or ending (-1).
func (f *flight) call(delta int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls += delta
	f.cond.Broadcast()
}

// callsEnded waits until no tool call is running (after ctx ended, each
// is cancelled, so they end soon).
func (f *flight) callsEnded() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for f.calls > 0 {
		f.cond.Wait()
	}
}

// flightReader passes the client's input to the SDK line by line (at
// most one line per Read, so the SDK's count of a message's bytes is that
// line's), noting each request, and holds back its end until the
// requests are answered. A line that would end the SDK's connection is
// answered here instead (see Serve).
type flightReader struct {
	f       *flight
	r       io.Reader
	w       *flightWriter
	buf     []byte // what one read of r takes
	partial []byte
	ready   []byte
	skip    bool // the rest of an overlong line is dropped
	eof     bool
}

func (fr *flightReader) Read(p []byte) (int, error) {
	for len(fr.ready) == 0 {
		if fr.eof {
			fr.f.drain()
			return 0, io.EOF
		}
		if fr.buf == nil {
			fr.buf = make([]byte, 64<<10)
		}
		n, err := fr.r.Read(fr.buf)
		fr.take(fr.buf[:n])
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return 0, err
			}
			if len(fr.partial) > 0 && !fr.skip {
				fr.line(fr.partial)
			}
			fr.partial = nil
			fr.eof = true
		}
	}
	end := len(fr.ready)
	if i := bytes.IndexByte(fr.ready, '\n'); i >= 0 {
		end = i + 1
	}
	n := copy(p, fr.ready[:end])
	fr.ready = fr.ready[n:]
	return n, nil
}

// take splits input into lines, refusing each that grows longer than
// MaxMessageBytes (once; the rest of it is dropped).
func (fr *flightReader) take(data []byte) {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		chunk := data
		if i >= 0 {
			chunk = data[:i]
		}
		if !fr.skip {
			fr.partial = append(fr.partial, chunk...)
			if len(fr.partial) > MaxMessageBytes+1 { // +1: a CR before the LF
				fr.partial, fr.skip = nil, true
				fr.w.refuse(nil, jsonrpc.CodeInvalidRequest, "message longer than "+strconv.Itoa(MaxMessageBytes)+" bytes")
			}
		}
		if i < 0 {
			return
		}
		if !fr.skip {
			fr.line(fr.partial)
		}
		fr.partial, fr.skip = nil, false
		data = data[i+1:]
	}
}

// line passes one line on, or answers it (see Serve).
func (fr *flightReader) line(line []byte) {
	line = bytes.TrimSpace(line)
	switch {
	case len(line) == 0:
		return
	case len(line) > MaxMessageBytes:
		fr.w.refuse(nil, jsonrpc.CodeInvalidRequest, "message longer than "+strconv.Itoa(MaxMessageBytes)+" bytes")
		return
	case !json.Valid(line):
		fr.w.refuse(nil, jsonrpc.CodeParseError, "not one JSON value")
		return
	case line[0] == '[':
		fr.w.refuse(nil, jsonrpc.CodeInvalidRequest, "batches are not supported")
		return
	case line[0] != '{':
		fr.w.refuse(nil, jsonrpc.CodeInvalidRequest, "a message must be a JSON object")
		return
	}
	id := rawID(line)
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		fr.w.refuse(id, jsonrpc.CodeInvalidRequest, err.Error())
		return
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		if n, isNumber := req.ID.Raw().(int64); isNumber && (string(id) != strconv.FormatInt(n, 10) || n > maxID || n < -maxID) {
			fr.w.refuse(id, jsonrpc.CodeInvalidRequest, "id must be a string or an integer from -"+strconv.Itoa(maxID)+" to "+strconv.Itoa(maxID)+", written without a fraction or an exponent")
			return
		}
		if s, isString := req.ID.Raw().(string); isString && !sameString(id, s) {
			fr.w.refuse(id, jsonrpc.CodeInvalidRequest, "id must be a string of Unicode text (no lone surrogate, no byte that is not UTF-8)")
			return
		}
		if code, reason := fr.f.admit(req.ID, len(line)); code != 0 {
			fr.w.refuse(id, code, reason)
			return
		}
	}
	fr.ready = append(append(fr.ready, line...), '\n')
}

// sameString reports whether the JSON string raw is s exactly: not when
// it holds a byte that is not UTF-8 or a lone surrogate escape, which a
// decoder turns into U+FFFD.
func sameString(raw json.RawMessage, s string) bool {
	if !utf8.Valid(raw) {
		return false
	}
	given := strings.Count(string(raw), "\uFFFD") + strings.Count(strings.ToLower(string(raw)), `\ufffd`)
	return strings.Count(s, "\uFFFD") <= given
}

// rawID is the id member of a message as the client spelled it (to
// echo in a refusal, and to see whether the SDK echoes it exactly),
// found by its exact key: Go's decoder would also take "ID". It stops at
// the id, which clients send before the params.
func rawID(line []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return nil
		}
		if key == "id" {
			return raw
		}
	}
	return nil
}

// flightWriter passes the server's output through, noting each answer.
type flightWriter struct {
	f  *flight
	w  io.Writer
	mu sync.Mutex // one message at a time: the SDK's and refuse's
}

func (fw *flightWriter) Write(p []byte) (int, error) {
	answers := fw.f.answering(p)
	defer fw.f.written(answers)
	fw.mu.Lock()
	defer fw.mu.Unlock()
	// Once Serve's context ended nothing more is written: the client may
	// have stopped reading.
	if err := fw.f.ctx.Err(); err != nil {
		return 0, err
	}
	return fw.w.Write(p)
}

func (*flightWriter) Close() error { return nil }

// refuse answers a line the SDK is not given with a JSON-RPC error,
// echoing id when it is a string or a number (else null). A refusal
// answers no request in flight.
func (fw *flightWriter) refuse(id json.RawMessage, code int, reason string) {
	var v any
	if json.Unmarshal(id, &v) != nil {
		v = nil
	}
	switch v.(type) {
	case string, float64:
	default:
		id = json.RawMessage("null")
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: int64(code), Message: reason}})
	if err != nil {
		return
	}
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if fw.f.ctx.Err() == nil {
		_, _ = fw.w.Write(append(data, '\n'))
	}
}

package mcp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMessageBytes is the longest message Serve reads, in bytes, without
// its line's end: one byte under the SDK's limit for a line with it.
const MaxMessageBytes = sdkMaxLine - 1

// MaxInFlight is how many requests Serve lets wait for their answers at
// once; a request beyond it is refused (so a client that stops reading
// the answers cannot make the server hold ever more of them).
const MaxInFlight = 128

// MaxInFlightBytes bounds the bytes of the request lines waiting for
// their answers; a request that would pass it is refused, unless it is
// the only one.
const MaxInFlightBytes = 64 << 20

// CodeBusy is the JSON-RPC error code (in the range the specification
// leaves to servers) of a request refused because MaxInFlight requests,
// or MaxInFlightBytes of them, are waiting for their answers.
const CodeBusy = -32000

// GracePeriod is how long Serve lets the requests in flight run, to be
// answered, after the client's input ends, unless Tools.Grace says
// otherwise: the 2 s the MCP TypeScript SDK's client waits for a server
// to exit after closing its input.
const GracePeriod = 2 * time.Second

// Serve serves the tool set over MCP on r and w (newline-delimited
// JSON-RPC, as on a stdio connection), introducing itself with name and
// version, until the client is gone (r ends, or writing to w fails) or
// ctx is cancelled.
//
// When r ends, the requests in flight get the grace period (Tools.Grace,
// GracePeriod when 0) to be answered; then the ones left are cancelled
// (an exec command is killed with its children) and not answered, and
// Serve returns nil once the tool calls have ended. When writing to w
// fails (the client closed its end), the same happens at once. When ctx
// ends, the calls in flight are cancelled, nothing more is written, and
// Serve returns ctx's error once the calls have ended. In each case
// Serve does not wait for an answer held up by a client that stopped
// reading.
//
// A request the client cancelled (notifications/cancelled) is not
// answered, as MCP asks. An error the SDK would answer with code 0 (a Go
// error without a JSON-RPC code) gets one: -32600 (invalid request) for
// a request before initialize, which the SDK refuses; -32603 (internal
// error) for any other.
//
// Serve reads each line before the SDK does and answers the ones that
// would end the SDK's connection, or that the SDK would not answer, so
// that the session goes on: a line that is not one JSON value is a parse
// error (-32700); a batch, a line longer than MaxMessageBytes
// (whitespace included), a request whose id the SDK could not echo
// exactly (a number with a fraction or an exponent, or beyond
// ±(2^53-1); a string with a lone surrogate or a byte that is not UTF-8)
// or whose id is already in flight, a message with a method and an id
// of null (which the SDK would take for a notification), a message with
// an id and neither a method, a result nor an error, and a message that
// is not JSON-RPC 2.0 are invalid requests (-32600); a request beyond MaxInFlight or
// MaxInFlightBytes is refused with CodeBusy. A client may reuse an id
// once it has read the answer.
func (s *Tools) Serve(ctx context.Context, r io.Reader, w io.Writer, name, version string) error {
	server := sdk.NewServer(&sdk.Implementation{Name: name, Version: version}, nil)
	f := newFlight(ctx, cmp.Or(s.Grace, GracePeriod))
	// The SDK's handlers run on the session's context, which outlives
	// ctx until every handler returns: each call is also ended by f's
	// context (ctx, or the client gone).
	for _, t := range s.set.All() {
		handler := t.Handler
		server.AddTool(t.Definition, func(callCtx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			f.call(1)
			defer f.call(-1)
			callCtx, cancel := context.WithCancel(callCtx)
			defer cancel()
			defer context.AfterFunc(f.ctx, cancel)()
			return handler(callCtx, req)
		})
	}
	fw := &flightWriter{f: f, w: w}
	t := &transport{f: f, io: sdk.IOTransport{Reader: io.NopCloser(&flightReader{f: f, r: r, w: fw}), Writer: fw}}
	ran := make(chan error, 1)
	go func() { ran <- server.Run(f.ctx, t) }()
	select {
	case err := <-ran:
		if f.ctx.Err() == nil {
			if err != nil && !errors.Is(err, io.EOF) {
				return err
			}
			return nil
		}
	case <-f.ctx.Done():
	}
	// The SDK's Run also waits for answers being written, and a client
	// that stopped reading would hold it forever: Serve returns once the
	// tool calls have ended (a command killed); nothing more is written.
	f.callsEnded()
	return ctx.Err()
}

// errClientGone ends a session whose client is gone: its input ended
// and the grace period passed, or writing to it failed.
var errClientGone = errors.New("the client is gone")

// flight tracks the requests a client sent that the server has not
// answered yet, so that the end of the client's input (it closed the
// connection) reaches the server only once they are answered or the
// grace period has passed: the SDK stops serving at the end of its
// input (sdkWire, 16). An answer ends its request before it is written,
// as the SDK does, so that a client may reuse the id as soon as it has
// read it (sdkWire, 14).
type flight struct {
	ctx         context.Context // Serve's, also ended when the client is gone
	stop        context.CancelCauseFunc
	grace       time.Duration
	mu          sync.Mutex
	cond        *sync.Cond
	pending     map[string]request // by id key
	bytes       int                // of the lines in pending
	writing     int                // answers being written
	calls       int                // tool calls running
	initialized bool               // an initialize request was answered with a result
}

// request is a request in flight.
type request struct {
	bytes      int  // of its line
	initialize bool // it is an initialize request
	cancelled  bool // the client cancelled it: its answer is not sent
}

func newFlight(ctx context.Context, grace time.Duration) *flight {
	f := &flight{pending: map[string]request{}, grace: grace}
	f.ctx, f.stop = context.WithCancelCause(ctx)
	f.cond = sync.NewCond(&f.mu)
	context.AfterFunc(f.ctx, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.cond.Broadcast()
	})
	return f
}

// admit notes a request of size bytes about to be passed on; it
// returns why it must be refused instead ("" to pass it on).
func (f *flight) admit(req *jsonrpc.Request, size int) (code int, reason string) {
	k := sdkWire{}.idKey(req.ID)
	f.mu.Lock()
	defer f.mu.Unlock()
	switch _, inFlight := f.pending[k]; {
	case inFlight:
		return jsonrpc.CodeInvalidRequest, "a request with id " + fmt.Sprint(req.ID.Raw()) + " is still in flight"
	case len(f.pending) >= MaxInFlight:
		return CodeBusy, "server busy: " + strconv.Itoa(MaxInFlight) + " requests are waiting for their answers"
	case len(f.pending) > 0 && f.bytes+size > MaxInFlightBytes:
		return CodeBusy, "server busy: the requests waiting for their answers hold " + strconv.Itoa(f.bytes>>20) + " MiB"
	}
	f.pending[k] = request{bytes: max(size, 1), initialize: req.Method == "initialize"}
	f.bytes += max(size, 1)
	return 0, ""
}

// cancel notes that the client cancelled the request with id, if it is
// in flight: its answer will not be sent.
func (f *flight) cancel(id jsonrpc.ID) {
	k := sdkWire{}.idKey(id)
	f.mu.Lock()
	defer f.mu.Unlock()
	if req, ok := f.pending[k]; ok {
		req.cancelled = true
		f.pending[k] = req
	}
}

// answering ends the request resp answers, before resp is written (or
// dropped); written must follow. It reports whether the answer is to be
// sent (not when the client cancelled the request), and whether the
// session was initialized before it.
func (f *flight) answering(resp *jsonrpc.Response) (send, initialized bool) {
	k := sdkWire{}.idKey(resp.ID)
	f.mu.Lock()
	defer f.mu.Unlock()
	req := f.pending[k]
	f.bytes -= req.bytes
	delete(f.pending, k)
	f.writing++
	initialized = f.initialized
	if req.initialize && resp.Error == nil {
		f.initialized = true
	}
	return !req.cancelled, initialized
}

// written notes that an answer is written (or failed to be, or was
// dropped).
func (f *flight) written() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writing--
	f.cond.Broadcast()
}

// drain waits until every request read is answered and its answer
// written, or the grace period passes (then the client is gone), or f's
// context ends.
func (f *flight) drain() {
	gone := time.AfterFunc(f.grace, func() { f.stop(errClientGone) })
	defer gone.Stop()
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

// callsEnded waits until no tool call is running (after f's context
// ended, each is cancelled, so they end soon).
func (f *flight) callsEnded() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for f.calls > 0 {
		f.cond.Wait()
	}
}

// transport is the SDK's stdio transport on the client's lines, its
// answers seen as messages by a conn.
type transport struct {
	f  *flight
	io sdk.IOTransport
}

func (t *transport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.io.Connect(ctx)
	if err != nil {
		return nil, err
	}
	// conn hides the SDK connection's session hook, by which it refuses
	// batches past protocol 2025-06-18: the flightReader refuses them all
	// (sdkWire, 5).
	return &conn{Connection: c, f: t.f}, nil
}

// conn passes the SDK's messages on, ending the request each answer
// answers. It drops the answer to a request the client cancelled (which
// the SDK sends: sdkWire, 15), and gives a JSON-RPC code to an error the
// SDK would send with code 0 (sdkWire.coded).
type conn struct {
	sdk.Connection
	f *flight
}

func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return c.Connection.Write(ctx, msg)
	}
	send, initialized := c.f.answering(resp)
	defer c.f.written()
	if !send {
		return nil
	}
	return c.Connection.Write(ctx, sdkWire{}.coded(resp, initialized))
}

// flightReader passes the client's input to the SDK line by line (at
// most one line per Read, so the SDK's count of a message's bytes is that
// line's: sdkWire, 3), noting each request, and holds back its end until
// the requests are answered (sdkWire, 16). A line that would end the
// SDK's connection is answered here instead (sdkWire.screen).
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
				code, reason := sdkWire{}.overLong()
				fr.w.refuse(nil, code, reason)
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
	if len(line) == 0 {
		return
	}
	msg, id, code, reason := sdkWire{}.screen(line)
	if code != 0 {
		fr.w.refuse(id, code, reason)
		return
	}
	if msg, ok := msg.(*jsonrpc.Request); ok {
		if !msg.IsCall() {
			if msg.Method == "notifications/cancelled" {
				fr.cancelled(msg)
			}
		} else if code, reason := fr.f.admit(msg, len(line)); code != 0 {
			fr.w.refuse(id, code, reason)
			return
		}
	}
	fr.ready = append(append(fr.ready, line...), '\n')
}

// cancelled notes the request a notifications/cancelled names, which
// the SDK then cancels (one it cannot read it ignores, as the SDK does).
func (fr *flightReader) cancelled(note *jsonrpc.Request) {
	var params sdk.CancelledParams
	if json.Unmarshal(note.Params, &params) != nil {
		return
	}
	if id, err := jsonrpc.MakeID(params.RequestID); err == nil && id.IsValid() {
		fr.f.cancel(id)
	}
}

// flightWriter passes the server's output through, one message at a
// time (the SDK writes each with one Write: sdkWire, 1). A failed write
// means the client is gone: the calls in flight are cancelled at once.
type flightWriter struct {
	f  *flight
	w  io.Writer
	mu sync.Mutex // one message at a time: the SDK's and refuse's
}

func (fw *flightWriter) Write(p []byte) (int, error) {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	// Once f's context ended nothing more is written: the client may
	// have stopped reading, or be gone.
	if err := fw.f.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := fw.w.Write(p)
	if err != nil {
		fw.f.stop(errClientGone)
	}
	return n, err
}

func (*flightWriter) Close() error { return nil }

// refuse answers a line the SDK is not given with a JSON-RPC error,
// echoing id when it is a string or a number (else null). A refusal
// answers no request in flight.
func (fw *flightWriter) refuse(id json.RawMessage, code int, reason string) {
	if data := (sdkWire{}).refusal(id, code, reason); data != nil {
		_, _ = fw.Write(data)
	}
}

// Package mcp serves the workspace tools over the Model Context Protocol
// with github.com/modelcontextprotocol/go-sdk (v1.8.0): each tool is an
// MCP tool with its exact name, description and input schema (the JSON
// Schema text, sent as is).
//
//	set, err := mcp.New(ws, agenttools.Options{})
//	server := sdk.NewServer(&sdk.Implementation{Name: "agenttools"}, nil)
//	set.Register(server)
//	err = server.Run(ctx, &sdk.StdioTransport{})
//
// or NewServer, which does both; `agenttools mcp` is such a server over
// stdio.
//
// # What the client receives
//
// Every tool call answers a CallToolResult whose content is what the model
// must see, never re-worded:
//
//   - a text output (a whole read) and a json output (every other result,
//     JavaScript's JSON.stringify form, the reference's key order) are one
//     TextContent;
//   - a failure the model sees (read's error text, an {"error": ...}
//     object, exec's {command, cwd, backend, error}, arguments that fail
//     the schema) is the same TextContent with IsError set;
//   - read of an image is a TextContent (the reference's text part) and an
//     ImageContent with the file's bytes and media type; of a PDF, the
//     TextContent and an embedded resource (its URI file:// and the
//     workspace path, its MIME type, the bytes as a blob).
//
// The server does not check arguments itself: they reach the tool, which
// answers invalid ones with the reference's model-facing message (as a
// failure). A call to a tool the server does not offer, and a request
// that is not well-formed, are protocol errors, as the SDK answers them.
// A cancelled call ends with the context's error.
//
// exec's running snapshots (at most one per 100 ms) go to the client as
// progress notifications when the call carries a progress token: each
// notification's message is the snapshot (the exec result so far, with a
// null exitCode, as JSON text) and its progress counts the snapshots.
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

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/gen"
	"github.com/agenttools/agenttools/internal/adapt"
)

// Tool is one workspace tool as MCP serves it: its definition and the
// handler that answers its calls.
type Tool struct {
	Definition *sdk.Tool
	Handler    sdk.ToolHandler
}

// Tools is the tool set over one workspace, as MCP tools. All, Named and
// the per-tool accessors find them; Register adds them to a server.
type Tools struct {
	set adapt.Set[Tool]
}

// New builds the tool set for ws. It fails when ws is nil or an option
// is out of range.
func New(ws *vfs.Workspace, opts agenttools.Options) (*Tools, error) {
	ex, err := adapt.Executor("mcp", ws, opts)
	if err != nil {
		return nil, err
	}
	s := &Tools{}
	s.set.Init(ex, s.adapt)
	return s, nil
}

// Register adds every tool of the set to server.
func (s *Tools) Register(server *sdk.Server) {
	for _, t := range s.set.All() {
		server.AddTool(t.Definition, t.Handler)
	}
}

// NewServer returns an MCP server that offers the tool set for ws,
// introducing itself as impl (name "agenttools" when nil). It fails as
// New does.
func NewServer(ws *vfs.Workspace, opts agenttools.Options, impl *sdk.Implementation) (*sdk.Server, error) {
	set, err := New(ws, opts)
	if err != nil {
		return nil, err
	}
	if impl == nil {
		impl = &sdk.Implementation{Name: "agenttools"}
	}
	server := sdk.NewServer(impl, nil)
	set.Register(server)
	return server, nil
}

// Serve serves the tool set over MCP on r and w (newline-delimited
// JSON-RPC, as on a stdio connection), introducing itself with name and
// version, until the client closes the connection (r ends) or ctx is
// cancelled. Requests in flight are answered before it returns. A line
// that is no JSON-RPC message (not JSON, nested deeper than a decoder
// follows, longer than sdk.DefaultMaxLineLength) is answered with a
// JSON-RPC parse or invalid-request error and the session goes on. It
// returns nil when the client closed the connection, ctx's error when
// ctx ended it.
func (s *Tools) Serve(ctx context.Context, r io.Reader, w io.Writer, name, version string) error {
	server := sdk.NewServer(&sdk.Implementation{Name: name, Version: version}, nil)
	s.Register(server)
	f := newFlight(ctx)
	fw := &flightWriter{f: f, w: w}
	err := server.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(&flightReader{f: f, r: r, w: fw}), Writer: fw})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// flight tracks the requests a client sent that the server has not
// answered yet, so that the end of the client's input (it closed the
// connection) reaches the server only once they are answered: the SDK
// stops serving at the end of its input.
type flight struct {
	ctx     context.Context
	mu      sync.Mutex
	cond    *sync.Cond
	pending map[string]bool
}

func newFlight(ctx context.Context) *flight {
	f := &flight{ctx: ctx, pending: map[string]bool{}}
	f.cond = sync.NewCond(&f.mu)
	context.AfterFunc(ctx, func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.cond.Broadcast()
	})
	return f
}

// message is what flight reads of a JSON-RPC message.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// lines calls fn with each message of a line: one, or each of a batch.
func lines(line []byte, fn func(message)) {
	var batch []message
	if json.Unmarshal(line, &batch) == nil {
		for _, m := range batch {
			fn(m)
		}
		return
	}
	var m message
	if json.Unmarshal(line, &m) == nil {
		fn(m)
	}
}

// idKey spells an id so that a request's and its response's match; ""
// for none.
func idKey(id json.RawMessage) string {
	var v any
	if len(id) == 0 || json.Unmarshal(id, &v) != nil || v == nil {
		return ""
	}
	return fmt.Sprintf("%T %v", v, v)
}

func (f *flight) sent(line []byte) {
	lines(line, func(m message) {
		if k := idKey(m.ID); k != "" && m.Method != "" {
			f.mu.Lock()
			f.pending[k] = true
			f.mu.Unlock()
		}
	})
}

func (f *flight) answered(line []byte) {
	lines(line, func(m message) {
		if k := idKey(m.ID); k != "" && m.Method == "" && (m.Result != nil || m.Error != nil) {
			f.mu.Lock()
			delete(f.pending, k)
			f.cond.Broadcast()
			f.mu.Unlock()
		}
	})
}

// drain waits until every request read is answered, or ctx ends.
func (f *flight) drain() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.pending) > 0 && f.ctx.Err() == nil {
		f.cond.Wait()
	}
}

// flightReader passes the client's input through line by line, noting
// each request, and holds back its end until the requests are answered.
// A line that is no JSON-RPC message (not JSON, nested too deep, too
// long) would end the SDK's connection: it is answered here with a
// JSON-RPC error instead, and the session goes on.
type flightReader struct {
	f       *flight
	r       io.Reader
	w       *flightWriter
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
		buf := make([]byte, 64<<10)
		n, err := fr.r.Read(buf)
		fr.take(buf[:n])
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
	n := copy(p, fr.ready)
	fr.ready = fr.ready[n:]
	return n, nil
}

// take splits input into lines.
func (fr *flightReader) take(data []byte) {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			if !fr.skip {
				fr.partial = append(fr.partial, data...)
				if len(fr.partial) > sdk.DefaultMaxLineLength {
					fr.partial, fr.skip = nil, true
					fr.w.refuse(nil, jsonrpcInvalidRequest, "message longer than "+strconv.Itoa(sdk.DefaultMaxLineLength)+" bytes")
				}
			}
			return
		}
		if fr.skip {
			fr.skip = false
		} else {
			fr.line(append(fr.partial, data[:i]...))
		}
		fr.partial = nil
		data = data[i+1:]
	}
}

// line passes one line on, or answers it when it is no message.
func (fr *flightReader) line(line []byte) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		var m message
		if json.Unmarshal(line, &m) == nil && m.Method != "" {
			fr.w.refuse(m.ID, jsonrpcInvalidRequest, err.Error())
		} else {
			fr.w.refuse(nil, jsonrpcParseError, err.Error())
		}
		return
	}
	fr.f.sent(line)
	fr.ready = append(append(fr.ready, line...), '\n')
}

// The JSON-RPC error codes for input that is no message.
const (
	jsonrpcParseError     = -32700
	jsonrpcInvalidRequest = -32600
)

// flightWriter passes the server's output through, noting each answer.
type flightWriter struct {
	f  *flight
	w  io.Writer
	mu sync.Mutex // one message at a time: the SDK's and refuse's
}

func (fw *flightWriter) Write(p []byte) (int, error) {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	n, err := fw.w.Write(p)
	for _, line := range bytes.Split(p[:n], []byte("\n")) {
		if len(line) > 0 {
			fw.f.answered(line)
		}
	}
	return n, err
}

func (*flightWriter) Close() error { return nil }

// refuse answers input that is no message with a JSON-RPC error (id null
// when it has none).
func (fw *flightWriter) refuse(id json.RawMessage, code int, reason string) {
	if len(id) == 0 || !json.Valid(id) {
		id = json.RawMessage("null")
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, reason}})
	if err != nil {
		return
	}
	_, _ = fw.Write(append(data, '\n'))
}

func (s *Tools) definition(t core.Tool) *sdk.Tool {
	return &sdk.Tool{Name: t.Name, Description: t.Description, InputSchema: json.RawMessage(t.InputSchema)}
}

// plain answers text or json.
func (s *Tools) plain(t core.Tool) Tool {
	ex := s.set.Executor()
	return Tool{Definition: s.definition(t), Handler: func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		out, err := ex.Call(ctx, t.Name, arguments(req))
		if err != nil {
			return nil, err
		}
		return Result(out), nil
	}}
}

// media can also answer an image or PDF, as an ImageContent or an
// embedded resource: Result does both.
func (s *Tools) media(t core.Tool) Tool { return s.plain(t) }

// streaming sends exec's running snapshots as progress notifications
// when the client asked for progress.
func (s *Tools) streaming(t core.Tool) Tool {
	ex := s.set.Executor()
	return Tool{Definition: s.definition(t), Handler: func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		if token := progressToken(req); token != nil && req.Session != nil {
			sent := 0
			ctx = core.WithSnapshots(ctx, func(o gen.Output) {
				sent++
				_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
					ProgressToken: token,
					Progress:      float64(sent),
					Message:       string(o.JSON),
				})
			})
		}
		out, err := ex.Call(ctx, t.Name, arguments(req))
		if err != nil {
			return nil, err
		}
		return Result(out), nil
	}}
}

func progressToken(req *sdk.CallToolRequest) any {
	if req == nil || req.Params == nil {
		return nil
	}
	return req.Params.GetProgressToken()
}

// arguments are the call's arguments as JSON text: {} when the client
// sent none.
func arguments(req *sdk.CallToolRequest) []byte {
	if req == nil || req.Params == nil || len(req.Params.Arguments) == 0 || string(req.Params.Arguments) == "null" {
		return []byte("{}")
	}
	return req.Params.Arguments
}

// Result is an output as a CallToolResult (see the package
// documentation).
func Result(out gen.Output) *sdk.CallToolResult {
	text := out.Text
	if out.Kind == gen.OutputJSON {
		text = string(out.JSON)
	}
	res := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, IsError: out.IsError()}
	if out.Kind == gen.OutputContent && out.Media != nil {
		if strings.HasPrefix(out.Media.MediaType, "image/") {
			res.Content = append(res.Content, &sdk.ImageContent{Data: out.Media.Data, MIMEType: out.Media.MediaType})
		} else {
			res.Content = append(res.Content, &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{
				URI:      "file://" + out.Media.Path,
				MIMEType: out.Media.MediaType,
				Blob:     out.Media.Data,
			}})
		}
	}
	return res
}

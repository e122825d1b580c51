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
// or NewServer, which does both. Serve is the stdio loop `agenttools mcp`
// runs: at the end of its input it gives the requests in flight a grace
// period to be answered, then cancels the rest; it answers input that
// would end the SDK's connection (see Serve) with JSON-RPC errors so
// that the session goes on.
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
// # Output schemas
//
// write, edit, delete and publish are listed with an outputSchema, the
// reference's result schema (toolspec.WriteOutputSchema, ...: draft-07,
// an anyOf of the success and the failure object) with "type":"object"
// added at its top, as MCP clients require. Each of their results also
// carries structuredContent: the same JSON object as the text content,
// on success and on failure; arguments the tool refused, whose text is
// not JSON, are there as the failure object ({"error": the text}), so
// that every answer conforms to the schema. The other tools have no
// output schema and no structuredContent.
//
// The server does not check arguments itself: they reach the tool, which
// answers invalid ones with the reference's model-facing message (as a
// failure). A call to a tool the server does not offer, and a request
// that is not well-formed, are protocol errors, as the SDK answers them.
// A cancelled call ends with the context's error (Serve does not answer
// a call the client cancelled).
//
// exec's running snapshots (at most one per 100 ms) go to the client as
// progress notifications when the call carries a progress token: each
// notification's message is the snapshot (the exec result so far, with a
// null exitCode, as JSON text) and its progress counts the snapshots.
//
// # Approval
//
// A call of a tool that Options.Approve names (`agenttools mcp --approve`)
// runs only once the client's user approves it, through MCP elicitation:
// after its arguments pass the schema (invalid ones are answered as
// usual, without a question), the server asks the client with the spec's
// question (toolspec.MsgApprovalQuestion: the tool and its arguments as
// JSON) and a form of one required boolean, approve. An answer accepted
// with approve true runs the call; a decline, a cancel or approve false
// answers the refusal (toolspec.MsgApprovalRefused, in the tool's failure
// form, IsError set) and changes nothing. A client that declared no
// elicitation capability (or only its URL mode) gets the refusal without
// being asked. The go-sdk carries the question as the call's input
// request (multi round-trip requests, protocol 2026-07-28) or, for a
// client of an earlier protocol, as an elicitation/create request the
// server sends while the call waits. An Options.Approver, when given,
// decides instead and the client is not asked.
//
// # Annotations
//
// Each tool is listed with a title (Tool.Title and annotations.title)
// and the hints spec/tools.cue declares (MCP's ToolAnnotations), each
// sent explicitly even where it is MCP's default: read, ls, find and grep
// are read-only (readOnlyHint true) and closed-world (openWorldHint
// false); write and delete are destructive and idempotent (a second call
// with the same arguments changes nothing more); edit is destructive and
// not idempotent; exec is destructive and open-world (a command can reach
// whatever the host or sandbox lets it). The go-sdk always sends
// readOnlyHint and idempotentHint, false when not declared (MCP's
// default). A read-only set lists only the read-only tools.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/adapt"
	"github.com/agenttools/agenttools/toolspec"
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

	// Grace is how long Serve lets the requests in flight run, to be
	// answered, after its input ends (GracePeriod when 0).
	Grace time.Duration
}

// New builds the tool set for ws. It fails when ws is nil or an option
// is out of range. Calls of the tools opts.Approve names are approved by
// the client's user through elicitation (see the package documentation),
// unless opts.Approver is set: then it decides instead.
func New(ws *vfs.Workspace, opts agenttools.Options) (*Tools, error) {
	if opts.Approver == nil {
		opts.Approver = elicitor{}
	}
	ex, err := adapt.Executor("mcp", ws, opts)
	if err != nil {
		return nil, err
	}
	s := &Tools{}
	s.set.Init(ex, adapt.Forms[Tool]{Plain: s.plain, Media: s.media, Streaming: s.streaming})
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

// definition is t as MCP lists it. Its title and annotations are the
// spec's (see the package documentation); the title goes both in the
// tool's title, which clients show first, and in annotations.title, which
// clients of the 2025-03-26 protocol read.
func (s *Tools) definition(t core.Tool) *sdk.Tool {
	d := &sdk.Tool{Name: t.Name, Description: t.Description, InputSchema: json.RawMessage(t.InputSchema), Annotations: annotations(t.Spec)}
	if d.Annotations != nil {
		d.Title = d.Annotations.Title
	}
	if t.OutputSchema != "" {
		d.OutputSchema = objectSchema(t.OutputSchema)
	}
	return d
}

// objectSchema is a tool's output schema (the reference's: $schema, then
// an anyOf of the success and the failure object) with "type":"object"
// after $schema, as MCP clients require an output schema to declare
// (the TypeScript SDK refuses a tool list without it); every branch is
// an object, so the union means the same.
func objectSchema(schema string) json.RawMessage {
	var union struct {
		Schema string          `json:"$schema"`
		AnyOf  json.RawMessage `json:"anyOf"`
	}
	if err := json.Unmarshal([]byte(schema), &union); err != nil {
		panic("mcp: the spec's output schema is not JSON: " + err.Error())
	}
	wrapped := struct {
		Schema string          `json:"$schema,omitempty"`
		Type   string          `json:"type"`
		AnyOf  json.RawMessage `json:"anyOf"`
	}{union.Schema, "object", union.AnyOf}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(wrapped); err != nil {
		panic("mcp: " + err.Error())
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// structured is what a tool with an output schema answers as the
// result's structuredContent: the JSON object of a json output, the one
// its text content holds; error text (arguments the tool refused) as the
// tool's failure result (toolspec.FailureResult), so that every answer
// conforms to the output schema. Nil for a tool without one.
func structured(t core.Tool, out toolspec.Output) any {
	if t.OutputSchema == "" {
		return nil
	}
	switch out.Kind {
	case toolspec.OutputJSON:
		return json.RawMessage(out.JSON)
	case toolspec.OutputErrorText:
		if r, ok := toolspec.FailureResult(t.Spec, out.Text); ok {
			return json.RawMessage(toolspec.ResultOutput(r).JSON)
		}
	}
	return nil
}

// plain answers text or json.
func (s *Tools) plain(t core.Tool) Tool {
	return Tool{Definition: s.definition(t), Handler: func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return s.call(ctx, t, req)
	}}
}

// call runs the call req of t. A call that needs approval and has no
// answer from the client yet ends in an elicitation (see approval.go).
func (s *Tools) call(ctx context.Context, t core.Tool, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	ex := s.set.Executor()
	if ex.NeedsApproval(t.Name) {
		ctx = approvalContext(ctx, req)
	}
	out, err := ex.Call(ctx, t.Name, arguments(req))
	if q, ok := errors.AsType[*elicitation](err); ok {
		return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{approvalRequest: q.params}}, nil
	}
	if err != nil {
		return nil, err
	}
	res := Result(out)
	res.StructuredContent = structured(t, out)
	return res, nil
}

// media can also answer an image or PDF, as an ImageContent or an
// embedded resource: Result does both.
func (s *Tools) media(t core.Tool) Tool { return s.plain(t) }

// streaming sends exec's running snapshots as progress notifications
// when the client asked for progress.
func (s *Tools) streaming(t core.Tool) Tool {
	return Tool{Definition: s.definition(t), Handler: func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		if token := progressToken(req); token != nil && req.Session != nil {
			sent := 0
			ctx = core.WithSnapshots(ctx, func(o toolspec.Output) {
				sent++
				_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
					ProgressToken: token,
					Progress:      float64(sent),
					Message:       o.AsText(),
				})
			})
		}
		return s.call(ctx, t, req)
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
func Result(out toolspec.Output) *sdk.CallToolResult {
	res := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: out.AsText()}}, IsError: out.IsError()}
	if out.HasMedia() {
		if out.Media.IsImage() {
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

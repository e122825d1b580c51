package eino

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"

	"github.com/agenttools/agenttools/toolspec"
)

// mediaStash holds read's images and PDFs, by tool call ID, from the
// ToolsNode's run of read to the next chat model call, where a hook
// attaches them. read is a plain tool.InvokableTool because adk (v0.7.36)
// reports and wraps only those (see EnhancedRead); a plain tool's result
// is a string, so its media travels beside it.
type mediaStash struct {
	// on is set once a hook exists: without one nothing would ever take
	// what is kept.
	on   atomic.Bool
	mu   sync.Mutex
	byID map[string]toolspec.Output
}

func (m *mediaStash) keep(callID string, out toolspec.Output) {
	if callID == "" || !m.on.Load() {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byID == nil {
		m.byID = map[string]toolspec.Output{}
	}
	m.byID[callID] = out
}

// attach replaces each tool message in msgs that answers a kept call with
// a copy whose UserInputMultiContent is its Content as a text part then
// the media part, and whose Content is empty: the message a ToolsNode
// builds for an enhanced tool. What is attached is forgotten.
func (m *mediaStash) attach(msgs []*schema.Message) []*schema.Message {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.byID) == 0 {
		return msgs
	}
	for i, msg := range msgs {
		if msg == nil || msg.Role != schema.Tool || len(msg.UserInputMultiContent) > 0 {
			continue
		}
		out, ok := m.byID[msg.ToolCallID]
		if !ok {
			continue
		}
		delete(m.byID, msg.ToolCallID)
		parts, err := Result(out).ToMessageInputParts()
		if err != nil {
			continue
		}
		// The message's own text wins: a tool middleware may have changed it.
		parts[0].Text = msg.Content
		withMedia := *msg
		withMedia.Content = ""
		withMedia.UserInputMultiContent = parts
		msgs[i] = &withMedia
	}
	return msgs
}

// Middleware returns an adk.AgentMiddleware for an adk.ChatModelAgent
// (ChatModelAgentConfig.Middlewares) whose BeforeChatModel gives read's
// image or PDF to the model: the tool message of a read that answered
// one becomes, in the agent's history, the text part then an image part
// (image/*) or a file part (a PDF), in base64 with the media type, and an
// empty Content, as a ToolsNode builds for an enhanced tool. adk's event
// for the call, and any ToolCallMiddlewares, see read's text only.
//
// Without it, or with TextRead, the model receives the text part only.
// Media waits for the next model call, by tool call ID: the IDs must be
// unique among the runs that share these Tools (providers' IDs are); a
// run that ends between a read and its next model call leaves its media
// held until the Tools are dropped, and a run resumed from a checkpoint
// does not re-attach media of reads made before the interrupt.
func (s *Tools) Middleware() adk.AgentMiddleware {
	s.stash.on.Store(true)
	return adk.AgentMiddleware{BeforeChatModel: func(_ context.Context, st *adk.ChatModelAgentState) error {
		st.Messages = s.stash.attach(st.Messages)
		return nil
	}}
}

// MediaRewriter returns, for any other graph, what Middleware does for
// adk: a function that replaces, in the messages it is given, the tool
// message of each read that answered an image or PDF with one carrying
// the media part, and returns them (the same slice). For a react agent,
// put it in react.AgentConfig.MessageRewriter, which keeps the rewritten
// history; a function that sees each tool message once, before the chat
// model, fits, since what is attached is forgotten.
func (s *Tools) MediaRewriter() func(context.Context, []*schema.Message) []*schema.Message {
	s.stash.on.Store(true)
	return func(_ context.Context, msgs []*schema.Message) []*schema.Message { return s.stash.attach(msgs) }
}

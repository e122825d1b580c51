// Package openai gives the workspace tools to programs written directly
// on the official OpenAI Go SDK, github.com/openai/openai-go/v3, with no
// framework: the caller runs its own loop. Each tool is declared as a
// function tool of the Chat Completions API (Chat) and of the Responses
// API (Responses), with the tool's exact name, description and JSON
// Schema; the set executes the model's function calls and answers them in
// the SDK's own types.
package openai

import (
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/adapt"
)

// Tool is one workspace tool as the OpenAI APIs declare it.
type Tool struct {
	tool core.Tool
}

// Name is what the model calls the tool (with the options' prefix).
func (t Tool) Name() string { return t.tool.Name }

// Chat is the tool's Chat Completions declaration, a function tool.
func (t Tool) Chat() openai.ChatCompletionToolUnionParam {
	return openai.ChatCompletionToolUnionParam{}
}

// Responses is the tool's Responses API declaration, a function tool.
func (t Tool) Responses() responses.ToolUnionParam {
	return responses.ToolUnionParam{}
}

// Tools is the tool set over one workspace.
type Tools struct {
	set adapt.Set[Tool]
}

// Option changes how New builds the tool set.
type Option func(*Tools)

// New builds the tool set for ws. It fails when ws is nil or an option
// is out of range.
func New(ws *vfs.Workspace, opts agenttools.Options, options ...Option) (*Tools, error) {
	ex, err := adapt.Executor("openai", ws, opts)
	if err != nil {
		return nil, err
	}
	s := &Tools{}
	for _, o := range options {
		o(s)
	}
	s.set.Init(ex, adapt.Forms[Tool]{Plain: s.tool, Media: s.tool, Streaming: s.tool})
	return s, nil
}

func (s *Tools) tool(t core.Tool) Tool { return Tool{tool: t} }

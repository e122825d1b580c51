// Package anthropic gives the workspace tools to programs written directly
// on the official Anthropic Go SDK, github.com/anthropics/anthropic-sdk-go/v2,
// with no framework: the caller runs its own loop, or the SDK's beta tool
// runner runs it. Each tool is declared as a client tool with its exact
// name, description and JSON Schema; the set executes the model's tool_use
// blocks and answers them with tool_result blocks.
package anthropic

import (
	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/adapt"
)

// Tool is one workspace tool as the Messages API declares it.
type Tool struct {
	tool core.Tool
}

// Name is what the model calls the tool (with the options' prefix).
func (t Tool) Name() string { return t.tool.Name }

// Param is the tool's declaration for MessageNewParams.Tools.
func (t Tool) Param() anthropic.ToolUnionParam {
	return anthropic.ToolUnionParam{}
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
	ex, err := adapt.Executor("anthropic", ws, opts)
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

// Package agenttools gives agents built on Go frameworks one standard,
// exactly specified set of workspace tools: read, ls, find, grep, write,
// edit, delete and exec, the Go counterpart of the tools of the npm
// package @cloudflare/computer.
//
// The tools run over a workspace (package core/vfs) whose stores keep it
// in one SQLite file with core/vfs/sqlitefs (the embedded database that is
// the default workspace of cmd/agenttools), in memory with memfs, or in a
// confined host directory with hostfs. Adapters translate the tools for a
// framework; adapters/raw is the framework-free one, and the reference
// every other adapter is measured against:
//
//	ws := vfs.New(memfs.New())
//	_ = ws.WriteFile(ctx, "/workspace/a.txt", []byte("hello\n"), vfs.WriteOptions{CreateParents: true})
//	tools, err := raw.New(ws, agenttools.Options{})
//	defs := tools.Definitions() // name, description, JSON Schema
//	out, err := tools.Execute(ctx, "read", []byte(`{"path":"/workspace/a.txt"}`))
//
// The tool set offers read, ls, find, grep, write, edit and delete, and
// exec when Options.Backends holds a backend (package core/execbackend: the
// host backend runs bash in a host directory; the mirror backend runs it
// in a host copy of a workspace that has none). adapters/langchaingo,
// adapters/genkit and adapters/eino give the same tools in those
// frameworks' forms, and adapters/mcp serves them over the Model Context
// Protocol (`agenttools mcp`), all from this one Options type. Every text
// a model can see is declared once in spec/tools.cue and generated into
// package toolspec.
package agenttools

import (
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/toolspec"
)

// Options configure a tool set; every adapter takes this one type. See
// core.Options.
type Options = core.Options

// The option groups of Options.
type (
	ReadOptions    = core.ReadOptions
	LineTruncation = core.LineTruncation
	WriteOptions   = core.WriteOptions
	EditOptions    = core.EditOptions
	// ExecBackends picks the exec backends offered, in order.
	ExecBackends      = core.ExecBackends
	ExecBackendOption = core.ExecBackendOption
	ExecOutputOptions = core.ExecOutputOptions
	ShellOptions      = core.ShellOptions
)

// Approval of calls (Options.Approve, Options.Approver); see core.Approver.
type (
	ApproveList     = core.ApproveList
	Approver        = core.Approver
	ApproverFunc    = core.ApproverFunc
	ApprovalRequest = core.ApprovalRequest
)

// ApproveMutating, in Options.Approve, names every tool that changes the
// workspace.
const ApproveMutating = core.ApproveMutating

// Output is what the model receives from one tool call, as every adapter
// gets it from the core executor; see toolspec.Output.
type Output = toolspec.Output

// The parts of an Output.
type (
	OutputKind = toolspec.OutputKind
	Media      = toolspec.Media
)

// The kinds of Output, as the reference names them.
const (
	OutputText      = toolspec.OutputText
	OutputJSON      = toolspec.OutputJSON
	OutputErrorText = toolspec.OutputErrorText
	OutputContent   = toolspec.OutputContent
)

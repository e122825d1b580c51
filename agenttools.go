// Package agenttools gives agents built on Go frameworks one standard,
// exactly specified set of workspace tools: read, ls, find, grep, write,
// edit, delete and exec, the Go counterpart of the tools of the npm
// package @cloudflare/computer.
//
// The tools run over a workspace (package core/vfs: in memory with memfs,
// a confined host directory with hostfs). Each framework has an adapter
// under adapters/; adapters/raw is the framework-free one:
//
//	ws := vfs.New(memfs.New())
//	tools, err := raw.New(ws, agenttools.Options{})
//	defs := tools.Definitions()                      // name, description, JSON Schema
//	out, err := tools.Execute(ctx, "read", []byte(`{"path":"/workspace/a.txt"}`))
//
// Every text a model can see is declared once in spec/tools.cue and
// generated into package gen.
package agenttools

import "github.com/agenttools/agenttools/core"

// Options configure a tool set; every adapter takes this one type. See
// core.Options.
type Options = core.Options

// The option groups of Options.
type (
	ReadOptions    = core.ReadOptions
	LineTruncation = core.LineTruncation
	WriteOptions   = core.WriteOptions
	EditOptions    = core.EditOptions
)

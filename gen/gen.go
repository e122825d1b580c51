// Package gen is the old name of package toolspec. It keeps the names
// programs used most: the result type Output with its kinds and Media,
// the tool names, WorkspaceRoot, OutputDir, QuoteJSON and FormatSize.
// Everything else the old package held (descriptions, schemas, messages,
// argument and result structs) is in toolspec under the same names.
//
// Deprecated: use github.com/agenttools/agenttools/toolspec; this
// package gains nothing new.
package gen

import "github.com/agenttools/agenttools/toolspec"

// Deprecated aliases of package toolspec.
type (
	Output           = toolspec.Output
	OutputKind       = toolspec.OutputKind
	Media            = toolspec.Media
	UnknownToolError = toolspec.UnknownToolError
)

// Deprecated aliases of package toolspec.
const (
	OutputText      = toolspec.OutputText
	OutputJSON      = toolspec.OutputJSON
	OutputErrorText = toolspec.OutputErrorText
	OutputContent   = toolspec.OutputContent

	WorkspaceRoot = toolspec.WorkspaceRoot
	OutputDir     = toolspec.OutputDir

	ToolRead   = toolspec.ToolRead
	ToolLs     = toolspec.ToolLs
	ToolFind   = toolspec.ToolFind
	ToolGrep   = toolspec.ToolGrep
	ToolWrite  = toolspec.ToolWrite
	ToolEdit   = toolspec.ToolEdit
	ToolDelete = toolspec.ToolDelete
	ToolExec   = toolspec.ToolExec
)

// ToolNames is toolspec.ToolNames.
//
// Deprecated: use toolspec.ToolNames.
var ToolNames = toolspec.ToolNames

// QuoteJSON is toolspec.QuoteJSON.
//
// Deprecated: use toolspec.QuoteJSON.
func QuoteJSON(s string) string { return toolspec.QuoteJSON(s) }

// FormatSize is toolspec.FormatSize.
//
// Deprecated: use toolspec.FormatSize.
func FormatSize(n int64) string { return toolspec.FormatSize(n) }

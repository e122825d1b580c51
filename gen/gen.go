// Package gen is the old name of package toolspec, kept so that code
// written against it still builds.
//
// Deprecated: use github.com/agenttools/agenttools/toolspec. This
// package holds aliases of the names programs used most (the result
// type, the tool names, the workspace root); it gains nothing new.
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

/*
Package toolspec is the tool set's model surface: tool names,
descriptions, input schemas, parameter tables, argument structs, limits,
result shapes and every message a model can see, with the result type
Output that every adapter translates for its framework.

What spec/tools.cue decides is generated into the files ending in
_gen.go; change the spec and run go generate ./... . The other files are
written by hand: the types the generated tables are made of (Output,
Param, ToolInfo, ...) and the helpers the generated messages call
(QuoteJSON, FormatSize). docs/ARCHITECTURE.md says which kind of change
goes where.

Surface is what an overlay (Overlay) can change of the tool set at run
time: which tools are offered, descriptions, parameter descriptions and
default limits. Ours is the spec's; core.Options.Surface takes another.

Package core implements Handler. toolspec imports only the standard
library and internal/placeholder (the placeholder syntax it shares with
the generator). It was called gen; that package remains as deprecated
aliases.
*/
package toolspec

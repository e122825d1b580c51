// Package spec embeds spec/tools.cue, the single source of truth for the
// tool set. Only the generator (internal/toolgen, cmd/toolgen) reads it;
// at run time the tools use package toolspec, generated from it.
package spec

import _ "embed"

// Source is the text of spec/tools.cue.
//
//go:embed tools.cue
var Source []byte

// Filename is where Source lives, relative to the module root; error
// messages name it.
const Filename = "spec/tools.cue"

// Package spec embeds spec/tools.cue, the single source of truth for the
// tool set, and spec/overlay.cue, the schema of a user's overlay. Only the
// generator (internal/toolgen, cmd/toolgen) reads them; at run time the
// tools use package toolspec, generated from tools.cue.
package spec

import _ "embed"

// Source is the text of spec/tools.cue.
//
//go:embed tools.cue
var Source []byte

// Filename is where Source lives, relative to the module root; error
// messages name it.
const Filename = "spec/tools.cue"

// OverlaySource is the text of spec/overlay.cue: #Overlay, the schema an
// overlay file is unified with. It names the spec's tools, so it is
// compiled in the scope of Source.
//
//go:embed overlay.cue
var OverlaySource []byte

// OverlayFilename is where OverlaySource lives, relative to the module
// root.
const OverlayFilename = "spec/overlay.cue"

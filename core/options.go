package core

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/publish"

	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

// Options configure a tool set. They are named as the reference's
// createAITools options, so a case's toolOptions decode into them
// directly. Every adapter takes this one type; a zero value means the
// reference's defaults (the toolspec.*Default limits).
type Options struct {
	// Surface is what the model sees of the tools that an overlay can
	// change (toolspec.Overlay, applied with toolspec.Surface.With): which
	// tools are offered, their descriptions, parameter descriptions and the
	// defaults of the limit options below (read.maxLines, ..., exec's
	// output, publish's expiry). A limit option set here still wins over
	// the surface's default, and New checks it as ever. Nil is
	// toolspec.Ours(), the spec's: the reference's texts and defaults.
	Surface *toolspec.Surface `json:"-"`

	// Prefix goes before the name of every tool of the set, so that two
	// sets can be offered side by side (a framework's registry holds one
	// tool per name): with "ws_" the model calls ws_read, ws_write, ...,
	// Call and Tool take those names, and every text that names another
	// tool (exec's description, write's and edit's messages) names it so.
	// It is empty (the reference's names) or starts with a letter or
	// underscore, holds only ASCII letters, digits, '_' and '-', and is
	// short enough that every name has at most 64 bytes (57 for the spec's
	// tools): names every model provider accepts. New fails on any other
	// (see CheckPrefix). Ours; the reference has none.
	Prefix string `json:"-"`
	// Readonly offers read, ls, find and grep only.
	Readonly bool `json:"readonly,omitempty"`
	// Root confines the tools to a workspace directory, as the reference's
	// root option: relative paths resolve under it, and a path outside it,
	// or through a symbolic link below it, is refused.
	Root string `json:"root,omitempty"`
	// Read configures read.
	Read ReadOptions `json:"read,omitzero"`
	// Write configures write.
	Write WriteOptions `json:"write,omitzero"`
	// Edit configures edit.
	Edit EditOptions `json:"edit,omitzero"`

	// Backends are what the exec tool runs commands on (execbackend.Host,
	// execbackend.Scripted, ...): the reference's Workspace backends. Without
	// any, the tool set has no exec tool.
	Backends []execbackend.Backend `json:"-"`
	// Exec picks the backends exec offers, in order, with guidance for
	// the model about each (the reference's exec option). Nil offers every
	// backend; an empty list offers none (no exec tool).
	Exec ExecBackends `json:"exec,omitempty"`
	// ExecOutput sets how much of each stream the model sees.
	ExecOutput ExecOutputOptions `json:"execOutput,omitzero"`
	// Shell is the reference's deprecated form of Exec and ExecOutput.
	Shell *ShellOptions `json:"shell,omitempty"`
	// ExecTimeout kills a command after this many milliseconds; 0 (the
	// default, as in the reference) never does. At most MaxExecTimeout.
	ExecTimeout int64 `json:"execTimeout,omitempty"`
	// Publisher is where the publish tool hands the files the model
	// publishes (the reference's Workspace assets): publish.Scripted,
	// package local's or package s3's. Without one the set has no
	// publish tool.
	Publisher publish.Publisher `json:"-"`
	// Assets set to false withholds the publish tool even when there is a
	// Publisher, as the reference's assets option does; nil or true
	// offers it.
	Assets *bool `json:"assets,omitempty"`
	// Clock times exec's running snapshots (one per 100 ms at most);
	// time.Now when nil.
	Clock func() time.Time `json:"-"`

	// Approve names the tools whose calls wait for a human's approval:
	// spec names (read, write, ..., without Prefix) or ApproveMutating for
	// every tool that changes the workspace. New fails on any other name;
	// a name the set does not offer (exec without backends) is allowed.
	// See Executor.Call for how a call is approved. Ours (deviation
	// approval), named as the reference's approve option of its
	// TanStack AI tools.
	Approve ApproveList `json:"approve,omitempty"`
	// Approver decides the calls Approve names when the framework gave no
	// decision (WithApproval). Without one such calls are refused.
	Approver Approver `json:"-"`
}

// ReadOptions configure the read tool. Zero fields take the defaults.
type ReadOptions struct {
	// MaxLines caps the lines one read returns (toolspec.ReadMaxLinesDefault).
	MaxLines int64 `json:"maxLines,omitempty"`
	// MaxBytes caps the UTF-8 bytes of text one read returns
	// (toolspec.ReadMaxBytesDefault).
	MaxBytes int64 `json:"maxBytes,omitempty"`
	// IncludeLineNumbers prefixes each line with its number and a tab.
	IncludeLineNumbers bool `json:"includeLineNumbers,omitempty"`
	// LineTruncation shortens long lines before the byte cap applies.
	LineTruncation *LineTruncation `json:"lineTruncation,omitempty"`
	// MaxModelBytes caps an image or PDF sent inline, in bytes
	// (toolspec.ReadMaxModelBytesDefault).
	MaxModelBytes int64 `json:"maxModelBytes,omitempty"`
	// MediaSniffBytes is how many leading bytes classify a file whose
	// extension says nothing (toolspec.ReadMediaSniffBytesDefault).
	MediaSniffBytes int64 `json:"mediaSniffBytes,omitempty"`
}

// LineTruncation shortens each line to Bytes UTF-8 bytes or Chars
// characters (set exactly one), adding "... (truncated)".
type LineTruncation struct {
	Bytes int64 `json:"bytes,omitempty"`
	Chars int64 `json:"chars,omitempty"`
}

// WriteOptions configure the write tool.
type WriteOptions struct {
	// MaxBytes caps the content of one write (toolspec.WriteMaxBytesDefault).
	MaxBytes int64 `json:"maxBytes,omitempty"`
}

// EditOptions configure the edit tool.
type EditOptions struct {
	// MaxBytes caps the size of a file edit changes (toolspec.EditMaxBytesDefault).
	MaxBytes int64 `json:"maxBytes,omitempty"`
	// MaxDiffLines is how many replaced lines still get a diff.
	MaxDiffLines int64 `json:"maxDiffLines,omitempty"`
	// MaxDiffBytes caps the diff and the patch shown.
	MaxDiffBytes int64 `json:"maxDiffBytes,omitempty"`
}

// settings are Options with the defaults filled in and checked.
type settings struct {
	surface            *toolspec.Surface
	prefix             toolspec.ToolPrefix
	readonly           bool
	root               string
	maxLines           int64
	maxBytes           int64
	includeLineNumbers bool
	truncBytes         int64
	truncChars         int64
	maxModelBytes      int64
	mediaSniffBytes    int64
	writeMaxBytes      int64
	editMaxBytes       int64
	editMaxDiffLines   int64
	editMaxDiffBytes   int64
	// publishExpiresAfter is a link's lifetime when the call sets none, in
	// milliseconds.
	publishExpiresAfter int64
}

func or(v, def int64) int64 {
	if v == 0 {
		return def
	}
	return v
}

// surface is o.Surface, or the spec's.
func (o Options) surface() *toolspec.Surface {
	if o.Surface == nil {
		return toolspec.Ours()
	}
	return o.Surface
}

func (o Options) settings() (settings, error) {
	surf := o.surface()
	s := settings{
		surface:             surf,
		readonly:            o.Readonly,
		maxLines:            or(o.Read.MaxLines, surf.Limit(toolspec.ToolRead, "maxLines")),
		maxBytes:            or(o.Read.MaxBytes, surf.Limit(toolspec.ToolRead, "maxBytes")),
		includeLineNumbers:  o.Read.IncludeLineNumbers,
		maxModelBytes:       or(o.Read.MaxModelBytes, surf.Limit(toolspec.ToolRead, "maxModelBytes")),
		mediaSniffBytes:     or(o.Read.MediaSniffBytes, surf.Limit(toolspec.ToolRead, "mediaSniffBytes")),
		writeMaxBytes:       or(o.Write.MaxBytes, surf.Limit(toolspec.ToolWrite, "maxBytes")),
		editMaxBytes:        or(o.Edit.MaxBytes, surf.Limit(toolspec.ToolEdit, "maxBytes")),
		editMaxDiffLines:    or(o.Edit.MaxDiffLines, surf.Limit(toolspec.ToolEdit, "maxDiffLines")),
		editMaxDiffBytes:    or(o.Edit.MaxDiffBytes, surf.Limit(toolspec.ToolEdit, "maxDiffBytes")),
		publishExpiresAfter: surf.Limit(toolspec.ToolPublish, "expiresAfter"),
	}
	const maxSafe = 1<<53 - 1
	for name, v := range map[string]int64{
		"read.maxLines": s.maxLines, "read.maxBytes": s.maxBytes,
		"read.maxModelBytes": s.maxModelBytes, "read.mediaSniffBytes": s.mediaSniffBytes,
		"write.maxBytes": s.writeMaxBytes, "edit.maxBytes": s.editMaxBytes,
		"edit.maxDiffLines": s.editMaxDiffLines, "edit.maxDiffBytes": s.editMaxDiffBytes,
	} {
		if v < 1 || v >= maxSafe {
			return settings{}, fmt.Errorf("core: option %s must be a positive integer below 2^53-1, got %d", name, v)
		}
	}
	if t := o.Read.LineTruncation; t != nil {
		switch {
		case (t.Bytes != 0) == (t.Chars != 0):
			return settings{}, errors.New("core: option read.lineTruncation takes exactly one of bytes and chars")
		case t.Bytes < 0 || t.Chars < 0:
			return settings{}, errors.New("core: option read.lineTruncation must be a positive integer")
		}
		s.truncBytes, s.truncChars = t.Bytes, t.Chars
	}
	if o.Root != "" {
		s.root = vfs.Clean("/" + o.Root)
	}
	if err := CheckPrefix(o.Prefix); err != nil {
		return settings{}, err
	}
	s.prefix = toolspec.ToolPrefix(o.Prefix)
	return s, nil
}

// maxToolNameBytes is the longest tool name the model providers accept:
// OpenAI, Anthropic and Gemini take 64 bytes at most.
const maxToolNameBytes = 64

// maxPrefixBytes is the longest Options.Prefix: with it the spec's
// longest tool name has maxToolNameBytes.
var maxPrefixBytes = maxToolNameBytes - len(slices.MaxFunc(toolspec.ToolNames, func(a, b string) int { return len(a) - len(b) }))

// prefixRE is what a prefix may hold: a name made of it and a tool's name
// matches what OpenAI and Anthropic accept (^[a-zA-Z0-9_-]{1,64}$) and
// starts as Gemini wants (a letter or an underscore).
var prefixRE = regexp.MustCompile(`^(?:[A-Za-z_][A-Za-z0-9_-]*)?$`)

// CheckPrefix reports whether prefix can be an Options.Prefix: it fails
// when prefix does not start with an ASCII letter or '_', holds anything
// but ASCII letters, digits, '_' and '-', or makes a tool name longer
// than 64 bytes. The empty prefix is valid.
func CheckPrefix(prefix string) error {
	switch {
	case !prefixRE.MatchString(prefix):
		return fmt.Errorf("core: option prefix %q must start with an ASCII letter or '_' and hold only ASCII letters, digits, '_' and '-'", prefix)
	case len(prefix) > maxPrefixBytes:
		return fmt.Errorf("core: option prefix %q is %d bytes long; tool names would pass the %d bytes model providers accept (at most %d)", prefix, len(prefix), maxToolNameBytes, maxPrefixBytes)
	}
	return nil
}

// Package exec is the old name of package execbackend, kept so that code
// written against it still builds. The new name no longer shadows os/exec.
//
// Deprecated: use github.com/agenttools/agenttools/core/execbackend.
// This package holds aliases of its names; it gains nothing new.
package exec

import (
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs"
)

// Deprecated aliases of package execbackend.
type (
	Backend       = execbackend.Backend
	Confinement   = execbackend.Confinement
	Event         = execbackend.Event
	EventKind     = execbackend.EventKind
	Host          = execbackend.Host
	HostOptions   = execbackend.HostOptions
	Info          = execbackend.Info
	Limits        = execbackend.Limits
	Mirror        = execbackend.Mirror
	MirrorInfo    = execbackend.MirrorInfo
	MirrorOptions = execbackend.MirrorOptions
	Request       = execbackend.Request
	Run           = execbackend.Run
	Script        = execbackend.Script
	ScriptEvent   = execbackend.ScriptEvent
	Scripted      = execbackend.Scripted
	Scripts       = execbackend.Scripts
	SyncStats     = execbackend.SyncStats
	Tail          = execbackend.Tail
	Window        = execbackend.Window
)

// Deprecated aliases of package execbackend.
const (
	Stdout        = execbackend.Stdout
	Stderr        = execbackend.Stderr
	Exit          = execbackend.Exit
	DefaultLinger = execbackend.DefaultLinger
	MaxMergeBytes = execbackend.MaxMergeBytes
	RunEnv        = execbackend.RunEnv
)

// Deprecated aliases of package execbackend. BaseEnv is a copy taken at
// start: assigning it changes nothing; change execbackend.BaseEnv.
// ErrMirrorInUse is the same error value.
var (
	BaseEnv        = execbackend.BaseEnv
	ErrMirrorInUse = execbackend.ErrMirrorInUse
)

// NewHost is execbackend.NewHost.
//
// Deprecated: use execbackend.NewHost.
func NewHost(ws *vfs.Workspace, opts HostOptions) (*Host, error) {
	return execbackend.NewHost(ws, opts)
}

// NewMirror is execbackend.NewMirror.
//
// Deprecated: use execbackend.NewMirror.
func NewMirror(ws *vfs.Workspace, opts MirrorOptions) (*Mirror, error) {
	return execbackend.NewMirror(ws, opts)
}

// NewScripted is execbackend.NewScripted.
//
// Deprecated: use execbackend.NewScripted.
func NewScripted(info Info, q *Scripts) *Scripted { return execbackend.NewScripted(info, q) }

// NewScripts is execbackend.NewScripts.
//
// Deprecated: use execbackend.NewScripts.
func NewScripts(byCommand map[string]Script) *Scripts { return execbackend.NewScripts(byCommand) }

// NewWindow is execbackend.NewWindow.
//
// Deprecated: use execbackend.NewWindow.
func NewWindow(l Limits) *Window { return execbackend.NewWindow(l) }

// Mirrors is execbackend.Mirrors.
//
// Deprecated: use execbackend.Mirrors.
func Mirrors(root string) ([]MirrorInfo, error) { return execbackend.Mirrors(root) }

// MirrorCache is execbackend.MirrorCache.
//
// Deprecated: use execbackend.MirrorCache.
func MirrorCache() (string, error) { return execbackend.MirrorCache() }

// RemoveMirror is execbackend.RemoveMirror.
//
// Deprecated: use execbackend.RemoveMirror.
func RemoveMirror(dir string) error { return execbackend.RemoveMirror(dir) }

// Package adapt holds what every framework adapter does the same way:
// the core executor behind a tool set, and the set's tools in the
// framework's form, in the reference's order and by name. Each adapter's
// Tools type embeds a Set.
package adapt

import (
	"errors"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

// Executor builds the core executor of a tool set over ws. framework
// names the adapter in its errors. It fails when ws is nil or an option
// is out of range.
func Executor(framework string, ws *vfs.Workspace, opts core.Options) (*core.Executor, error) {
	if ws == nil {
		return nil, errors.New(framework + ": no workspace")
	}
	return core.New(ws, opts)
}

// Set is the tools a core executor offers, each in a framework's form T.
type Set[T any] struct {
	ex     *core.Executor
	all    []T
	byName map[string]T // by the name the model calls
	bySpec map[string]T // by the spec's name
}

// Forms are the ways an adapter makes its framework's tool T of a core
// tool. Which one a tool takes is the spec's to say (toolspec.ToolInfo):
// Media for a tool that can answer an image or PDF, Streaming for one
// that reports running snapshots, Plain for the others.
type Forms[T any] struct {
	Plain     func(core.Tool) T // a tool that answers text or json
	Media     func(core.Tool) T // one that can answer an image or PDF too
	Streaming func(core.Tool) T // one that reports running snapshots
}

// Make makes t in the form the spec calls for.
func (f Forms[T]) Make(t core.Tool) T {
	info, _ := toolspec.Info(t.Spec)
	switch {
	case info.Media:
		return f.Media(t)
	case info.Streams:
		return f.Streaming(t)
	}
	return f.Plain(t)
}

// Init fills the set with every tool ex offers, each made by forms, in
// order. A form may call Executor.
func (s *Set[T]) Init(ex *core.Executor, forms Forms[T]) {
	s.ex = ex
	s.byName, s.bySpec = map[string]T{}, map[string]T{}
	for _, t := range ex.Tools() {
		ft := forms.Make(t)
		s.all = append(s.all, ft)
		s.byName[t.Name] = ft
		s.bySpec[t.Spec] = ft
	}
}

// All returns the tools the options offer, in the reference's order.
func (s *Set[T]) All() []T { return append([]T(nil), s.all...) }

// Named returns the offered tool the model calls name (with the set's
// prefix), and false when the options leave it out.
func (s *Set[T]) Named(name string) (T, bool) {
	t, ok := s.byName[name]
	return t, ok
}

// Spec returns the offered tool the spec calls tool (toolspec.ToolRead,
// ...), whatever the set's prefix, and false when the options leave it
// out.
func (s *Set[T]) Spec(tool string) (T, bool) {
	t, ok := s.bySpec[tool]
	return t, ok
}

// Executor is the core executor behind the tools.
func (s *Set[T]) Executor() *core.Executor { return s.ex }

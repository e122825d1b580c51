package paritytest

import (
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/publish"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/internal/replay"
)

// CallCase is one archive of testdata/calls: the workspace it starts
// from, the tool-set options, and calls in order, each with the exact
// model output it must give.
//
//	-- options.json --          tool-set options (core.Options as JSON)
//	-- /workspace/a.txt --      a file and its content
//	-- base64 /workspace/p.png --  a file given in base64
//	-- mkdir /workspace/d --    a directory
//	-- symlink /workspace/l --  a symbolic link; the content is its target
//	-- script COMMAND --        what exec of COMMAND prints (the oracle's script format)
//	-- publisher --             a scripted publisher, as the oracle's case key assets: {"baseUrl", "fail"}
//	-- call NAME --             "TOOL ARGS_JSON" on one line
//	-- want NAME --             the model output, as raw.ModelOutput writes it
//
// exec runs on one scripted backend, "shell", described as the oracle
// describes it by default.
type CallCase struct {
	Options core.Options
	Setup   []func(t *testing.T, ws *vfs.Workspace)
	Scripts map[string]execbackend.Script
	// Publisher, when set, gives the set a fresh publish.Scripted at
	// every Open.
	Publisher *replay.AssetsSpec
	Calls     []NamedCall
}

// Open builds the case's workspace (in memory, on the oracle's fixed
// clock) and its tool-set options, with the scripted exec backend.
func (c CallCase) Open(t *testing.T) (*vfs.Workspace, core.Options) {
	t.Helper()
	ws := vfs.New(memfs.New(memfs.WithClock(func() time.Time { return time.UnixMilli(replay.FixedClock) })))
	for _, setup := range c.Setup {
		setup(t, ws)
	}
	opts := c.Options
	opts.Backends = []execbackend.Backend{execbackend.NewScripted(execbackend.Info{ID: "shell", Description: "fast shell"}, execbackend.NewScripts(c.Scripts))}
	if c.Publisher != nil {
		opts.Publisher = &publish.Scripted{BaseURL: c.Publisher.BaseURL, Fail: c.Publisher.Fail}
	}
	return ws, opts
}

// NamedCall is one call of a call case.
type NamedCall struct {
	Name string
	Tool string
	Args string
}

// ParseCallCase reads the call case a (see CallCase); it fails t on a
// section it does not know.
func ParseCallCase(t *testing.T, a *goldentest.Archive) CallCase {
	t.Helper()
	var c CallCase
	for _, f := range a.Archive.Files {
		name, data := f.Name, string(f.Data)
		kind, rest, _ := strings.Cut(name, " ")
		switch {
		case name == "options.json":
			if err := json.Unmarshal(f.Data, &c.Options); err != nil {
				t.Fatalf("%s: options.json: %v", a.Path, err)
			}
		case strings.HasPrefix(name, "/"):
			c.Setup = append(c.Setup, func(t *testing.T, ws *vfs.Workspace) { write(t, ws, name, []byte(data)) })
		case kind == "base64":
			b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(data))
			if err != nil {
				t.Fatalf("%s: %s: %v", a.Path, name, err)
			}
			c.Setup = append(c.Setup, func(t *testing.T, ws *vfs.Workspace) { write(t, ws, rest, b) })
		case kind == "mkdir":
			c.Setup = append(c.Setup, func(t *testing.T, ws *vfs.Workspace) {
				if err := ws.Mkdir(t.Context(), rest, vfs.MkdirOptions{Recursive: true}); err != nil {
					t.Fatal(err)
				}
			})
		case kind == "symlink":
			c.Setup = append(c.Setup, func(t *testing.T, ws *vfs.Workspace) {
				if err := ws.Mkdir(t.Context(), filepath.Dir(rest), vfs.MkdirOptions{Recursive: true}); err != nil {
					t.Fatal(err)
				}
				if err := ws.Symlink(t.Context(), strings.TrimSuffix(data, "\n"), rest); err != nil {
					t.Fatal(err)
				}
			})
		case kind == "script":
			script, err := replay.ParseScript(f.Data)
			if err != nil {
				t.Fatalf("%s: %s: %v", a.Path, name, err)
			}
			if c.Scripts == nil {
				c.Scripts = map[string]execbackend.Script{}
			}
			c.Scripts[rest] = script
		case name == "publisher":
			c.Publisher = new(replay.AssetsSpec)
			if err := json.Unmarshal(f.Data, c.Publisher); err != nil {
				t.Fatalf("%s: publisher: %v", a.Path, err)
			}
		case kind == "call":
			tool, args, _ := strings.Cut(strings.TrimSuffix(data, "\n"), " ")
			c.Calls = append(c.Calls, NamedCall{Name: rest, Tool: tool, Args: args})
		case kind == "want":
		default:
			t.Fatalf("%s: unknown section %q", a.Path, name)
		}
	}
	return c
}

// write writes a file of a case's workspace, with its parents.
func write(t *testing.T, ws *vfs.Workspace, p string, data []byte) {
	t.Helper()
	if err := ws.WriteFile(t.Context(), p, data, vfs.WriteOptions{CreateParents: true}); err != nil {
		t.Fatal(err)
	}
}

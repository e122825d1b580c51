package core_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/publish"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/toolspec"
)

// The defaults of the limit options come from Options.Surface: write's
// cap, exec's output window (its description and the schema's tools
// alike) and publish's expiry when the call sets none; an explicit option
// still wins over the surface's default. Executor.Surface is the surface
// given, or Ours.
func TestSurfaceLimits(t *testing.T) {
	surface, err := toolspec.Ours().With(toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{
		"write":   {Limits: map[string]int64{"maxBytes": 4}},
		"exec":    {Limits: map[string]int64{"maxLines": 7, "maxBytes": 1024}},
		"publish": {Limits: map[string]int64{"expiresAfter": 60000}, Params: map[string]string{"expiresAfterMs": "Link lifetime in milliseconds. Defaults to one minute."}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	shell := execbackend.NewScripted(execbackend.Info{ID: "shell"}, execbackend.NewScripts(map[string]execbackend.Script{
		"seq": {Stdout: []byte(strings.Repeat("x\n", 20))},
	}))
	backends := []toolspec.ExecBackend{{ID: "shell"}}
	for _, tc := range []struct {
		name              string
		opts              core.Options
		writeMax, execMax int64
		wantExpiry        time.Duration
	}{
		{"surface's defaults", core.Options{}, 4, 7, time.Minute},
		{"explicit options", core.Options{Write: core.WriteOptions{MaxBytes: 10}, ExecOutput: core.ExecOutputOptions{MaxLines: 9}}, 10, 9, time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pub := &publish.Scripted{}
			opts := tc.opts
			opts.Surface, opts.Backends, opts.Publisher = surface, []execbackend.Backend{shell}, pub
			ex := newExec(t, opts, map[string]string{"/workspace/a.txt": "a"})
			if ex.Surface() != surface {
				t.Error("Executor.Surface is not Options.Surface")
			}
			exec, _ := ex.Tool("exec")
			if want := toolspec.ExecDescription("", backends, tc.execMax, 1024); exec.Description != want {
				t.Errorf("exec's description:\n%s\nwant\n%s", exec.Description, want)
			}
			if pt, _ := ex.Tool("publish"); !strings.Contains(pt.InputSchema, "Defaults to one minute.") || strings.Contains(pt.InputSchema, "one hour") {
				t.Errorf("publish's input schema does not state the surface's default expiry: %s", pt.InputSchema)
			}
			out, err := ex.Call(t.Context(), "write", []byte(`{"path":"/workspace/b.txt","content":"12345678901"}`))
			if err != nil || !strings.Contains(string(out.JSON), toolspec.MsgWriteContentTooLarge("", 11, tc.writeMax)) {
				t.Errorf("write of 11 bytes: %s, %v; want refused over %d bytes", out.JSON, err, tc.writeMax)
			}
			out, err = ex.Call(t.Context(), "exec", []byte(`{"command":"seq"}`))
			if err != nil || strings.Count(string(out.JSON), `x\n`) != int(tc.execMax) {
				t.Errorf("exec of 20 lines: %s, %v; want the last %d", out.JSON, err, tc.execMax)
			}
			if _, err := ex.Call(t.Context(), "publish", []byte(`{"path":"/workspace/a.txt"}`)); err != nil {
				t.Fatal(err)
			}
			if got := pub.Shares()[0].Opts; got.ExpiresAfter != tc.wantExpiry || got.ExpiresAfterMs != tc.wantExpiry.Milliseconds() {
				t.Errorf("publish without expiresAfterMs: %v (%d ms), want %v", got.ExpiresAfter, got.ExpiresAfterMs, tc.wantExpiry)
			}
		})
	}
	if ex := newExec(t, core.Options{}, nil); ex.Surface() != toolspec.Ours() {
		t.Error("without Options.Surface, Executor.Surface is not Ours")
	}
}

// A tool the surface does not offer is not in the set, and calls of it
// are unknown; an explicit option out of range is refused as ever, the
// surface notwithstanding.
func TestSurfaceOffered(t *testing.T) {
	surface, err := toolspec.Ours().With(toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{
		"grep": {Offered: ptr(false)},
		"read": {Limits: map[string]int64{"maxLines": 500}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	ex := newExec(t, core.Options{Surface: surface}, nil)
	var names []string
	for _, tool := range ex.Tools() {
		names = append(names, tool.Name)
	}
	if got := strings.Join(names, " "); got != "read ls find write edit delete" {
		t.Errorf("tools %q, want all but grep (and exec, publish: no backend, no publisher)", got)
	}
	if _, err := ex.Call(t.Context(), "grep", []byte(`{"query":"a"}`)); err == nil {
		t.Error("a call of grep, not offered, ran")
	}
	if _, err := core.New(vfs.New(memfs.New()), core.Options{Surface: surface, Read: core.ReadOptions{MaxLines: -1}}); err == nil {
		t.Error("Read.MaxLines -1 was accepted with a surface")
	}
}

// exec's description names read, write, edit and grep ("Prefer the
// dedicated read, write, and edit tools ..."), and an overlay cannot
// replace it yet: New refuses a surface that withholds one of them while
// the set offers exec, and takes it once exec is withheld too, or when
// the set has no exec (no backends). With a prefix the tools are still
// found by the set's names.
func TestSurfaceNamedTools(t *testing.T) {
	shell := execbackend.NewScripted(execbackend.Info{ID: "shell"}, execbackend.NewScripts(nil))
	for _, withheld := range []string{"read", "write", "edit", "grep"} {
		surface, err := toolspec.Ours().With(toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{withheld: {Offered: ptr(false)}}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = core.New(vfs.New(memfs.New()), core.Options{Surface: surface, Backends: []execbackend.Backend{shell}, Prefix: "ws_"})
		want := "core: exec's description names the " + withheld + " tool, which Options.Surface withholds; the description cannot be replaced yet: withhold exec too (toolspec.ToolOverlay.Offered), or offer " + withheld
		if err == nil || err.Error() != want {
			t.Errorf("%s withheld, exec offered: %v, want %q", withheld, err, want)
		}
		if _, err := core.New(vfs.New(memfs.New()), core.Options{Surface: surface}); err != nil {
			t.Errorf("%s withheld, no exec: %v", withheld, err)
		}
		both, err := surface.With(toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{"exec": {Offered: ptr(false)}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := core.New(vfs.New(memfs.New()), core.Options{Surface: both, Backends: []execbackend.Backend{shell}}); err != nil {
			t.Errorf("%s and exec withheld: %v", withheld, err)
		}
	}
	if _, err := core.New(vfs.New(memfs.New()), core.Options{Backends: []execbackend.Backend{shell}, Prefix: "ws_"}); err != nil {
		t.Errorf("without a surface, with a prefix: %v", err)
	}
	if got := toolspec.Ours().Names("exec"); !slices.Equal(got, []string{"read", "write", "edit", "grep"}) {
		t.Errorf("Names(exec) = %q", got)
	}
	if got := toolspec.Ours().Names("read"); got != nil {
		t.Errorf("Names(read) = %q", got)
	}
}

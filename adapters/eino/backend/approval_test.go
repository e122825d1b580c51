package backend_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk/filesystem"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/testws"
	"github.com/agenttools/agenttools/toolspec"
)

// TestAgentApproval: with Options.Approve "mutating", Eino's write_file,
// edit_file and execute over our Backend, called by a model in an adk
// agent under a Runner, run only when Options.Approver approves them;
// refused, or with no Approver, the run ends with EPERM and the refusal's
// text and the workspace is unchanged. The Approver sees the spec tool and
// Eino's request.
func TestAgentApproval(t *testing.T) {
	calls := []struct {
		tool, args string
		spec       string
		changed    func(ws *vfs.Workspace) bool
	}{
		{"write_file", `{"file_path":"/workspace/new.txt","content":"new\n"}`, toolspec.ToolWrite, func(ws *vfs.Workspace) bool {
			_, err := ws.Lstat(context.Background(), "/workspace/new.txt")
			return err == nil
		}},
		{"edit_file", `{"file_path":"/workspace/notes.txt","old_string":"alpha","new_string":"ALPHA"}`, toolspec.ToolEdit, func(ws *vfs.Workspace) bool {
			return readAll(t, ws, "/workspace/notes.txt") != "alpha\n"
		}},
		{"execute", `{"command":"echo made > made.txt"}`, toolspec.ToolExec, func(ws *vfs.Workspace) bool {
			_, err := ws.Lstat(context.Background(), "/workspace/made.txt")
			return err == nil
		}},
	}
	for _, c := range calls {
		for _, decision := range []string{"approved", "refused", "no approver"} {
			t.Run(c.tool+"/"+decision, func(t *testing.T) {
				ctx := t.Context()
				ws := testws.Memory.New(t)
				if err := ws.WriteFile(ctx, "/workspace/notes.txt", []byte("alpha\n"), vfs.WriteOptions{CreateParents: true}); err != nil {
					t.Fatal(err)
				}
				exec, err := execbackend.NewMirror(ws, execbackend.MirrorOptions{Mirror: filepath.Join(t.TempDir(), "mirror")})
				if err != nil {
					t.Fatal(err)
				}
				var asked []agenttools.ApprovalRequest
				opts := agenttools.Options{Backends: []execbackend.Backend{exec}, Approve: agenttools.ApproveList{agenttools.ApproveMutating}}
				if decision != "no approver" {
					opts.Approver = agenttools.ApproverFunc(func(_ context.Context, req agenttools.ApprovalRequest) (bool, error) {
						asked = append(asked, req)
						return decision == "approved", nil
					})
				}
				runErr := runOneCall(t, mustNew(t, ws, opts), call("c1", c.tool, c.args))
				if decision != "no approver" {
					if len(asked) != 1 || asked[0].Spec != c.spec || !json.Valid(asked[0].Arguments) {
						t.Fatalf("the Approver was asked %+v, want one %s request", asked, c.spec)
					}
				}
				if decision == "approved" {
					if runErr != nil || !c.changed(ws) {
						t.Errorf("approved: the run ended with %v, changed %v", runErr, c.changed(ws))
					}
					return
				}
				if !errors.Is(runErr, fs.ErrPermission) || !strings.Contains(runErr.Error(), toolspec.MsgApprovalRefused(c.spec)) {
					t.Errorf("the run ended with %v, want the refusal", runErr)
				}
				if c.changed(ws) {
					t.Error("a refused call changed the workspace")
				}
			})
		}
	}
}

// TestAgentWithheldTools: when an overlay withholds our write or edit
// (and with it the approval Options.Approve puts on it), Eino's
// write_file or edit_file over our Backend, called by a model in an adk
// agent under a Runner, ends the run with EPERM and
// toolspec.MsgEinoNotOffered (named with the set's prefix), asks no
// Approver and changes nothing; the tool the overlay keeps still runs,
// after its approval.
func TestAgentWithheldTools(t *testing.T) {
	for _, withheld := range []string{toolspec.ToolWrite, toolspec.ToolEdit} {
		t.Run(withheld, func(t *testing.T) {
			surface, err := toolspec.Ours().With(toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{withheld: {Offered: new(false)}}})
			if err != nil {
				t.Fatal(err)
			}
			ws := testws.Memory.New(t)
			if err := ws.WriteFile(t.Context(), "/workspace/notes.txt", []byte("alpha\n"), vfs.WriteOptions{CreateParents: true}); err != nil {
				t.Fatal(err)
			}
			var asked []string
			opts := agenttools.Options{Surface: surface, Prefix: "ws_", Approve: agenttools.ApproveList{agenttools.ApproveMutating},
				Approver: agenttools.ApproverFunc(func(_ context.Context, req agenttools.ApprovalRequest) (bool, error) {
					asked = append(asked, req.Spec)
					return true, nil
				})}
			b := mustNew(t, ws, opts)
			writeCall := call("c1", "write_file", `{"file_path":"/workspace/new.txt","content":"new\n"}`)
			editCall := call("c2", "edit_file", `{"file_path":"/workspace/notes.txt","old_string":"alpha","new_string":"ALPHA"}`)
			refused, kept, keptSpec := writeCall, editCall, toolspec.ToolEdit
			if withheld == toolspec.ToolEdit {
				refused, kept, keptSpec = editCall, writeCall, toolspec.ToolWrite
			}
			runErr := runOneCall(t, b, refused)
			path := "/workspace/new.txt"
			if withheld == toolspec.ToolEdit {
				path = "/workspace/notes.txt"
			}
			if want := toolspec.MsgEinoNotOffered("ws_"+withheld, path); !errors.Is(runErr, fs.ErrPermission) || !strings.Contains(runErr.Error(), want) {
				t.Errorf("the run ended with %v, want EPERM %q", runErr, want)
			}
			if len(asked) != 0 {
				t.Errorf("the Approver was asked about %v", asked)
			}
			if _, err := ws.Lstat(t.Context(), "/workspace/new.txt"); err == nil || readAll(t, ws, "/workspace/notes.txt") != "alpha\n" {
				t.Error("the withheld tool changed the workspace")
			}
			if err := runOneCall(t, b, kept); err != nil || len(asked) != 1 || asked[0] != keptSpec {
				t.Errorf("the kept tool: the run ended with %v; the Approver was asked about %v, want %s", err, asked, keptSpec)
			}
		})
	}
}

// TestAgentPrefix: with Options.Prefix (which names our tools, not
// Eino's) and an exec backend, New still gives a ShellBackend, so the
// middleware offers execute, which a model in an adk agent under a
// Runner calls; the approval of our exec (named with the prefix) still
// covers it.
func TestAgentPrefix(t *testing.T) {
	ws := testws.Memory.New(t)
	if err := ws.Mkdir(t.Context(), "/workspace", vfs.MkdirOptions{Recursive: true}); err != nil {
		t.Fatal(err)
	}
	exec, err := execbackend.NewMirror(ws, execbackend.MirrorOptions{Mirror: filepath.Join(t.TempDir(), "mirror")})
	if err != nil {
		t.Fatal(err)
	}
	var asked []agenttools.ApprovalRequest
	b := mustNew(t, ws, agenttools.Options{Prefix: "ws_", Backends: []execbackend.Backend{exec}, Approve: agenttools.ApproveList{toolspec.ToolExec},
		Approver: agenttools.ApproverFunc(func(_ context.Context, req agenttools.ApprovalRequest) (bool, error) {
			asked = append(asked, req)
			return true, nil
		})})
	if _, ok := b.(interface {
		Execute(context.Context, *filesystem.ExecuteRequest) (*filesystem.ExecuteResponse, error)
	}); !ok {
		t.Fatalf("New with a prefix and an exec backend gave a %T, not a ShellBackend", b)
	}
	if err := runOneCall(t, b, call("c1", "execute", `{"command":"echo made > made.txt"}`)); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, ws, "/workspace/made.txt"); got != "made\n" {
		t.Errorf("made.txt holds %q", got)
	}
	if len(asked) != 1 || asked[0].Tool != "ws_exec" || asked[0].Spec != toolspec.ToolExec {
		t.Errorf("the Approver was asked %+v, want one ws_exec request", asked)
	}
}

package backend_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

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

package backend

import (
	"context"
	"errors"
	"strings"

	"github.com/cloudwego/eino/adk/filesystem"

	"github.com/agenttools/agenttools/toolspec"
)

// Execute runs req.Command as our exec tool runs it (core.Executor.RunExec)
// on the first backend the options offer, in that backend's default
// directory, and returns its output (stdout, then stderr on a line of its
// own), its exit code, and whether either stream was cut to the exec
// output window; a cut stream ends in our note saying where its full
// output was saved in the workspace. A timeout (Options.ExecTimeout)
// kills the command and adds our note to stderr. Errors: a command that
// could not start or whose output broke, with our exec tool's text; the
// context's error when it ends, after everything the command started was
// killed.
func (s *ShellBackend) Execute(ctx context.Context, req *filesystem.ExecuteRequest) (*filesystem.ExecuteResponse, error) {
	if err := s.ex.CheckApproval(ctx, toolspec.ToolExec, "", req); err != nil {
		return nil, err
	}
	o, err := s.ex.RunExec(ctx, toolspec.ExecArgs{Command: req.Command})
	if err != nil {
		return nil, err
	}
	if o.Error != "" {
		return nil, errors.New(o.Error)
	}
	out := o.Result.Stdout
	if o.Result.Stderr != "" {
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		out += o.Result.Stderr
	}
	code := int(*o.Result.ExitCode)
	return &filesystem.ExecuteResponse{Output: out, ExitCode: &code, Truncated: o.Cut}, nil
}

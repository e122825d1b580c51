package core

import (
	"testing"

	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

// TestSpillNamesParse: the names of earlier runs' output files and
// conflict directories, as the spec words them, give back their run's
// number, so a new run never takes one. A spec that words them otherwise
// fails here rather than silently reusing numbers.
func TestSpillNamesParse(t *testing.T) {
	run := toolspec.MsgExecRunName(17)
	if got := runNumber(run); got != "17" {
		t.Errorf("runNumber(%q) = %q, want 17", run, got)
	}
	if retry := toolspec.MsgExecMirrorConflictRetry(run, 2); runNumber(retry) != "17" {
		t.Errorf("runNumber(%q) = %q, want 17", retry, runNumber(retry))
	}
	for _, backend := range []string{"host", "my.backend", "a b/c", toolspec.MsgExecRunName(3)} {
		for _, stream := range []string{toolspec.MsgExecStreamStdout, toolspec.MsgExecStreamStderr} {
			name := toolspec.MsgExecSpillName(fileNamePart(backend), fileNamePart(run), stream)
			gotRun, gotStream, ok := spillParts(name)
			if !ok || gotRun != run || gotStream != stream {
				t.Errorf("spillParts(%q) = %q, %q, %v; want %q, %q", name, gotRun, gotStream, ok, run, stream)
			}
		}
	}
	for _, name := range []string{"notes.txt", "host.exec-1.stdout", "a.host.exec-1.stdout.log"} {
		if _, _, ok := spillParts(name); ok {
			t.Errorf("spillParts(%q): a name exec does not give is taken for one", name)
		}
	}
}

package core_test

import (
	"fmt"
	"strings"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/toolspec"
)

// Run-time overrides: an overlay applied to the spec's surface, handed to
// the tool set in Options.Surface (every adapter takes the same Options).
// A change the core could not honour is refused with every reason at once.
func ExampleOptions_surface() {
	surface, err := toolspec.Ours().With(toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{
		"grep": {Description: new("Search file contents; results give paths and line numbers.")},
		"read": {Limits: map[string]int64{"maxLines": 500}},
		"exec": {Offered: new(false)},
	}})
	if err != nil {
		panic(err)
	}
	ex, err := core.New(vfs.New(memfs.New()), core.Options{Surface: surface})
	if err != nil {
		panic(err)
	}
	for _, name := range []string{"read", "grep"} {
		tool, _ := ex.Tool(name)
		fmt.Println(name+":", tool.Description)
	}
	fmt.Println("read's default line cap:", ex.Surface().Limit(toolspec.ToolRead, "maxLines"))

	_, err = toolspec.Ours().With(toolspec.Overlay{Tools: map[string]toolspec.ToolOverlay{
		"read": {Params: map[string]string{"file": "The file."}, Limits: map[string]int64{"maxLines": 0}},
	}})
	for _, line := range strings.Split(err.Error(), "\n") {
		fmt.Println(line)
	}
	// Output:
	// read: Read a workspace file. Images and PDFs are passed to capable models. Text output is capped at 500 lines or 256KB and includes line and byte continuations when truncated.
	// grep: Search file contents; results give paths and line numbers.
	// read's default line cap: 500
	// overlay: tools.read.limits.maxLines: 0 is out of range: read.maxLines must be from 1 to 9007199254740990
	// overlay: tools.read.params.file: read has no parameter file (it takes path, offset, byteOffset, limit): core decodes the arguments by these names, so a parameter can be described differently but not renamed or added
}

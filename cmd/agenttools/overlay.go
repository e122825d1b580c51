package main

// This is the one file of the command that imports the generator's
// loader (and with it CUE): repo_test.go's TestImportBoundaries allows
// it here and nowhere else in a program that runs tools.

import (
	"flag"
	"fmt"

	"github.com/agenttools/agenttools/internal/toolgen"
	"github.com/agenttools/agenttools/toolspec"
)

// registerOverlay registers --overlay.
func registerOverlay(fl *flag.FlagSet, file *string) {
	fl.StringVar(file, "overlay", "", "change what the model sees: an overlay file (.cue, or .json with the same fields)\nthat changes tools' descriptions, parameter descriptions and default limits, or\nwithholds tools, as cmd/toolgen -overlay reads it")
}

// loadOverlay reads the --overlay file (none: nil, the spec's surface)
// and applies it to the spec's surface. Its errors (CUE's, and what
// toolspec.Surface.With refuses) name the file, line and column.
func loadOverlay(file string) (*toolspec.Surface, error) {
	if file == "" {
		return nil, nil
	}
	_, surface, err := toolgen.ReadOverlay(file)
	if err != nil {
		return nil, fmt.Errorf("--overlay: %w", err)
	}
	return surface, nil
}

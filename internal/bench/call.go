package bench

// One call timed in-process over a host directory mounted at /workspace
// (hostfs), the way `agenttools call --dir` runs it but without process
// start and database open: for grep on a real tree (scripts/rg.sh) and
// the scaling workloads (scripts/scale.sh).

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"runtime/pprof"
	"time"

	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core"
)

// CallOptions say how TimeCall runs.
type CallOptions struct {
	// Dir is the host directory mounted at /workspace.
	Dir string
	// Repeat timed iterations after Warmup untimed ones.
	Repeat, Warmup int
	// EditMaxBytes is the edit.maxBytes option (0: the default).
	EditMaxBytes int64
	// Restore, when not nil, runs before every iteration, untimed (the
	// command line copies a pristine file back for edit).
	Restore func() error
	// CPUProfile, when not nil, receives a CPU profile of the timed
	// iterations only.
	CPUProfile io.Writer
}

// CallResult is TimeCall's one JSON line.
type CallResult struct {
	Tool       string `json:"tool"`
	Args       string `json:"args"`
	Us         Stats  `json:"us"`
	ModelBytes int    `json:"modelBytes"`
	// PeakRSSMB is the process's peak resident set (0 where the system
	// does not say).
	PeakRSSMB int64 `json:"peakRssMB"`
	// Head is the start of the last model output (240 bytes and "…").
	Head string `json:"head"`
}

// TimeCall times the tool call with the argument text args (Executor.Call
// plus raw.ModelOutput) over opts.Dir. The error is a directory that
// cannot be mounted, a Restore that fails or an unknown tool.
func TimeCall(ctx context.Context, tool string, args []byte, opts CallOptions) (CallResult, error) {
	res := CallResult{Tool: tool, Args: string(args)}
	ws, closeWS, err := HostWorkspace(ctx, opts.Dir, time.Now)
	if err != nil {
		return res, err
	}
	defer closeWS()
	tools, err := raw.New(ws, core.Options{Edit: core.EditOptions{MaxBytes: opts.EditMaxBytes}})
	if err != nil {
		return res, err
	}
	ex := tools.Executor()
	var samples []float64
	var model []byte
	for it := range opts.Warmup + opts.Repeat {
		if opts.Restore != nil {
			if err := opts.Restore(); err != nil {
				return res, err
			}
		}
		if opts.CPUProfile != nil && it == opts.Warmup {
			if err := pprof.StartCPUProfile(opts.CPUProfile); err != nil {
				return res, err
			}
			defer pprof.StopCPUProfile()
		}
		t0 := time.Now()
		out, err := ex.Call(ctx, tool, args)
		if err != nil {
			return res, err
		}
		model = raw.ModelOutput(out)
		if it >= opts.Warmup {
			samples = append(samples, us(time.Since(t0)))
		}
	}
	if opts.CPUProfile != nil {
		pprof.StopCPUProfile()
	}
	res.Us, res.ModelBytes, res.PeakRSSMB = statsOf(samples), len(model), peakRSSMB()
	res.Head = string(model)
	if len(res.Head) > 240 {
		res.Head = res.Head[:240] + "…"
	}
	return res, nil
}

// CopyFile copies the host file src over dst.
func CopyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// MarshalLine is v as one JSON line (no trailing newline).
func MarshalLine(v any) []byte {
	line, _ := json.Marshal(v)
	return line
}

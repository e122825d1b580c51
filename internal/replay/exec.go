package replay

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"time"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/publish"
)

// defaultShell is what the harness gives a case that sets no exec
// options: one backend, shell, described as "fast shell".
const defaultShell = `{"backends":{"shell":{"description":"fast shell"}},"defaultBackend":"shell"}`

// ToolOptions builds a case's tool-set options as the harness does: its
// toolOptions, the default shell option unless it sets shell or exec
// (shell: null means none), its scripted backends (one, shell, by
// default, all drawing on the returned queue), the exec clock and, for a
// case with assets, a scripted publisher. Only ToolOptions, Backends,
// ExecScripts, ExecClock and Assets of c are read; an error is a
// toolOptions or script that does not decode.
func ToolOptions(c Case) (core.Options, *execbackend.Scripts, error) {
	fields := map[string]json.RawMessage{}
	if len(c.ToolOptions) > 0 && string(c.ToolOptions) != "null" {
		if err := json.Unmarshal(c.ToolOptions, &fields); err != nil {
			return core.Options{}, nil, err
		}
	}
	_, hasShell := fields["shell"]
	_, hasExec := fields["exec"]
	switch {
	case !hasShell && !hasExec:
		fields["shell"] = json.RawMessage(defaultShell)
	case string(fields["shell"]) == "null":
		delete(fields, "shell")
	}
	data, err := json.Marshal(fields)
	if err != nil {
		return core.Options{}, nil, err
	}
	var opts core.Options
	if err := json.Unmarshal(data, &opts); err != nil {
		return core.Options{}, nil, err
	}
	byCommand := map[string]execbackend.Script{}
	for command, raw := range c.ExecScripts {
		if byCommand[command], err = ParseScript(raw); err != nil {
			return core.Options{}, nil, err
		}
	}
	scripts := execbackend.NewScripts(byCommand)
	specs := c.Backends
	if specs == nil {
		specs = []BackendSpec{{ID: "shell"}}
	}
	for _, b := range specs {
		opts.Backends = append(opts.Backends, execbackend.NewScripted(execbackend.Info{ID: b.ID, Description: b.Description, Callable: b.Callable}, scripts))
	}
	opts.Clock = execClock(c.ExecClock)
	if c.Assets != nil {
		opts.Publisher = &publish.Scripted{BaseURL: c.Assets.BaseURL, Fail: c.Assets.Fail}
	}
	return opts, scripts, nil
}

// execClock is the harness's exec clock: by default one that moves 1000
// ms at every reading (so every chunk makes a running snapshot);
// "frozen", "real", or a number of ms per reading.
func execClock(raw json.RawMessage) func() time.Time {
	step := int64(1000)
	switch string(raw) {
	case `"frozen"`:
		return func() time.Time { return time.UnixMilli(0) }
	case `"real"`:
		return time.Now
	case "", "null":
	default:
		if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
			step = n
		}
	}
	t := int64(0)
	return func() time.Time {
		t += step
		return time.UnixMilli(t)
	}
}

// ParseScript reads a script in the oracle's case format ({stdout,
// stderr, events, chunkBytes, exitCode, result, error, streamError}).
func ParseScript(raw json.RawMessage) (execbackend.Script, error) {
	expanded, err := expandJSON(raw)
	if err != nil {
		return execbackend.Script{}, err
	}
	var s struct {
		Stdout      *string         `json:"stdout"`
		Stderr      *string         `json:"stderr"`
		ChunkBytes  int             `json:"chunkBytes"`
		ExitCode    int             `json:"exitCode"`
		Result      json.RawMessage `json:"result"`
		Error       string          `json:"error"`
		StreamError string          `json:"streamError"`
		Events      []struct {
			Stdout       *string `json:"stdout"`
			Stderr       *string `json:"stderr"`
			StdoutBase64 *string `json:"stdoutBase64"`
			StderrBase64 *string `json:"stderrBase64"`
		} `json:"events"`
	}
	if err := json.Unmarshal(expanded, &s); err != nil {
		return execbackend.Script{}, err
	}
	out := execbackend.Script{ChunkBytes: s.ChunkBytes, ExitCode: s.ExitCode, Result: s.Result, Error: s.Error, StreamError: s.StreamError}
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(expanded, &fields)
	if _, ok := fields["result"]; ok && out.Result == nil {
		out.Result = json.RawMessage("null")
	}
	if s.Stdout != nil {
		out.Stdout = []byte(*s.Stdout)
	}
	if s.Stderr != nil {
		out.Stderr = []byte(*s.Stderr)
	}
	if s.Events != nil {
		out.Events = []execbackend.ScriptEvent{}
		for _, e := range s.Events {
			add := func(text *string, b64 bool, stderr bool) error {
				if text == nil {
					return nil
				}
				data := []byte(*text)
				if b64 {
					var err error
					if data, err = base64.StdEncoding.DecodeString(*text); err != nil {
						return err
					}
				}
				out.Events = append(out.Events, execbackend.ScriptEvent{Stderr: stderr, Data: bytes.Clone(data)})
				return nil
			}
			for _, part := range []struct {
				text        *string
				b64, stderr bool
			}{{e.Stdout, false, false}, {e.Stderr, false, true}, {e.StdoutBase64, true, false}, {e.StderrBase64, true, true}} {
				if err := add(part.text, part.b64, part.stderr); err != nil {
					return execbackend.Script{}, err
				}
			}
		}
	}
	return out, nil
}

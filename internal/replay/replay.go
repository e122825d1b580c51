// Package replay runs the reference oracle's cases (../shared/oracle,
// cases/*.json) through our tools and records each case as the oracle's
// harness does, field for field, so that its score.py and compare.mjs
// compare the two directly. `agenttools replay` and the conformance test
// in golden/ both use it.
package replay

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/core/vfs/pgfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
	"github.com/agenttools/agenttools/toolspec"
)

// FixedClock is the oracle's mtime for every node, 2026-01-01T00:00:00Z
// in milliseconds.
const FixedClock = 1767225600000

// Case is one oracle case.
type Case struct {
	Name        string                     `json:"name"`
	Setup       []Op                       `json:"setup"`
	ToolOptions json.RawMessage            `json:"toolOptions"`
	Clock       *int64                     `json:"clock"`
	Backends    []BackendSpec              `json:"backends"`
	ExecScripts map[string]json.RawMessage `json:"execScripts"`
	ExecClock   json.RawMessage            `json:"execClock"`
	Calls       []Call                     `json:"calls"`
	After       []Probe                    `json:"after"`
	// Assets gives the tool set a scripted publisher (publish.Scripted),
	// as the harness's makeFakeAssets.
	Assets *AssetsSpec `json:"assets"`
	// WorkspaceOptions are the reference Workspace's options the case
	// sets; only sessionId means something here.
	WorkspaceOptions struct {
		SessionID string `json:"sessionId"`
	} `json:"workspaceOptions"`
}

// AssetsSpec is a case's scripted publisher: its base URL ("" for the
// oracle's https://assets.example/) and the error text of each path whose
// publishing fails.
type AssetsSpec struct {
	BaseURL string            `json:"baseUrl"`
	Fail    map[string]string `json:"fail"`
}

// BackendSpec is one of a case's scripted exec backends.
type BackendSpec struct {
	ID          string `json:"id"`
	Description string `json:"description"`
	Callable    bool   `json:"callable"`
}

// Op is one setup step.
type Op struct {
	Op        string          `json:"op"`
	Path      string          `json:"path"`
	Content   json.RawMessage `json:"content"`
	Encoding  string          `json:"encoding"`
	Mode      json.RawMessage `json:"mode"`
	Target    string          `json:"target"`
	Recursive bool            `json:"recursive"`
	Force     bool            `json:"force"`
}

// Call is one tool call of a case.
type Call struct {
	Tool     string          `json:"tool"`
	Args     json.RawMessage `json:"args"`
	ArgsText *string         `json:"argsText"`
	Raw      bool            `json:"raw"`
	Script   json.RawMessage `json:"script"`
	After    []Probe         `json:"after"`
}

// Probe looks at the workspace after a call.
type Probe struct {
	Op       string `json:"op"`
	Path     string `json:"path"`
	Encoding string `json:"encoding"`
}

// ParseCases reads a case file: a JSON array of cases, or {"cases": [...]}.
func ParseCases(data []byte) ([]Case, error) {
	var list []Case
	if err := json.Unmarshal(data, &list); err == nil {
		return list, nil
	}
	var wrapped struct {
		Cases []Case `json:"cases"`
	}
	if err := json.Unmarshal(data, &wrapped); err != nil {
		return nil, err
	}
	return wrapped.Cases, nil
}

// Record is one case's result, in the oracle's field order.
type Record struct {
	Case         string            `json:"case"`
	Versions     map[string]string `json:"versions"`
	Tools        []string          `json:"tools,omitempty"`
	Calls        []CallRecord      `json:"calls,omitempty"`
	After        *[]ProbeRecord    `json:"after,omitempty"`
	SetupError   *ErrorInfo        `json:"setupError,omitempty"`
	ToolSetError *ErrorInfo        `json:"toolSetError,omitempty"`
	HarnessError *ErrorInfo        `json:"harnessError,omitempty"`
}

// CallRecord is one call's result, in the oracle's field order.
type CallRecord struct {
	Tool              string             `json:"tool"`
	Args              json.RawMessage    `json:"args,omitempty"`
	ArgsText          *string            `json:"argsText,omitempty"`
	MissingTool       bool               `json:"missingTool,omitempty"`
	AvailableTools    []string           `json:"availableTools,omitempty"`
	Description       *string            `json:"description,omitempty"`
	DescriptionLength *int64             `json:"descriptionLength,omitempty"`
	InputSchema       json.RawMessage    `json:"inputSchema,omitempty"`
	HasToModelOutput  *bool              `json:"hasToModelOutput,omitempty"`
	InputError        *string            `json:"inputError,omitempty"`
	Output            json.RawMessage    `json:"output,omitempty"`
	Thrown            *ErrorInfo         `json:"thrown,omitempty"`
	Preliminary       *[]json.RawMessage `json:"preliminary,omitempty"`
	ModelOutput       json.RawMessage    `json:"modelOutput,omitempty"`
	After             *[]ProbeRecord     `json:"after,omitempty"`
}

// ProbeRecord is a probe's answer.
type ProbeRecord struct {
	Op     string          `json:"op"`
	Path   string          `json:"path"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *ErrorInfo      `json:"error,omitempty"`
}

// ErrorInfo describes a failure as the harness does.
type ErrorInfo struct {
	Name    string `json:"name"`
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
}

// Versions identifies what answered.
var Versions = map[string]string{"agenttools": "dev"}

// Workspace makes the workspace a case starts from.
type Workspace func(now func() time.Time) (*vfs.Workspace, func(), error)

// Memory is a fresh in-memory workspace: "/" only.
func Memory(now func() time.Time) (*vfs.Workspace, func(), error) {
	return vfs.New(memfs.New(memfs.WithClock(now))), func() {}, nil
}

// SQLite is a fresh workspace in a new SQLite database in a temporary
// directory, removed when the case is done: "/" only.
func SQLite(now func() time.Time) (*vfs.Workspace, func(), error) {
	dir, err := os.MkdirTemp("", "agenttools-replay-")
	if err != nil {
		return nil, nil, err
	}
	db, err := sqlitefs.Open(filepath.Join(dir, "case.db"), sqlitefs.WithClock(now))
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	done := func() {
		db.Close()
		os.RemoveAll(dir)
	}
	return emptied(db, done)
}

// Postgres makes each case's workspace in the PostgreSQL database of the
// URL db (pgfs): a new workspace of a name no other case uses
// ("replay-" and random hex; db's workspace parameter is not used),
// removed with everything in it when the case is done: "/" only.
func Postgres(db string) Workspace {
	return func(now func() time.Time) (*vfs.Workspace, func(), error) {
		ctx := context.Background()
		conn, _, err := pgfs.SplitURL(db)
		if err != nil {
			return nil, nil, err
		}
		u, err := url.Parse(conn)
		if err != nil {
			return nil, nil, err
		}
		var id [12]byte
		rand.Read(id[:])
		name := "replay-" + hex.EncodeToString(id[:])
		q := u.Query()
		q.Set("workspace", name)
		u.RawQuery = q.Encode()
		fs, err := pgfs.Open(ctx, u.String(), pgfs.WithClock(now))
		if err != nil {
			return nil, nil, err
		}
		done := func() {
			fs.Close()
			// A workspace left behind is only garbage, in a database
			// the caller chose for the replay.
			_ = pgfs.RemoveWorkspace(ctx, conn, name)
		}
		return emptied(fs, done)
	}
}

// emptied is the workspace over a new store s without its /workspace
// (the reference's workspace starts empty), done to release s; done is
// called when that fails.
func emptied(s vfs.Store, done func()) (*vfs.Workspace, func(), error) {
	ws := vfs.New(s)
	if err := ws.Remove(context.Background(), toolspec.WorkspaceRoot, vfs.RemoveOptions{}); err != nil {
		done()
		return nil, nil, err
	}
	return ws, done, nil
}

// Run runs one case on a fresh workspace from newWorkspace.
func Run(ctx context.Context, c Case, newWorkspace Workspace) Record {
	return RunWith(ctx, c, newWorkspace, nil)
}

// RunWith is Run with the tool set's surface (core.Options.Surface; nil:
// the spec's), which the case format has no field for.
func RunWith(ctx context.Context, c Case, newWorkspace Workspace, surface *toolspec.Surface) Record {
	rec := Record{Case: c.Name, Versions: Versions}
	clock := int64(FixedClock)
	if c.Clock != nil {
		clock = *c.Clock
	}
	ws, closeWS, err := newWorkspace(func() time.Time { return time.UnixMilli(clock) })
	if err != nil {
		rec.HarnessError = &ErrorInfo{Name: "Error", Message: err.Error()}
		return rec
	}
	defer closeWS()
	ws.SetSessionID(c.WorkspaceOptions.SessionID)
	for _, op := range c.Setup {
		if err := setup(ctx, ws, op); err != nil {
			rec.SetupError = errorInfo(err)
			return rec
		}
	}
	opts, scripts, err := ToolOptions(c)
	if err != nil {
		rec.ToolSetError = &ErrorInfo{Name: "TypeError", Message: err.Error()}
		return rec
	}
	opts.Surface = surface
	tools, err := raw.New(ws, opts)
	if err != nil {
		rec.ToolSetError = errorInfo(err)
		return rec
	}
	ex := tools.Executor()
	rec.Tools = []string{}
	for _, t := range ex.Tools() {
		rec.Tools = append(rec.Tools, t.Name)
	}
	rec.Calls = []CallRecord{}
	for _, call := range c.Calls {
		if len(call.Script) > 0 {
			script, err := ParseScript(call.Script)
			if err != nil {
				rec.HarnessError = errorInfo(err)
				return rec
			}
			scripts.Queue(script)
		}
		cr, err := runCall(ctx, ex, ws, call)
		scripts.Clear()
		if err != nil {
			rec.HarnessError = errorInfo(err)
			return rec
		}
		rec.Calls = append(rec.Calls, cr)
	}
	if c.After != nil {
		rec.After = probeAll(ctx, ws, c.After)
	}
	return rec
}

func runCall(ctx context.Context, ex *core.Executor, ws *vfs.Workspace, call Call) (CallRecord, error) {
	cr := CallRecord{Tool: call.Tool, Args: call.Args, ArgsText: call.ArgsText}
	tool, ok := ex.Tool(call.Tool)
	if !ok {
		cr.MissingTool = true
		for _, t := range ex.Tools() {
			cr.AvailableTools = append(cr.AvailableTools, t.Name)
		}
		return cr, nil
	}
	cr.Description = &tool.Description
	cr.DescriptionLength = new(vfs.UTF16Len(tool.Description))
	cr.InputSchema = json.RawMessage(tool.InputSchema)
	cr.HasToModelOutput = new(tool.Name == toolspec.ToolRead)

	args := []byte("{}")
	if len(call.Args) > 0 {
		expanded, err := expandJSON(call.Args)
		if err != nil {
			return cr, err
		}
		args = expanded
	}
	var out toolspec.Output
	var err error
	var result core.CallRecord
	ctx = core.WithCallRecord(ctx, &result)
	var snapshots []json.RawMessage
	ctx = core.WithSnapshots(ctx, func(o toolspec.Output) { snapshots = append(snapshots, raw.Value(o)) })
	switch {
	case call.Raw:
		out, err = ex.CallUnchecked(ctx, call.Tool, args)
	case call.ArgsText != nil:
		out, err = ex.Call(ctx, call.Tool, []byte(*call.ArgsText))
	default:
		out, err = ex.Call(ctx, call.Tool, args)
	}
	if err != nil {
		return cr, err
	}
	if !call.Raw && out.Kind == toolspec.OutputErrorText && strings.HasPrefix(out.Text, toolspec.MsgArgumentsInvalid(call.Tool, "")) {
		cr.InputError = &out.Text
		cr.ModelOutput = raw.ModelOutput(out)
		return cr, nil
	}
	if result.Thrown != nil {
		cr.Thrown = errorInfo(result.Thrown)
	} else {
		cr.Output = result.Output
	}
	if call.Tool == toolspec.ToolExec {
		if snapshots == nil {
			snapshots = []json.RawMessage{}
		}
		cr.Preliminary = &snapshots
	}
	cr.ModelOutput = raw.ModelOutput(out)
	if call.After != nil {
		cr.After = probeAll(ctx, ws, call.After)
	}
	return cr, nil
}

func errorInfo(err error) *ErrorInfo {
	info := &ErrorInfo{Name: "Error", Message: err.Error()}
	var e *errno.Error
	if errors.As(err, &e) {
		info.Name, info.Code = "WorkspaceFsError", string(e.Code)
	}
	return info
}

// ParseMode reads a setup op's mode: absent or null (nil), a number, or
// an octal string ("0o755" or "755").
func ParseMode(raw json.RawMessage) (*uint32, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var n uint32
	if err := json.Unmarshal(raw, &n); err == nil {
		return &n, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("bad mode %s", raw)
	}
	v, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimPrefix(s, "0o"), "0O"), 8, 32)
	if err != nil {
		return nil, fmt.Errorf("bad mode %q", s)
	}
	m := uint32(v)
	return &m, nil
}

func contentBytes(op Op) ([]byte, error) {
	text := ""
	if len(op.Content) > 0 {
		expanded, err := expandJSON(op.Content)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(expanded, &text); err != nil {
			return nil, fmt.Errorf("content of %s is not a string", op.Path)
		}
	}
	return DecodeContent(text, op.Encoding)
}

// DecodeContent is a write op's bytes: text as it is, or decoded when
// encoding is "base64" or "hex".
func DecodeContent(text, encoding string) ([]byte, error) {
	switch encoding {
	case "base64":
		return base64.StdEncoding.DecodeString(text)
	case "hex":
		return hex.DecodeString(text)
	}
	return []byte(text), nil
}

func parentOf(p string) string {
	return p[:strings.LastIndexByte(p, '/')]
}

func setup(ctx context.Context, ws *vfs.Workspace, op Op) error {
	var data []byte
	if op.Op == "write" {
		var err error
		if data, err = contentBytes(op); err != nil {
			return err
		}
	}
	return Setup(ctx, ws, op, data)
}

// Setup applies one setup op to ws: write (data, its parents made
// first), mkdir (with parents), symlink (its parents made first), chmod,
// rm. The error is the workspace's, a bad mode or an unknown op.
func Setup(ctx context.Context, ws *vfs.Workspace, op Op, data []byte) error {
	mode, err := ParseMode(op.Mode)
	if err != nil {
		return err
	}
	switch op.Op {
	case "write":
		if parent := parentOf(op.Path); parent != "" {
			if err := ws.Mkdir(ctx, parent, vfs.MkdirOptions{Recursive: true}); err != nil {
				return err
			}
		}
		return ws.WriteFile(ctx, op.Path, data, vfs.WriteOptions{Mode: mode})
	case "mkdir":
		return ws.Mkdir(ctx, op.Path, vfs.MkdirOptions{Recursive: true, Mode: mode})
	case "symlink":
		if parent := parentOf(op.Path); parent != "" {
			if err := ws.Mkdir(ctx, parent, vfs.MkdirOptions{Recursive: true}); err != nil {
				return err
			}
		}
		return ws.Symlink(ctx, op.Target, op.Path)
	case "chmod":
		if mode == nil {
			return fmt.Errorf("chmod %s: no mode", op.Path)
		}
		return ws.Chmod(ctx, op.Path, *mode)
	case "rm":
		return ws.Remove(ctx, op.Path, vfs.RemoveOptions{Recursive: op.Recursive, Force: op.Force})
	}
	return fmt.Errorf("unknown setup op %s", op.Op)
}

func probeAll(ctx context.Context, ws *vfs.Workspace, probes []Probe) *[]ProbeRecord {
	out := []ProbeRecord{}
	for _, p := range probes {
		out = append(out, probe(ctx, ws, p))
	}
	return &out
}

type statResult struct {
	Name           string `json:"name"`
	Mode           uint32 `json:"mode"`
	MTime          int64  `json:"mtime"`
	Size           int64  `json:"size"`
	IsFile         bool   `json:"isFile"`
	IsDirectory    bool   `json:"isDirectory"`
	IsSymbolicLink bool   `json:"isSymbolicLink"`
	ModeOctal      string `json:"modeOctal"`
}

type direntResult struct {
	Name           string `json:"name"`
	Size           int64  `json:"size"`
	IsFile         bool   `json:"isFile"`
	IsDirectory    bool   `json:"isDirectory"`
	IsSymbolicLink bool   `json:"isSymbolicLink"`
}

func probe(ctx context.Context, ws *vfs.Workspace, p Probe) ProbeRecord {
	rec := ProbeRecord{Op: p.Op, Path: p.Path}
	result, err := probeResult(ctx, ws, p)
	if err != nil {
		rec.Error = errorInfo(err)
		return rec
	}
	b, err := core.MarshalJSON(result)
	if err != nil {
		rec.Error = errorInfo(err)
		return rec
	}
	rec.Result = b
	return rec
}

func probeResult(ctx context.Context, ws *vfs.Workspace, p Probe) (any, error) {
	switch p.Op {
	case "stat", "lstat":
		stat := ws.Stat
		if p.Op == "lstat" {
			stat = ws.Lstat
		}
		info, err := stat(ctx, p.Path)
		if err != nil {
			return nil, err
		}
		return statResult{
			Name: info.Name, Mode: info.Mode, MTime: info.MTime, Size: info.Size,
			IsFile: info.Type == vfs.TypeFile, IsDirectory: info.Type == vfs.TypeDir, IsSymbolicLink: info.Type == vfs.TypeSymlink,
			ModeOctal: "0" + strconv.FormatUint(uint64(info.Mode&0o7777), 8),
		}, nil
	case "read":
		r, _, err := ws.Open(ctx, p.Path, 0)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		var buf bytes.Buffer
		if _, err := buf.ReadFrom(r); err != nil {
			return nil, err
		}
		data := buf.Bytes()
		switch p.Encoding {
		case "base64":
			return struct {
				Size   int    `json:"size"`
				Base64 string `json:"base64"`
			}{len(data), base64.StdEncoding.EncodeToString(data)}, nil
		case "summary":
			return struct {
				Size int    `json:"size"`
				Head string `json:"head"`
			}{len(data), core.DecodeText(data[:min(80, len(data))], false)}, nil
		}
		return struct {
			Size int    `json:"size"`
			Text string `json:"text"`
		}{len(data), core.DecodeText(data, false)}, nil
	case "readdir":
		entries, err := ws.ReadDir(ctx, p.Path, 0, -1)
		if err != nil {
			return nil, err
		}
		out := []direntResult{}
		for _, e := range entries {
			out = append(out, direntResult{e.Name, e.Size, e.Type == vfs.TypeFile, e.Type == vfs.TypeDir, e.Type == vfs.TypeSymlink})
		}
		return out, nil
	case "exists":
		_, err := ws.Lstat(ctx, p.Path)
		if errno.CodeOf(err) == errno.ENOENT {
			return false, nil
		}
		if err != nil {
			return nil, err
		}
		return true, nil
	}
	return nil, fmt.Errorf("unknown probe op %s", p.Op)
}

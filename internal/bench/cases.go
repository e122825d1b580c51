package bench

// The bench case file (the oracle's bench.json, documented in the header
// of the oracle's bench.mjs): the oracle case format plus repeat, warmup,
// label, follow, maxFollow, each, bytes, expect, the "tree" setup op and
// {"$gen":"iter"}. fsCalls (raw workspace.fs rows) are the reference's
// own and are skipped. JSON values whose key order reaches the tool
// (args) are kept in an ordered form, so the text we validate is the
// text the reference validates.

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/agenttools/agenttools/internal/replay"
)

// Case is one bench case: the oracle's case format (setup, toolOptions,
// clock, backends, execClock, calls) plus the case-level repeat and
// warmup defaults.
type Case struct {
	Name        string               `json:"name"`
	Setup       []Op                 `json:"setup"`
	ToolOptions json.RawMessage      `json:"toolOptions"`
	Clock       *int64               `json:"clock"`
	Backends    []replay.BackendSpec `json:"backends"`
	ExecClock   json.RawMessage      `json:"execClock"`
	Calls       []Call               `json:"calls"`
	Repeat      *int                 `json:"repeat"`
	Warmup      *int                 `json:"warmup"`
}

// Call is one row of a case: a tool call and how to time and check it
// (bench.mjs's header documents each key).
type Call struct {
	Tool      string          `json:"tool"`
	Label     string          `json:"label"`
	Args      json.RawMessage `json:"args"`
	Script    json.RawMessage `json:"script"`
	Repeat    *int            `json:"repeat"`
	Warmup    *int            `json:"warmup"`
	Follow    bool            `json:"follow"`
	MaxFollow int             `json:"maxFollow"`
	Each      []Op            `json:"each"`
	Bytes     json.RawMessage `json:"bytes"`
	Expect    json.RawMessage `json:"expect"`
}

// Op is a setup step: one of replay's (write, mkdir, symlink, chmod, rm;
// its fields are promoted, so the JSON is flat), or the bench's tree:
// count files under path, perDir per sub-directory.
type Op struct {
	replay.Op
	Count    int      `json:"count"`
	PerDir   int      `json:"perDir"`
	Dir      string   `json:"dir"`
	File     string   `json:"file"`
	Exts     []string `json:"exts"`
	Lines    *int     `json:"lines"`
	Template string   `json:"template"`
}

// LoadCases reads a case file: a JSON array of cases, or {"cases": [...]}.
func LoadCases(path string) ([]Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var list []Case
	if json.Unmarshal(data, &list) == nil {
		return list, nil
	}
	var wrapped struct {
		Cases []Case `json:"cases"`
	}
	if err := json.Unmarshal(data, &wrapped); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return wrapped.Cases, nil
}

// treeWrites turns a tree op into the write ops it stands for, as
// bench.mjs's treeOps does; content is returned already expanded.
func treeWrites(t Op, iter int) ([]Op, [][]byte, error) {
	exts := t.Exts
	if len(exts) == 0 {
		exts = []string{""}
	}
	fileTmpl, dirTmpl := t.File, t.Dir
	if fileTmpl == "" {
		fileTmpl = "f{i}{ext}"
	}
	if dirTmpl == "" {
		dirTmpl = "d{d}"
	}
	var fixed any
	if t.Lines == nil && len(t.Content) > 0 {
		var err error
		if fixed, err = replay.ParseOrdered(t.Content); err != nil {
			return nil, nil, err
		}
	}
	var ops []Op
	var contents [][]byte
	for i := range t.Count {
		d, j, dir := 0, i, t.Path
		if t.PerDir > 0 {
			d, j = i/t.PerDir, i%t.PerDir
			dir = t.Path + "/" + strings.ReplaceAll(dirTmpl, "{d}", strconv.Itoa(d))
		}
		name := strings.NewReplacer("{i}", strconv.Itoa(i), "{j}", strconv.Itoa(j), "{ext}", exts[i%len(exts)]).Replace(fileTmpl)
		var content string
		switch {
		case t.Lines != nil:
			tmpl := t.Template
			if tmpl == "" {
				tmpl = "line {n}"
			}
			content = replay.Lines(*t.Lines, i**t.Lines+1, strings.ReplaceAll(tmpl, "{i}", strconv.Itoa(i)), "\n", true)
		case fixed == nil:
		default:
			if s, ok := fixed.(string); ok {
				content = strings.ReplaceAll(s, "{i}", strconv.Itoa(i))
			} else {
				var err error
				if content, err = replay.ExpandString(fixed, iter); err != nil {
					return nil, nil, err
				}
			}
		}
		ops = append(ops, Op{Op: replay.Op{Op: "write", Path: dir + "/" + name, Mode: t.Mode}})
		contents = append(contents, []byte(content))
	}
	return ops, contents, nil
}

// summarize shortens a result for a row's "result" as bench.mjs's
// summarizeOutput does: strings over 100 UTF-16 units to their first 60
// and a count, arrays below the top or over 3 items to a count, objects
// deeper than two levels to "[object]".
func summarize(v any, depth int) any {
	switch x := v.(type) {
	case string:
		units := utf16.Encode([]rune(x))
		if len(units) > 100 {
			return string(utf16.Decode(units[:60])) + "...[" + strconv.Itoa(len(units)) + " chars]"
		}
		return x
	case []any:
		if depth > 0 || len(x) > 3 {
			return "[array(" + strconv.Itoa(len(x)) + ")]"
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = summarize(e, depth+1)
		}
		return out
	case replay.Object:
		if depth > 1 {
			return "[object]"
		}
		out := make(replay.Object, len(x))
		for i, m := range x {
			out[i] = replay.Member{Key: m.Key, Val: summarize(m.Val, depth+1)}
		}
		return out
	}
	return v
}

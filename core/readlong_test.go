package core_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/hostfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/core/vfs/sqlitefs"
	"github.com/agenttools/agenttools/toolspec"
)

// longLineFiles are the files TestReadLongLineReadsOnlyTheCap reads:
// each a short text prefix followed by NUL bytes up to its size, a
// sparse hole on a host. The name decides how read classifies it.
var longLineFiles = map[string]string{
	"big.txt":   "hello",   // text by extension: one line as long as the file
	"lines.txt": "a\nb\n",  // two short lines, then one as long as the file
	"big":       "hello",   // no extension: sniffed, binary (NUL bytes)
	"big.png":   "\x89PNG", // an image too large to attach: not read at all
}

// TestReadLongLineReadsOnlyTheCap: a line longer than the read cap is
// read up to the cap and a byte past it, not to its end, on every store;
// the store's reader fails the test once more than 4 MiB are read. On a
// host the line is 64 GiB (a sparse file).
func TestReadLongLineReadsOnlyTheCap(t *testing.T) {
	const (
		maxBytes = toolspec.ReadMaxBytesDefault
		// bound is the cap, the byte past it, and the chunk the last
		// of them arrived in.
		bound   = maxBytes + 1 + 64<<10
		readCap = 4 << 20
	)
	stores := []struct {
		name string
		size int64
		open func(t *testing.T, size int64) (vfs.Store, bool)
	}{
		{"memfs", 8 << 20, func(t *testing.T, size int64) (vfs.Store, bool) { return filled(t, memfs.New(), size), true }},
		{"sqlitefs", 8 << 20, func(t *testing.T, size int64) (vfs.Store, bool) {
			db, err := sqlitefs.Open(filepath.Join(t.TempDir(), "ws.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return filled(t, db, size), true
		}},
		{"hostfs", 64 << 30, func(t *testing.T, size int64) (vfs.Store, bool) {
			dir := t.TempDir()
			for name, prefix := range longLineFiles {
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, []byte(prefix), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Truncate(p, size); err != nil {
					t.Logf("no sparse %d-byte file here: %v", size, err)
					return nil, false
				}
			}
			host, err := hostfs.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { host.Close() })
			return host, true
		}},
	}
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			store, ok := st.open(t, st.size)
			if !ok {
				t.Skip("the host cannot hold the sparse file")
			}
			spy := &spyStore{Store: store, readCap: readCap}
			ws := vfs.New(memfs.New())
			if err := ws.Mount(t.Context(), "/workspace", spy, vfs.MountOptions{}); err != nil {
				t.Fatal(err)
			}
			ex, err := core.New(ws, core.Options{})
			if err != nil {
				t.Fatal(err)
			}
			tests := []struct {
				name string
				args string
				want toolspec.Output
				// most is the most bytes the read may take.
				most int64
			}{
				{"the first line is too long", readArgs("/workspace/big.txt", nil, nil),
					errText(toolspec.MsgReadLineTooLong(1, maxBytes)), bound},
				{"a continuation in the long line", readArgs("/workspace/big.txt", ptr(int64(2)), ptr(int64(1000))),
					errText(toolspec.MsgReadLineTooLong(2, maxBytes)), bound},
				{"the page ends before the long line", readArgs("/workspace/lines.txt", nil, nil),
					jsonOut(toolspec.ReadResult{Path: "/workspace/lines.txt", Content: "a\nb", StartLine: 1, EndLine: 2,
						Truncated: true, NextOffset: ptr(int64(3)), NextByteOffset: ptr(int64(4))}), bound},
				{"binary: the sniffed bytes only", readArgs("/workspace/big", nil, nil),
					jsonOut(toolspec.ReadMediaResult{Kind: toolspec.MsgReadKindBinary, Path: "/workspace/big", Name: "big",
						MediaType: toolspec.MsgReadMediaBinary, SizeBytes: st.size, Unsupported: true}),
					toolspec.ReadMediaSniffBytesDefault},
				{"an image too large to attach: nothing", readArgs("/workspace/big.png", nil, nil),
					errText(toolspec.MsgReadMediaTooLarge("/workspace/big.png", toolspec.MsgReadMediaPNG, st.size, toolspec.ReadMaxModelBytesDefault)), 0},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					spy.reset()
					checkOutput(t, call(t, ex, toolspec.ToolRead, tt.args), tt.want)
					if n := spy.bytesRead.Load(); n > tt.most {
						t.Errorf("read %d bytes of a %d-byte file; want at most %d", n, st.size, tt.most)
					}
				})
			}
		})
	}
}

// filled writes longLineFiles into store's directory "workspace", each
// size bytes long, and returns the directory as a store of its own.
func filled(t *testing.T, store vfs.Store, size int64) vfs.Store {
	t.Helper()
	ws := vfs.New(store)
	for name, prefix := range longLineFiles {
		data := make([]byte, size)
		copy(data, prefix)
		if err := ws.WriteFile(t.Context(), "/"+name, data, vfs.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return store
}

// TestReadCutLongLines: a line the lineTruncation option cuts is shown
// cut however long it is, and the lines after it follow with the right
// numbers and continuations, whether or not it ends in the chunk it
// starts in.
func TestReadCutLongLines(t *testing.T) {
	long := strings.Repeat("y", 200<<10)
	data := "short\n" + long + "\nafter\nend"
	path := "/workspace/cut.txt"
	tests := []struct {
		name  string
		trunc core.LineTruncation
		limit int64
		want  toolspec.Output
	}{
		{"bytes", core.LineTruncation{Bytes: 10}, 0, textOut("short\n" + toolspec.MsgReadLineTruncated(long[:10]) + "\nafter\nend")},
		{"chars", core.LineTruncation{Chars: 7}, 0, textOut("short\n" + toolspec.MsgReadLineTruncated(long[:7]) + "\nafter\nend")},
		{"bytes, the page ends at the cut line", core.LineTruncation{Bytes: 10}, 2, jsonOut(toolspec.ReadResult{Path: path,
			Content: "short\n" + toolspec.MsgReadLineTruncated(long[:10]), StartLine: 1, EndLine: 2, Truncated: true,
			NextOffset: ptr(int64(3)), NextByteOffset: ptr(int64(6 + len(long) + 1))})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := newExec(t, core.Options{Read: core.ReadOptions{LineTruncation: &tt.trunc}}, map[string]string{path: data})
			a := toolspec.ReadArgs{Path: path}
			if tt.limit > 0 {
				a.Limit = &tt.limit
			}
			args, _ := json.Marshal(a)
			checkOutput(t, call(t, ex, toolspec.ToolRead, string(args)), tt.want)
		})
	}
}

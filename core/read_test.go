package core_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	_ "github.com/agenttools/agenttools/internal/goldentest"
	"github.com/agenttools/agenttools/toolspec"
)

func readArgs(path string, offset, byteOffset *int64) string {
	a := toolspec.ReadArgs{Path: path, Offset: offset, ByteOffset: byteOffset}
	b, err := json.Marshal(a)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func numberedLines(n int, format string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, format, i)
		b.WriteByte('\n')
	}
	return b.String()
}

// TestReadContinuation pages through the 2500 lines of a file from the
// first json page, following nextOffset and nextByteOffset.
func TestReadContinuation(t *testing.T) {
	const path = "/workspace/long.txt"
	content := numberedLines(2500, "line %d")
	ex := newExec(t, core.Options{}, map[string]string{path: content})

	// The first page is the json object: 2000 lines, then where to go on.
	firstEnd := strings.Index(content, "line 2001\n")
	checkOutput(t, call(t, ex, toolspec.ToolRead, readArgs(path, nil, nil)), jsonOut(toolspec.ReadResult{
		Path:           path,
		Content:        strings.TrimSuffix(content[:firstEnd], "\n"),
		StartLine:      1,
		EndLine:        toolspec.ReadMaxLinesDefault,
		Truncated:      true,
		NextOffset:     ptr(toolspec.ReadMaxLinesDefault + 1),
		NextByteOffset: ptr(int64(firstEnd)),
	}))

	// The second is the rest, with the line count.
	checkOutput(t, call(t, ex, toolspec.ToolRead, readArgs(path, ptr(int64(2001)), ptr(int64(firstEnd)))), jsonOut(toolspec.ReadResult{
		Path:       path,
		Content:    strings.TrimSuffix(content[firstEnd:], "\n"),
		StartLine:  2001,
		EndLine:    2500,
		TotalLines: ptr(int64(2500)),
	}))
}

// TestReadPagesCoverTheFile: whatever cuts the pages (lines, bytes, a
// limit), following the continuations reads every line once.
func TestReadPagesCoverTheFile(t *testing.T) {
	mixed := "first\n" + strings.Repeat("héllo wörld ✓ 😀\n", 40) + "\r\nwindows\r\n\n" + numberedLines(300, "n%d") + "no newline at the end"
	tests := []struct {
		name    string
		opts    core.Options
		limit   *int64
		content string
	}{
		{"default caps", core.Options{}, nil, numberedLines(2500, "line %d")},
		{"line cap", core.Options{Read: core.ReadOptions{MaxLines: 7}}, nil, mixed},
		{"byte cap", core.Options{Read: core.ReadOptions{MaxBytes: 64}}, nil, mixed},
		{"limit", core.Options{}, ptr(int64(13)), mixed},
		{"byte cap and limit", core.Options{Read: core.ReadOptions{MaxBytes: 100}}, ptr(int64(3)), mixed},
		{"empty last line", core.Options{Read: core.ReadOptions{MaxLines: 1}}, nil, "a\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const path = "/workspace/f.txt"
			ex := newExec(t, tt.opts, map[string]string{path: tt.content})
			var pages []string
			a := toolspec.ReadArgs{Path: path, Limit: tt.limit}
			for i := 0; ; i++ {
				if i > 1000 {
					t.Fatal("no end after 1000 pages")
				}
				args, _ := json.Marshal(a)
				out := call(t, ex, toolspec.ToolRead, string(args))
				if out.Kind == toolspec.OutputText {
					pages = append(pages, out.Text)
					break
				}
				if out.Kind != toolspec.OutputJSON {
					t.Fatalf("page %d: %+v", i, viewOf(out))
				}
				var res toolspec.ReadResult
				if err := json.Unmarshal(out.JSON, &res); err != nil {
					t.Fatal(err)
				}
				pages = append(pages, res.Content)
				if !res.Truncated {
					if res.TotalLines == nil || *res.TotalLines != res.EndLine {
						t.Errorf("last page: totalLines %v, endLine %d", res.TotalLines, res.EndLine)
					}
					break
				}
				if res.TotalLines != nil || res.NextOffset == nil || res.NextByteOffset == nil || *res.NextOffset != res.EndLine+1 {
					t.Fatalf("page %d: bad continuation %s", i, out.JSON)
				}
				a.Offset, a.ByteOffset = res.NextOffset, res.NextByteOffset
			}
			got := strings.Join(pages, "\n")
			want := strings.TrimSuffix(tt.content, "\n")
			if got != want {
				t.Errorf("the pages joined are not the file:\n got %q\nwant %q", got, want)
			}
		})
	}
}

func TestReadText(t *testing.T) {
	tests := []struct {
		name  string
		opts  core.Options
		files map[string]string
		args  string
		want  toolspec.Output
	}{
		{
			name:  "byte cap",
			opts:  core.Options{Read: core.ReadOptions{MaxBytes: 20}},
			files: map[string]string{"/workspace/t.txt": "aaaa\nbbbb\ncccc\ndddd\neeee\n"},
			args:  `{"path":"/workspace/t.txt"}`,
			want: jsonOut(toolspec.ReadResult{Path: "/workspace/t.txt", Content: "aaaa\nbbbb\ncccc\ndddd", StartLine: 1, EndLine: 4,
				Truncated: true, NextOffset: ptr(int64(5)), NextByteOffset: ptr(int64(20))}),
		},
		{
			name:  "byte cap continuation",
			opts:  core.Options{Read: core.ReadOptions{MaxBytes: 20}},
			files: map[string]string{"/workspace/t.txt": "aaaa\nbbbb\ncccc\ndddd\neeee\n"},
			args:  `{"path":"/workspace/t.txt","offset":5,"byteOffset":20}`,
			want:  jsonOut(toolspec.ReadResult{Path: "/workspace/t.txt", Content: "eeee", StartLine: 5, EndLine: 5, TotalLines: ptr(int64(5))}),
		},
		{
			name:  "a long line after the first is left for the next page",
			opts:  core.Options{Read: core.ReadOptions{MaxBytes: 20}},
			files: map[string]string{"/workspace/l.txt": "short\n" + strings.Repeat("x", 30) + "\ntail\n"},
			args:  `{"path":"/workspace/l.txt"}`,
			want: jsonOut(toolspec.ReadResult{Path: "/workspace/l.txt", Content: "short", StartLine: 1, EndLine: 1,
				Truncated: true, NextOffset: ptr(int64(2)), NextByteOffset: ptr(int64(6))}),
		},
		{
			name:  "a long first line is an error",
			opts:  core.Options{Read: core.ReadOptions{MaxBytes: 20}},
			files: map[string]string{"/workspace/l.txt": "short\n" + strings.Repeat("x", 30) + "\ntail\n"},
			args:  `{"path":"/workspace/l.txt","offset":2,"byteOffset":6}`,
			want:  errText(toolspec.MsgReadLineTooLong(2, 20)),
		},
		{
			name:  "a long first line is an error without byteOffset",
			opts:  core.Options{Read: core.ReadOptions{MaxBytes: 20}},
			files: map[string]string{"/workspace/l.txt": "short\n" + strings.Repeat("x", 30) + "\ntail\n"},
			args:  `{"path":"/workspace/l.txt","offset":2}`,
			want:  errText(toolspec.MsgReadLineTooLong(2, 20)),
		},
		{
			name:  "a long only line without newline",
			opts:  core.Options{Read: core.ReadOptions{MaxBytes: 20}},
			files: map[string]string{"/workspace/l.txt": strings.Repeat("x", 21)},
			args:  `{"path":"/workspace/l.txt"}`,
			want:  errText(toolspec.MsgReadLineTooLong(1, 20)),
		},
		{
			name:  "a line of exactly the cap",
			opts:  core.Options{Read: core.ReadOptions{MaxBytes: 20}},
			files: map[string]string{"/workspace/l.txt": strings.Repeat("x", 20)},
			args:  `{"path":"/workspace/l.txt"}`,
			want:  textOut(strings.Repeat("x", 20)),
		},
		{
			name:  "lineTruncation bytes, never splitting a character",
			opts:  core.Options{Read: core.ReadOptions{LineTruncation: &core.LineTruncation{Bytes: 5}}},
			files: map[string]string{"/workspace/t.txt": "héllo world\nabc\nééé\nabcde\n"},
			args:  `{"path":"/workspace/t.txt"}`,
			want:  textOut(toolspec.MsgReadLineTruncated("héll") + "\nabc\n" + toolspec.MsgReadLineTruncated("éé") + "\nabcde"),
		},
		{
			name:  "lineTruncation chars, counting code points",
			opts:  core.Options{Read: core.ReadOptions{LineTruncation: &core.LineTruncation{Chars: 3}}},
			files: map[string]string{"/workspace/t.txt": "😀😀😀😀\nabc\nabcd\né\n"},
			args:  `{"path":"/workspace/t.txt"}`,
			want:  textOut(toolspec.MsgReadLineTruncated("😀😀😀") + "\nabc\n" + toolspec.MsgReadLineTruncated("abc") + "\né"),
		},
		{
			name:  "lineTruncation keeps a long line under the byte cap",
			opts:  core.Options{Read: core.ReadOptions{MaxBytes: 40, LineTruncation: &core.LineTruncation{Bytes: 10}}},
			files: map[string]string{"/workspace/t.txt": strings.Repeat("y", 1000) + "\nz\n"},
			args:  `{"path":"/workspace/t.txt"}`,
			want:  textOut(toolspec.MsgReadLineTruncated(strings.Repeat("y", 10)) + "\nz"),
		},
		{
			name:  "includeLineNumbers",
			opts:  core.Options{Read: core.ReadOptions{IncludeLineNumbers: true}},
			files: map[string]string{"/workspace/t.txt": "a\nb\n"},
			args:  `{"path":"/workspace/t.txt"}`,
			want:  textOut(toolspec.MsgReadLineNumbered(1, "a") + "\n" + toolspec.MsgReadLineNumbered(2, "b")),
		},
		{
			name:  "includeLineNumbers from an offset",
			opts:  core.Options{Read: core.ReadOptions{IncludeLineNumbers: true}},
			files: map[string]string{"/workspace/t.txt": "a\nb\n"},
			args:  `{"path":"/workspace/t.txt","offset":2}`,
			want:  jsonOut(toolspec.ReadResult{Path: "/workspace/t.txt", Content: toolspec.MsgReadLineNumbered(2, "b"), StartLine: 2, EndLine: 2, TotalLines: ptr(int64(2))}),
		},
		{
			name:  "a byte order mark is dropped at the file start only",
			files: map[string]string{"/workspace/bom.txt": "\uFEFFa\n\uFEFFb\n"},
			args:  `{"path":"/workspace/bom.txt"}`,
			want:  textOut("a\n\uFEFFb"),
		},
		{
			name:  "a continuation does not start a file",
			opts:  core.Options{Read: core.ReadOptions{MaxLines: 1}},
			files: map[string]string{"/workspace/bom.txt": "\uFEFFa\n\uFEFFb\n"},
			args:  `{"path":"/workspace/bom.txt","offset":2,"byteOffset":5}`,
			want:  jsonOut(toolspec.ReadResult{Path: "/workspace/bom.txt", Content: "\uFEFFb", StartLine: 2, EndLine: 2, TotalLines: ptr(int64(2))}),
		},
		{
			name:  "the first page ends where the second starts",
			opts:  core.Options{Read: core.ReadOptions{MaxLines: 1}},
			files: map[string]string{"/workspace/bom.txt": "\uFEFFa\n\uFEFFb\n"},
			args:  `{"path":"/workspace/bom.txt"}`,
			want: jsonOut(toolspec.ReadResult{Path: "/workspace/bom.txt", Content: "a", StartLine: 1, EndLine: 1,
				Truncated: true, NextOffset: ptr(int64(2)), NextByteOffset: ptr(int64(5))}),
		},
		{
			name:  "invalid UTF-8 as browsers decode it",
			files: map[string]string{"/workspace/inv.txt": "\xE2\x82A\nok\xFF\n"},
			args:  `{"path":"/workspace/inv.txt"}`,
			want:  textOut("\uFFFDA\nok\uFFFD"),
		},
		{
			name:  "an empty file",
			files: map[string]string{"/workspace/empty": ""},
			args:  `{"path":"/workspace/empty"}`,
			want:  jsonOut(toolspec.ReadResult{Path: "/workspace/empty", Content: "", StartLine: 1, EndLine: 0, TotalLines: ptr(int64(0))}),
		},
		{
			name:  "offset beyond the end",
			files: map[string]string{"/workspace/t.txt": "a\nb\n"},
			args:  `{"path":"/workspace/t.txt","offset":5}`,
			want:  errText(toolspec.MsgReadOffsetBeyondEnd(5, 2)),
		},
		{
			name:  "byteOffset beyond the end",
			files: map[string]string{"/workspace/t.txt": "a\nb\n"},
			args:  `{"path":"/workspace/t.txt","offset":2,"byteOffset":99}`,
			want:  errText(toolspec.MsgReadByteOffsetBeyondEnd(99)),
		},
		{
			name:  "a directory is not found",
			files: map[string]string{"/workspace/t.txt": ""},
			args:  `{"path":"/workspace"}`,
			want:  errText(toolspec.MsgReadFileNotFound("/workspace")),
		},
		{
			name: "a missing file",
			args: `{"path":"/workspace/nope"}`,
			want: errText(toolspec.MsgReadFileNotFound("/workspace/nope")),
		},
		{
			name: "a relative path",
			args: `{"path":"workspace/nope"}`,
			want: errText(toolspec.MsgInvalidPathRelative("workspace/nope")),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := newExec(t, tt.opts, tt.files)
			checkOutput(t, call(t, ex, toolspec.ToolRead, tt.args), tt.want)
		})
	}
}

func TestReadMedia(t *testing.T) {
	content := func(path, mediaType, data string) toolspec.Output {
		return toolspec.Output{
			Kind:  toolspec.OutputContent,
			Text:  toolspec.MsgReadMediaRead(path, mediaType, int64(len(data))),
			Media: &toolspec.Media{MediaType: mediaType, Filename: path[strings.LastIndexByte(path, '/')+1:], Path: path, Data: []byte(data)},
		}
	}
	binary := func(path string, size int64) toolspec.Output {
		return jsonOut(toolspec.ReadMediaResult{Kind: toolspec.MsgReadKindBinary, Path: path, Name: path[strings.LastIndexByte(path, '/')+1:],
			MediaType: toolspec.MsgReadMediaBinary, SizeBytes: size, Unsupported: true})
	}
	const (
		png  = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
		jpeg = "\xff\xd8\xff\xe0\x00\x10JFIF\x00"
		gif  = "GIF89a\x01\x00\x01\x00"
		webp = "RIFF\x24\x00\x00\x00WEBPVP8 "
		pdf  = "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"
		svg  = "<?xml version=\"1.0\"?>\n<!-- c -->\n<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>\n"
	)
	tests := []struct {
		name string
		opts core.Options
		path string
		data string
		want toolspec.Output
	}{
		{"PNG by extension", core.Options{}, "/workspace/a.png", "not really a png", content("/workspace/a.png", toolspec.MsgReadMediaPNG, "not really a png")},
		{"PNG by upper-case extension", core.Options{}, "/workspace/A.PNG", "x", content("/workspace/A.PNG", toolspec.MsgReadMediaPNG, "x")},
		{"PNG by sniff", core.Options{}, "/workspace/img", png, content("/workspace/img", toolspec.MsgReadMediaPNG, png)},
		{"JPEG by extension", core.Options{}, "/workspace/a.jpeg", "x", content("/workspace/a.jpeg", toolspec.MsgReadMediaJPEG, "x")},
		{"JPEG by sniff", core.Options{}, "/workspace/photo", jpeg, content("/workspace/photo", toolspec.MsgReadMediaJPEG, jpeg)},
		{"GIF89a by sniff", core.Options{}, "/workspace/anim", gif, content("/workspace/anim", toolspec.MsgReadMediaGIF, gif)},
		{"GIF87a by sniff", core.Options{}, "/workspace/anim", "GIF87a" + gif[6:], content("/workspace/anim", toolspec.MsgReadMediaGIF, "GIF87a"+gif[6:])},
		{"WEBP by sniff", core.Options{}, "/workspace/pic", webp, content("/workspace/pic", toolspec.MsgReadMediaWebP, webp)},
		{"WEBP by extension", core.Options{}, "/workspace/pic.webp", "x", content("/workspace/pic.webp", toolspec.MsgReadMediaWebP, "x")},
		{"RIFF that is not WEBP", core.Options{}, "/workspace/sound", "RIFF\x24\x00\x00\x00WAVEfmt ", binary("/workspace/sound", 16)},
		{"PDF by sniff", core.Options{}, "/workspace/doc", pdf, content("/workspace/doc", toolspec.MsgReadMediaPDF, pdf)},
		{"PDF by extension", core.Options{}, "/workspace/doc.pdf", "x", content("/workspace/doc.pdf", toolspec.MsgReadMediaPDF, "x")},
		{"SVG is text", core.Options{}, "/workspace/drawing", svg, textOut(strings.TrimSuffix(svg, "\n"))},
		{"a text extension beats the bytes", core.Options{}, "/workspace/a.txt", "GIF89a", textOut("GIF89a")},
		{"a text file name beats the bytes", core.Options{}, "/workspace/Dockerfile", "A\x00B", textOut("A\x00B")},
		{"binary: a NUL byte", core.Options{}, "/workspace/blob", "\x00\x01\x02\x03", binary("/workspace/blob", 4)},
		{"binary: mostly not UTF-8", core.Options{}, "/workspace/bad", "\xff\xfe\xfd", binary("/workspace/bad", 3)},
		{"text: a few bad bytes in much text", core.Options{}, "/workspace/notes", strings.Repeat("word ", 40) + "\xff", textOut(strings.Repeat("word ", 40) + "\uFFFD")},
		{"at maxModelBytes", core.Options{Read: core.ReadOptions{MaxModelBytes: 10}}, "/workspace/a.png", "0123456789", content("/workspace/a.png", toolspec.MsgReadMediaPNG, "0123456789")},
		{"above maxModelBytes", core.Options{Read: core.ReadOptions{MaxModelBytes: 10}}, "/workspace/b.png", "0123456789A",
			errText(toolspec.MsgReadMediaTooLarge("/workspace/b.png", toolspec.MsgReadMediaPNG, 11, 10))},
		{"a sniffed image above maxModelBytes", core.Options{Read: core.ReadOptions{MaxModelBytes: 10}}, "/workspace/pic", webp,
			errText(toolspec.MsgReadMediaTooLarge("/workspace/pic", toolspec.MsgReadMediaWebP, int64(len(webp)), 10))},
		{"an empty image", core.Options{}, "/workspace/e.png", "", errText(toolspec.MsgReadEmptyAttachment("/workspace/e.png"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := newExec(t, tt.opts, map[string]string{tt.path: tt.data})
			checkOutput(t, call(t, ex, toolspec.ToolRead, readArgs(tt.path, nil, nil)), tt.want)
		})
	}

	// A continuation is text: the file is not classified again.
	ex := newExec(t, core.Options{}, map[string]string{"/workspace/img": png + "\nrest\n"})
	checkOutput(t, call(t, ex, toolspec.ToolRead, readArgs("/workspace/img", ptr(int64(2)), ptr(int64(len(png)+1)))),
		jsonOut(toolspec.ReadResult{Path: "/workspace/img", Content: "rest", StartLine: 2, EndLine: 2, TotalLines: ptr(int64(2))}))
}

// TestReadHugeFileReadsOnlyThePage: the first page of a 64 MiB file costs
// the page, not the file.
func TestReadHugeFileReadsOnlyThePage(t *testing.T) {
	const size = 64 << 20
	line := strings.Repeat("0123456789abcdef", 4)[:63] + "\n"
	content := strings.Repeat(line, size/len(line))
	spy := &spyStore{Store: memfs.New()}
	tests := []struct {
		name string
		path string
		args func(path string) string
	}{
		{"no extension: sniffed, then read", "/workspace/huge", func(p string) string { return readArgs(p, nil, nil) }},
		{"text extension", "/workspace/huge.txt", func(p string) string { return readArgs(p, nil, nil) }},
		{"a continuation in the middle", "/workspace/huge.txt", func(p string) string {
			return readArgs(p, ptr(int64(500001)), ptr(int64(500000*len(line))))
		}},
		{"a short limit", "/workspace/huge.log", func(p string) string {
			a, _ := json.Marshal(toolspec.ReadArgs{Path: p, Limit: ptr(int64(3))})
			return string(a)
		}},
	}
	files := map[string]string{}
	for _, tt := range tests {
		files[tt.path] = content
	}
	ex := newExecOn(t, spy, core.Options{}, files)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spy.reset()
			out := call(t, ex, toolspec.ToolRead, tt.args(tt.path))
			var res toolspec.ReadResult
			if out.Kind != toolspec.OutputJSON || json.Unmarshal(out.JSON, &res) != nil || !res.Truncated || !strings.HasPrefix(res.Content, line[:63]) {
				t.Fatalf("not a truncated first page: %.200s", out.JSON)
			}
			if n := spy.bytesRead.Load(); n >= 1<<20 {
				t.Errorf("read %d bytes of a %d-byte file for one page; want less than 1 MiB", n, size)
			}
			if len(spy.opened()) == 0 {
				t.Errorf("the store was not read through the wrapper")
			}
		})
	}
}

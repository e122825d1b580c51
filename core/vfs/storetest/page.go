package storetest

import (
	"fmt"
	"github.com/agenttools/agenttools/core/errno"
	"io"
	"runtime"
	"testing"

	"github.com/agenttools/agenttools/core/vfs"
)

// PageBytes fills directory "big" of s with n empty files, lists a page
// of it (10 entries at offset 100) with ReadDir, checks the page, and
// returns the bytes the listing allocated per entry of the directory: a
// store that holds the page, not the directory, allocates little or
// nothing per entry it passes over.
func PageBytes(t *testing.T, s vfs.Store, n int) float64 {
	t.Helper()
	ctx := t.Context()
	mustMkdir(t, s, "big", 0o755)
	for i := range n {
		if err := s.Create(ctx, fmt.Sprintf("big/f%06d", i), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var page []vfs.Info
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	page, err := s.ReadDir(ctx, "big", 100, 10)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != 10 || page[0].Name != "f000100" || page[9].Name != "f000109" || page[0].Type != vfs.TypeFile {
		t.Fatalf("ReadDir(big, 100, 10) = %v", page)
	}
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
}

// testDirOpener checks directory handles: a listing in chunks gives what
// ReadDir gives, a handle enters and reads what is in it, and refuses
// what is no directory (a link included) or missing.
func testDirOpener(t *testing.T, s vfs.Store, o vfs.DirOpener) {
	ctx := t.Context()
	mustMkdir(t, s, "d", 0o755)
	mustMkdir(t, s, "d/sub", 0o755)
	mustWrite(t, s, "d/sub/f", "inner", 0o644)
	mustSymlink(t, s, "sub", "d/link")
	for i := range 7 {
		mustWrite(t, s, fmt.Sprintf("d/f%d", i), "x", 0o644)
	}
	all, err := s.ReadDir(ctx, "d", 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	d, err := o.OpenDir(ctx, "d")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var got []vfs.DirEntry
	for after := ""; ; {
		chunk, err := d.Entries(ctx, after, 3)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, chunk...)
		if len(chunk) < 3 {
			break
		}
		after = chunk[len(chunk)-1].Name
	}
	if len(got) != len(all) {
		t.Fatalf("Entries in chunks of 3 = %v, ReadDir = %v", got, all)
	}
	for i := range got {
		if got[i].Name != all[i].Name || got[i].Type != all[i].Type {
			t.Fatalf("Entries in chunks of 3 = %v, ReadDir = %v", got, all)
		}
	}
	sub, err := d.OpenDir(ctx, "sub")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	r, err := sub.Open(ctx, "f", 2)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(r)
	r.Close()
	if err != nil || string(data) != "ner" {
		t.Errorf("Open(f, 2) through handles = %q, %v; want \"ner\"", data, err)
	}
	_, err = d.OpenDir(ctx, "f0")
	wantCode(t, "OpenDir of a file", err, errno.ENOTDIR)
	_, err = d.OpenDir(ctx, "link")
	wantCode(t, "OpenDir of a link", err, errno.ENOTDIR)
	_, err = d.OpenDir(ctx, "missing")
	wantCode(t, "OpenDir of nothing", err, errno.ENOENT)
	_, err = o.OpenDir(ctx, "d/f0")
	wantCode(t, "OpenDir of a file", err, errno.ENOTDIR)
}

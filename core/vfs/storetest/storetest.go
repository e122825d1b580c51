// Package storetest is the conformance suite every vfs.Store must pass:
// memfs, hostfs and, later, sqlitefs call Run from their own tests.
//
// It checks the Store interface's documented contract only: what the
// Workspace relies on. Attributes the Workspace normalizes itself (a
// directory's Size, a symbolic link's Mode and Size, the root's Name) are
// not checked here, because stores legitimately differ in them.
//
// This package imports vfs, errno and the standard library (testing); it
// is only ever imported by tests.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

// Option configures Run.
type Option func(*config)

type config struct {
	changeBehind func(t *testing.T, s vfs.Store, name string, data []byte)
}

// ChangeBehind sets how the Update tests change a file behind the back of
// an Update in progress (from inside its fn): as another writer of the
// store would. By default it is the store's own WriteFile, which must
// not wait for the Update; a store whose Update holds a lock that
// WriteFile waits for (hostfs) changes the file as another program does.
func ChangeBehind(fn func(t *testing.T, s vfs.Store, name string, data []byte)) Option {
	return func(c *config) { c.changeBehind = fn }
}

// Run checks that the stores newStore returns behave as the vfs.Store
// interface documents, and vfs.Updater and vfs.RevWriter for stores that
// implement them. newStore is called once per subtest and must return an
// empty store (a root directory and nothing else); it registers its own
// cleanup with t.
func Run(t *testing.T, newStore func(t *testing.T) vfs.Store, opts ...Option) {
	t.Helper()
	c := config{changeBehind: func(t *testing.T, s vfs.Store, name string, data []byte) {
		WriteFile(t, s, name, data, 0o644)
	}}
	for _, o := range opts {
		o(&c)
	}
	tests := []struct {
		name string
		fn   func(t *testing.T, s vfs.Store)
	}{
		{"LstatRoot", testLstatRoot},
		{"LstatMissing", testLstatMissing},
		{"Create", testCreate},
		{"CreateConcurrent", testCreateConcurrent},
		{"Mkdir", testMkdir},
		{"MkdirErrors", testMkdirErrors},
		{"WriteFile", testWriteFile},
		{"WriteFileReplace", testWriteFileReplace},
		{"WriteFileCopiesData", testWriteFileCopiesData},
		{"WriteFileErrors", testWriteFileErrors},
		{"FileModes", testFileModes},
		{"DirModes", testDirModes},
		{"SpecialModes", testSpecialModes},
		{"Chmod", testChmod},
		{"ReadDirOrder", testReadDirOrder},
		{"ReadDirEntries", testReadDirEntries},
		{"ReadDirErrors", testReadDirErrors},
		{"ListingFollowsChanges", testListingFollowsChanges},
		{"Open", testOpen},
		{"OpenErrors", testOpenErrors},
		{"OpenSnapshot", testOpenSnapshot},
		{"NoFollow", testNoFollow},
		{"Symlink", testSymlink},
		{"SymlinkErrors", testSymlinkErrors},
		{"Remove", testRemove},
		{"RemoveErrors", testRemoveErrors},
		{"RemoveAll", testRemoveAll},
		{"ConcurrentWrites", testConcurrentWrites},
		{"ConcurrentReplace", testConcurrentReplace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.fn(t, newStore(t))
		})
	}
	updates := []struct {
		name string
		fn   func(t *testing.T, s vfs.Updater, c config)
	}{
		{"Update", testUpdate},
		{"UpdateErrors", testUpdateErrors},
		{"UpdateLosesNoRace", testUpdateLosesNoRace},
		{"UpdateConcurrent", testUpdateConcurrent},
	}
	for _, tt := range updates {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			u, ok := s.(vfs.Updater)
			if !ok {
				t.Skip("not a vfs.Updater")
			}
			tt.fn(t, u, c)
		})
	}
	t.Run("RevWriter", func(t *testing.T) {
		s := newStore(t)
		rw, ok := s.(vfs.RevWriter)
		if !ok {
			t.Skip("not a vfs.RevWriter")
		}
		testRevWriter(t, s, rw)
	})
	t.Run("PathStatter", func(t *testing.T) {
		s := newStore(t)
		ps, ok := s.(vfs.PathStatter)
		if !ok {
			t.Skip("not a vfs.PathStatter")
		}
		testPathStatter(t, s, ps)
	})
	t.Run("DirOpener", func(t *testing.T) {
		s := newStore(t)
		o, ok := s.(vfs.DirOpener)
		if !ok {
			t.Skip("not a vfs.DirOpener")
		}
		testDirOpener(t, s, o)
	})
}

// reasons are the spec's words for the codes a store reports, the
// reasons the model reads in toolspec.MsgHostIO (a host directory's are
// the system's, which are the same words).
var reasons = map[errno.Code][]string{
	errno.ENOENT:    {toolspec.MsgReasonNoEntry},
	errno.ENOTDIR:   {toolspec.MsgReasonNotDirectory},
	errno.EEXIST:    {toolspec.MsgReasonExists},
	errno.ENOTEMPTY: {toolspec.MsgReasonNotEmpty},
	errno.EISDIR:    {toolspec.MsgReasonIsDirectory, toolspec.MsgReasonNotRegularFile},
}

// wantCode fails the test unless err carries code (errno.CodeOf) and,
// for a code the spec words, the spec's reason.
func wantCode(t *testing.T, what string, err error, code errno.Code) {
	t.Helper()
	if got := errno.CodeOf(err); got != code {
		t.Errorf("%s: error %v has code %q, want %q", what, err, got, code)
		return
	}
	var e *errno.Error
	if want, ok := reasons[code]; ok && errors.As(err, &e) && !slices.Contains(want, e.Message) {
		t.Errorf("%s: error %q, want one of %q", what, e.Message, want)
	}
}

func mustMkdir(t *testing.T, s vfs.Store, name string, mode uint32) {
	t.Helper()
	if err := s.Mkdir(t.Context(), name, mode); err != nil {
		t.Fatalf("Mkdir(%q, %#o): %v", name, mode, err)
	}
}

func mustWrite(t *testing.T, s vfs.Store, name, data string, mode uint32) {
	t.Helper()
	WriteFile(t, s, name, []byte(data), mode)
}

// WriteFile writes data to name with mode, failing the test on an error.
func WriteFile(t *testing.T, s vfs.Store, name string, data []byte, mode uint32) {
	t.Helper()
	if err := s.WriteFile(t.Context(), name, bytes.NewReader(data), mode); err != nil {
		t.Fatalf("WriteFile(%q): %v", name, err)
	}
}

func mustSymlink(t *testing.T, s vfs.Store, target, name string) {
	t.Helper()
	if err := s.Symlink(t.Context(), target, name); err != nil {
		t.Fatalf("Symlink(%q, %q): %v", target, name, err)
	}
}

// Lstat is s.Lstat(name), failing the test on an error.
func Lstat(t *testing.T, s vfs.Store, name string) vfs.Info {
	t.Helper()
	info, err := s.Lstat(t.Context(), name)
	if err != nil {
		t.Fatalf("Lstat(%q): %v", name, err)
	}
	return info
}

// ReadFile opens name at offset and reads it to the end, failing the
// test on an error.
func ReadFile(t *testing.T, s vfs.Store, name string, offset int64) []byte {
	t.Helper()
	r, err := s.Open(t.Context(), name, offset)
	if err != nil {
		t.Fatalf("Open(%q, %d): %v", name, offset, err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("reading %q: %v", name, err)
	}
	return b
}

// readFile is ReadFile as a string.
func readFile(t *testing.T, s vfs.Store, name string, offset int64) string {
	t.Helper()
	return string(ReadFile(t, s, name, offset))
}

func listNames(t *testing.T, s vfs.Store, name string) []string {
	t.Helper()
	entries, err := s.ReadDir(t.Context(), name, 0, -1)
	if err != nil {
		t.Fatalf("ReadDir(%q): %v", name, err)
	}
	return names(entries)
}

func names(entries []vfs.Info) []string {
	out := []string{}
	for _, e := range entries {
		out = append(out, e.Name)
	}
	return out
}

func exists(t *testing.T, s vfs.Store, name string) bool {
	t.Helper()
	_, err := s.Lstat(t.Context(), name)
	if err == nil {
		return true
	}
	if errno.CodeOf(err) != errno.ENOENT {
		t.Fatalf("Lstat(%q): %v, want nil or ENOENT", name, err)
	}
	return false
}

func testLstatRoot(t *testing.T, s vfs.Store) {
	info := Lstat(t, s, "")
	if info.Type != vfs.TypeDir {
		t.Errorf("Lstat(root).Type = %v, want dir", info.Type)
	}
	if got := listNames(t, s, ""); len(got) != 0 {
		t.Errorf("a new store lists %q, want nothing", got)
	}
}

func testLstatMissing(t *testing.T, s vfs.Store) {
	mustMkdir(t, s, "d", 0o755)
	mustWrite(t, s, "d/f", "x", 0o644)
	tests := []struct {
		name string
		code errno.Code
	}{
		{"missing", errno.ENOENT},
		{"missing/deeper", errno.ENOENT},
		{"d/missing", errno.ENOENT},
		{"d/f/x", errno.ENOTDIR},
	}
	for _, tt := range tests {
		_, err := s.Lstat(t.Context(), tt.name)
		wantCode(t, fmt.Sprintf("Lstat(%q)", tt.name), err, tt.code)
	}
}

func testCreate(t *testing.T, s vfs.Store) {
	if err := s.Create(t.Context(), "new", 0o640); err != nil {
		t.Fatalf("Create(new): %v", err)
	}
	info := Lstat(t, s, "new")
	if info.Type != vfs.TypeFile || info.Mode != 0o640 || info.Size != 0 {
		t.Errorf("created file: type %v mode %#o size %d, want an empty file 0640", info.Type, info.Mode, info.Size)
	}
	mustMkdir(t, s, "d", 0o755)
	mustWrite(t, s, "f", "content", 0o644)
	mustSymlink(t, s, "nowhere", "dangling")
	for _, tt := range []struct {
		name string
		code errno.Code
	}{
		{"new", errno.EEXIST},
		{"d", errno.EEXIST},
		{"f", errno.EEXIST},
		{"dangling", errno.EEXIST},
		{"missing/x", errno.ENOENT},
		{"f/x", errno.ENOTDIR},
	} {
		wantCode(t, fmt.Sprintf("Create(%q)", tt.name), s.Create(t.Context(), tt.name, 0o644), tt.code)
	}
	if got := readFile(t, s, "f", 0); got != "content" {
		t.Errorf("a refused Create changed f to %q", got)
	}
	if info := Lstat(t, s, "dangling"); info.Type != vfs.TypeSymlink {
		t.Errorf("a refused Create replaced the link: %v", info.Type)
	}
	// The created file takes content like any other.
	mustWrite(t, s, "new", "claimed", 0o644)
	if got := readFile(t, s, "new", 0); got != "claimed" {
		t.Errorf("write after Create: %q", got)
	}
}

// Of concurrent creates of one name, exactly one succeeds.
func testCreateConcurrent(t *testing.T, s vfs.Store) {
	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { errs[i] = s.Create(t.Context(), "claim", 0o644) })
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case errno.CodeOf(err) != errno.EEXIST:
			t.Errorf("a losing Create: %v, want EEXIST", err)
		}
	}
	if won != 1 {
		t.Errorf("%d of %d concurrent creates succeeded, want 1", won, n)
	}
}

func testMkdir(t *testing.T, s vfs.Store) {
	mustMkdir(t, s, "a", 0o755)
	mustMkdir(t, s, "a/b", 0o700)
	mustMkdir(t, s, "a/b/c", 0o755)
	for _, tt := range []struct {
		name string
		mode uint32
	}{{"a", 0o755}, {"a/b", 0o700}, {"a/b/c", 0o755}} {
		info := Lstat(t, s, tt.name)
		if info.Type != vfs.TypeDir || info.Mode != tt.mode {
			t.Errorf("Lstat(%q) = type %v mode %#o, want dir %#o", tt.name, info.Type, info.Mode, tt.mode)
		}
	}
	if got := listNames(t, s, "a/b/c"); len(got) != 0 {
		t.Errorf("new directory lists %q, want nothing", got)
	}
	if got, want := listNames(t, s, "a"), []string{"b"}; !slices.Equal(got, want) {
		t.Errorf("ReadDir(a) = %q, want %q", got, want)
	}
}

func testMkdirErrors(t *testing.T, s vfs.Store) {
	mustMkdir(t, s, "d", 0o755)
	mustWrite(t, s, "f", "content", 0o644)
	mustSymlink(t, s, "d", "l")
	tests := []struct {
		name string
		code errno.Code
	}{
		{"d", errno.EEXIST},
		{"f", errno.EEXIST},
		{"l", errno.EEXIST},
		{"missing/x", errno.ENOENT},
		{"f/x", errno.ENOTDIR},
	}
	for _, tt := range tests {
		err := s.Mkdir(t.Context(), tt.name, 0o755)
		wantCode(t, fmt.Sprintf("Mkdir(%q)", tt.name), err, tt.code)
	}
	// Nothing was changed by the failures.
	if got := readFile(t, s, "f", 0); got != "content" {
		t.Errorf("file after failed Mkdir = %q, want %q", got, "content")
	}
	if info := Lstat(t, s, "l"); info.Type != vfs.TypeSymlink || info.Target != "d" {
		t.Errorf("link after failed Mkdir = %+v, want a link to d", info)
	}
	if got, want := listNames(t, s, ""), []string{"d", "f", "l"}; !slices.Equal(got, want) {
		t.Errorf("root after failed Mkdirs = %q, want %q", got, want)
	}
}

func testWriteFile(t *testing.T, s vfs.Store) {
	mustMkdir(t, s, "d", 0o755)
	tests := []struct {
		name string
		data string
		mode uint32
	}{
		{"top.txt", "hello\n", 0o644},
		{"d/nested.bin", "\x00\x01\xff\xfe", 0o600},
		{"d/empty", "", 0o644},
		{"d/é😀 name", "unicode name", 0o644},
	}
	for _, tt := range tests {
		mustWrite(t, s, tt.name, tt.data, tt.mode)
		info := Lstat(t, s, tt.name)
		if info.Type != vfs.TypeFile || info.Mode != tt.mode || info.Size != int64(len(tt.data)) {
			t.Errorf("Lstat(%q) = type %v mode %#o size %d, want file %#o %d",
				tt.name, info.Type, info.Mode, info.Size, tt.mode, len(tt.data))
		}
		if got := readFile(t, s, tt.name, 0); got != tt.data {
			t.Errorf("content of %q = %q, want %q", tt.name, got, tt.data)
		}
		// From an offset: the rest; at or beyond the end, however far
		// (2^53-1, the largest a tool's byteOffset takes), nothing.
		for _, off := range []int64{1, int64(len(tt.data)), int64(len(tt.data)) + 1, 1<<53 - 1} {
			want := ""
			if off < int64(len(tt.data)) {
				want = tt.data[off:]
			}
			if got := readFile(t, s, tt.name, off); got != want {
				t.Errorf("content of %q from %d = %q, want %q", tt.name, off, got, want)
			}
		}
	}
}

func testWriteFileReplace(t *testing.T, s vfs.Store) {
	long := "the old content, which is much longer than the new one\n"
	tests := []struct {
		name     string
		old, new string
		oldMode  uint32
		newMode  uint32
	}{
		{"shorter", long, "new", 0o644, 0o644},
		{"empty", long, "", 0o644, 0o600},
		{"longer", "x", long + long, 0o600, 0o755},
		{"same length", "aaaa", "bbbb", 0o755, 0o644},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustWrite(t, s, tt.name, tt.old, tt.oldMode)
			mustWrite(t, s, tt.name, tt.new, tt.newMode)
			if got := readFile(t, s, tt.name, 0); got != tt.new {
				t.Errorf("content after replace = %q, want %q", got, tt.new)
			}
			info := Lstat(t, s, tt.name)
			if info.Size != int64(len(tt.new)) || info.Mode != tt.newMode {
				t.Errorf("after replace: size %d mode %#o, want %d %#o", info.Size, info.Mode, len(tt.new), tt.newMode)
			}
		})
	}
	// Replacing leaves no temporary or stray entries behind.
	want := []string{"empty", "longer", "same length", "shorter"}
	if got := listNames(t, s, ""); !slices.Equal(got, want) {
		t.Errorf("ReadDir after replaces = %q, want %q", got, want)
	}
}

func testWriteFileCopiesData(t *testing.T, s vfs.Store) {
	buf := []byte("original")
	if err := s.WriteFile(t.Context(), "f", bytes.NewReader(buf), 0o644); err != nil {
		t.Fatal(err)
	}
	copy(buf, "MUTATED!")
	if got := readFile(t, s, "f", 0); got != "original" {
		t.Errorf("content after the caller reused its buffer = %q, want %q", got, "original")
	}
}

func testWriteFileErrors(t *testing.T, s vfs.Store) {
	mustMkdir(t, s, "d", 0o755)
	mustWrite(t, s, "d/keep", "kept", 0o644)
	mustWrite(t, s, "f", "file", 0o644)
	tests := []struct {
		name string
		code errno.Code // "" when the code is the store's own business
	}{
		{"missing/x", errno.ENOENT},
		// memfs says EISDIR, hostfs EEXIST (Go's rename refuses to replace
		// a directory so); the Workspace never asks this.
		{"d", ""},
		{"f/x", errno.ENOTDIR},
	}
	for _, tt := range tests {
		err := s.WriteFile(t.Context(), tt.name, bytes.NewReader([]byte("data")), 0o644)
		if err == nil {
			t.Errorf("WriteFile(%q) succeeded, want an error", tt.name)
		} else if tt.code != "" {
			wantCode(t, fmt.Sprintf("WriteFile(%q)", tt.name), err, tt.code)
		}
	}
	if info := Lstat(t, s, "d"); info.Type != vfs.TypeDir {
		t.Errorf("d after a failed WriteFile over it is %v, want dir", info.Type)
	}
	if got, want := listNames(t, s, "d"), []string{"keep"}; !slices.Equal(got, want) {
		t.Errorf("ReadDir(d) after failed WriteFile = %q, want %q", got, want)
	}
	if got, want := listNames(t, s, ""), []string{"d", "f"}; !slices.Equal(got, want) {
		t.Errorf("ReadDir(root) after failed WriteFiles = %q, want %q (no temporary left behind)", got, want)
	}
	if got := readFile(t, s, "f", 0); got != "file" {
		t.Errorf("f after failed WriteFile = %q", got)
	}
}

func testFileModes(t *testing.T, s vfs.Store) {
	for _, mode := range []uint32{0o600, 0o644, 0o640, 0o755, 0o777, 0o700, 0o666, 0o400} {
		name := fmt.Sprintf("f%04o", mode)
		mustWrite(t, s, name, "x", mode)
		if got := Lstat(t, s, name).Mode; got != mode {
			t.Errorf("WriteFile mode %#o: Lstat reports %#o", mode, got)
		}
	}
}

func testDirModes(t *testing.T, s vfs.Store) {
	for _, mode := range []uint32{0o700, 0o755, 0o750, 0o777, 0o711} {
		name := fmt.Sprintf("d%04o", mode)
		mustMkdir(t, s, name, mode)
		if got := Lstat(t, s, name).Mode; got != mode {
			t.Errorf("Mkdir mode %#o: Lstat reports %#o", mode, got)
		}
	}
}

// checkSpecial compares modes holding setuid, setgid or sticky bits. A
// store that drops all three (it has no such bits) skips; one that keeps
// the permission bits but mangles the special ones fails.
func checkSpecial(t *testing.T, what string, got, want uint32) {
	t.Helper()
	if got == want {
		return
	}
	if got == want&0o777 {
		t.Skipf("%s: store does not keep setuid/setgid/sticky bits (%#o, want %#o)", what, got, want)
	}
	t.Errorf("%s: Lstat reports %#o, want %#o", what, got, want)
}

func testSpecialModes(t *testing.T, s vfs.Store) {
	tests := []struct {
		name string
		dir  bool
		mode uint32
	}{
		{"setuid file", false, 0o4755},
		{"setgid file", false, 0o2755},
		{"setuid and setgid file", false, 0o6711},
		{"sticky dir", true, 0o1777},
		{"setgid dir", true, 0o2775},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.dir {
				mustMkdir(t, s, "n", tt.mode)
			} else {
				mustWrite(t, s, "n", "x", tt.mode)
			}
			checkSpecial(t, tt.name, Lstat(t, s, "n").Mode, tt.mode)
		})
		if t.Failed() {
			return
		}
		// Each case uses the same name; clear it for the next one.
		if err := s.RemoveAll(t.Context(), "n"); err != nil {
			t.Fatal(err)
		}
	}
}

func testChmod(t *testing.T, s vfs.Store) {
	mustWrite(t, s, "f", "content", 0o644)
	mustMkdir(t, s, "d", 0o755)
	mustWrite(t, s, "d/inner", "inner", 0o644)
	tests := []struct {
		name string
		mode uint32
		typ  vfs.FileType
	}{
		{"f", 0o600, vfs.TypeFile},
		{"f", 0o755, vfs.TypeFile},
		{"f", 0o000, vfs.TypeFile},
		{"f", 0o644, vfs.TypeFile},
		{"d", 0o700, vfs.TypeDir},
		{"d", 0o750, vfs.TypeDir},
		{"d/inner", 0o640, vfs.TypeFile},
	}
	for _, tt := range tests {
		if err := s.Chmod(t.Context(), tt.name, tt.mode); err != nil {
			t.Fatalf("Chmod(%q, %#o): %v", tt.name, tt.mode, err)
		}
		info := Lstat(t, s, tt.name)
		if info.Mode != tt.mode || info.Type != tt.typ {
			t.Errorf("after Chmod(%q, %#o): type %v mode %#o", tt.name, tt.mode, info.Type, info.Mode)
		}
	}
	if got := readFile(t, s, "f", 0); got != "content" {
		t.Errorf("content after Chmod = %q, want %q", got, "content")
	}
	if got, want := listNames(t, s, "d"), []string{"inner"}; !slices.Equal(got, want) {
		t.Errorf("ReadDir(d) after Chmod = %q, want %q", got, want)
	}
	wantCode(t, "Chmod(missing)", s.Chmod(t.Context(), "missing", 0o644), errno.ENOENT)
}

// rawOrderNames are created in this order and must be listed sorted by
// their bytes: digits, upper case, '_', lower case, then multi-byte.
var rawOrderNames = []string{"B", "_", "a", "é", "Z", "10", "9"}

func testReadDirOrder(t *testing.T, s vfs.Store) {
	mustMkdir(t, s, "d", 0o755)
	for i, n := range rawOrderNames {
		if i%2 == 0 {
			mustWrite(t, s, "d/"+n, n, 0o644)
		} else {
			mustMkdir(t, s, "d/"+n, 0o755)
		}
	}
	all := []string{"10", "9", "B", "Z", "_", "a", "é"}
	tests := []struct {
		offset, limit int
		want          []string
	}{
		{0, -1, all},
		{0, 100, all},
		{0, 7, all},
		{0, 3, []string{"10", "9", "B"}},
		{2, 2, []string{"B", "Z"}},
		{5, -1, []string{"a", "é"}},
		{5, 10, []string{"a", "é"}},
		{6, 1, []string{"é"}},
		{0, 0, []string{}},
		{7, -1, []string{}},
		{8, -1, []string{}},
		{100, 5, []string{}},
	}
	for _, tt := range tests {
		entries, err := s.ReadDir(t.Context(), "d", tt.offset, tt.limit)
		if err != nil {
			t.Fatalf("ReadDir(d, %d, %d): %v", tt.offset, tt.limit, err)
		}
		if got := names(entries); !slices.Equal(got, tt.want) {
			t.Errorf("ReadDir(d, %d, %d) = %q, want %q", tt.offset, tt.limit, got, tt.want)
		}
	}
}

func testReadDirEntries(t *testing.T, s vfs.Store) {
	mustMkdir(t, s, "sub", 0o700)
	mustWrite(t, s, "file", "12345", 0o640)
	mustSymlink(t, s, "../somewhere/else", "link")
	entries, err := s.ReadDir(t.Context(), "", 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(entries), []string{"file", "link", "sub"}; !slices.Equal(got, want) {
		t.Fatalf("ReadDir(root) = %q, want %q", got, want)
	}
	want := []struct {
		typ    vfs.FileType
		mode   uint32
		target string
	}{
		{vfs.TypeFile, 0o640, ""},
		{vfs.TypeSymlink, 0, "../somewhere/else"},
		{vfs.TypeDir, 0o700, ""},
	}
	for i, e := range entries {
		if e.Type != want[i].typ || e.Target != want[i].target {
			t.Errorf("entry %q: type %v target %q, want %v %q", e.Name, e.Type, e.Target, want[i].typ, want[i].target)
		}
		if e.Type != vfs.TypeSymlink && e.Mode != want[i].mode {
			t.Errorf("entry %q: mode %#o, want %#o", e.Name, e.Mode, want[i].mode)
		}
		// An entry describes the node as Lstat does.
		l := Lstat(t, s, e.Name)
		if l.Type != e.Type || l.Target != e.Target || l.MTime != e.MTime ||
			(e.Type != vfs.TypeSymlink && l.Mode != e.Mode) ||
			(e.Type == vfs.TypeFile && l.Size != e.Size) {
			t.Errorf("entry %q = %+v, Lstat = %+v", e.Name, e, l)
		}
	}
	if entries[0].Size != 5 {
		t.Errorf("file entry size = %d, want 5", entries[0].Size)
	}
}

func testReadDirErrors(t *testing.T, s vfs.Store) {
	mustWrite(t, s, "f", "x", 0o644)
	mustMkdir(t, s, "empty", 0o755)
	tests := []struct {
		name string
		code errno.Code
	}{
		{"missing", errno.ENOENT},
		{"missing/deeper", errno.ENOENT},
		{"f", errno.ENOTDIR},
	}
	for _, tt := range tests {
		_, err := s.ReadDir(t.Context(), tt.name, 0, -1)
		wantCode(t, fmt.Sprintf("ReadDir(%q)", tt.name), err, tt.code)
	}
	entries, err := s.ReadDir(t.Context(), "empty", 0, -1)
	if err != nil || len(entries) != 0 {
		t.Errorf("ReadDir(empty) = %v, %v; want no entries", names(entries), err)
	}
}

func testOpen(t *testing.T, s vfs.Store) {
	const content = "hello, world"
	mustMkdir(t, s, "d", 0o755)
	mustWrite(t, s, "d/f", content, 0o644)
	mustWrite(t, s, "empty", "", 0o644)
	tests := []struct {
		name   string
		offset int64
		want   string
	}{
		{"d/f", 0, content},
		{"d/f", 1, content[1:]},
		{"d/f", 7, "world"},
		{"d/f", 11, "d"},
		{"d/f", 12, ""},
		{"d/f", 13, ""},
		{"d/f", 1 << 20, ""},
		{"empty", 0, ""},
		{"empty", 5, ""},
	}
	for _, tt := range tests {
		if got := readFile(t, s, tt.name, tt.offset); got != tt.want {
			t.Errorf("Open(%q, %d) read %q, want %q", tt.name, tt.offset, got, tt.want)
		}
	}
}

func testOpenErrors(t *testing.T, s vfs.Store) {
	mustMkdir(t, s, "d", 0o755)
	tests := []struct {
		name string
		code errno.Code
	}{
		{"missing", errno.ENOENT},
		{"d/missing", errno.ENOENT},
		{"d", errno.EISDIR},
		{"", errno.EISDIR},
	}
	for _, tt := range tests {
		r, err := s.Open(t.Context(), tt.name, 0)
		if err == nil {
			b, _ := io.ReadAll(r)
			r.Close()
			t.Errorf("Open(%q) succeeded and read %q, want an error", tt.name, b)
			continue
		}
		wantCode(t, fmt.Sprintf("Open(%q)", tt.name), err, tt.code)
	}
}

// testNoFollow checks that a store never follows a symbolic link named
// as the last component: reading through one fails (with a code of the
// store's choosing) and never yields the target, and Chmod of one never
// changes the target.
func testNoFollow(t *testing.T, s vfs.Store) {
	mustMkdir(t, s, "d", 0o755)
	mustWrite(t, s, "d/f", "secret", 0o644)
	mustSymlink(t, s, "d/f", "filelink")
	mustSymlink(t, s, "d", "dirlink")
	tests := []struct {
		name string
		op   func(ctx context.Context) (string, error)
	}{
		{"Open(filelink)", func(ctx context.Context) (string, error) {
			r, err := s.Open(ctx, "filelink", 0)
			if err != nil {
				return "", err
			}
			defer r.Close()
			b, _ := io.ReadAll(r)
			return fmt.Sprintf("read %q", b), nil
		}},
		{"ReadDir(dirlink)", func(ctx context.Context) (string, error) {
			entries, err := s.ReadDir(ctx, "dirlink", 0, -1)
			return fmt.Sprintf("listed %q", names(entries)), err
		}},
	}
	for _, tt := range tests {
		if got, err := tt.op(t.Context()); err == nil {
			t.Errorf("%s succeeded and %s, want an error", tt.name, got)
		}
	}
	_ = s.Chmod(t.Context(), "filelink", 0o600) // may fail or change the link itself
	_ = s.Chmod(t.Context(), "dirlink", 0o700)
	if got := Lstat(t, s, "d/f").Mode; got != 0o644 {
		t.Errorf("Chmod of a link changed its target file to %#o, want 0644", got)
	}
	if got := Lstat(t, s, "d").Mode; got != 0o755 {
		t.Errorf("Chmod of a link changed its target directory to %#o, want 0755", got)
	}
	for _, name := range []string{"filelink", "dirlink"} {
		if info := Lstat(t, s, name); info.Type != vfs.TypeSymlink {
			t.Errorf("%s is now %v, want it still a link", name, info.Type)
		}
	}
}

// testOpenSnapshot checks that an open reader never sees a replacement:
// as documented, it reads the file as it was when opened, or fails.
func testOpenSnapshot(t *testing.T, s vfs.Store) {
	const old = "old content, long enough to notice a mix"
	tests := []struct {
		name     string
		offset   int64
		readHead int // bytes read before the change
		change   func(t *testing.T, s vfs.Store)
		after    string // what a reader opened after the change reads
	}{
		{"replace shorter", 0, 4, func(t *testing.T, s vfs.Store) { mustWrite(t, s, "f", "NEW", 0o644) }, "NEW"},
		{"replace longer", 0, 4, func(t *testing.T, s vfs.Store) {
			mustWrite(t, s, "f", "NEW CONTENT THAT IS LONGER THAN THE OLD ONE, BY FAR", 0o600)
		}, "NEW CONTENT THAT IS LONGER THAN THE OLD ONE, BY FAR"},
		{"replace before reading", 4, 0, func(t *testing.T, s vfs.Store) { mustWrite(t, s, "f", "", 0o644) }, ""},
		{"remove", 0, 4, func(t *testing.T, s vfs.Store) {
			if err := s.Remove(t.Context(), "f"); err != nil {
				t.Fatal(err)
			}
		}, "<removed>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustWrite(t, s, "f", old, 0o644)
			r, err := s.Open(t.Context(), "f", tt.offset)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			head := make([]byte, tt.readHead)
			if _, err := io.ReadFull(r, head); err != nil {
				t.Fatal(err)
			}
			tt.change(t, s)
			if tt.after == "<removed>" {
				_, err := s.Open(t.Context(), "f", 0)
				wantCode(t, "Open after Remove", err, errno.ENOENT)
			} else if got := readFile(t, s, "f", 0); got != tt.after {
				t.Errorf("a reader opened after the change read %q, want %q", got, tt.after)
			}
			rest, err := io.ReadAll(r)
			if err != nil {
				t.Logf("reader failed after the change (allowed): %v", err)
				return
			}
			if got, want := string(head)+string(rest), old[tt.offset:]; got != want {
				t.Errorf("open reader saw %q after the change, want the old %q", got, want)
			}
		})
	}
}

func testSymlink(t *testing.T, s vfs.Store) {
	mustMkdir(t, s, "d", 0o755)
	mustWrite(t, s, "d/f", "content", 0o644)
	targets := []string{
		"f",
		"d/f",
		"../up/and/away",
		"../../../../../../etc/passwd",
		"/abs/path",
		"/",
		"dangling",
		"a//b/./c/../d/",
		"é😀/with space",
		".",
		"..",
	}
	for i, target := range targets {
		name := fmt.Sprintf("d/l%02d", i)
		mustSymlink(t, s, target, name)
		info := Lstat(t, s, name)
		if info.Type != vfs.TypeSymlink || info.Target != target {
			t.Errorf("Lstat(%q) = type %v target %q, want symlink %q", name, info.Type, info.Target, target)
		}
	}
	entries, err := s.ReadDir(t.Context(), "d", 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(targets)+1 {
		t.Fatalf("ReadDir(d) = %q, want f and %d links", names(entries), len(targets))
	}
	for i, target := range targets {
		e := entries[i+1] // "f" sorts before "l00"
		if e.Type != vfs.TypeSymlink || e.Target != target {
			t.Errorf("entry %q: type %v target %q, want symlink %q", e.Name, e.Type, e.Target, target)
		}
	}
	// The link to a file did not touch the file.
	if got := readFile(t, s, "d/f", 0); got != "content" {
		t.Errorf("d/f = %q after linking to it", got)
	}
}

func testSymlinkErrors(t *testing.T, s vfs.Store) {
	mustMkdir(t, s, "d", 0o755)
	mustWrite(t, s, "f", "content", 0o644)
	mustSymlink(t, s, "f", "l")
	tests := []struct {
		name string
		code errno.Code
	}{
		{"d", errno.EEXIST},
		{"f", errno.EEXIST},
		{"l", errno.EEXIST},
		{"missing/l", errno.ENOENT},
		{"f/l", errno.ENOTDIR},
	}
	for _, tt := range tests {
		err := s.Symlink(t.Context(), "target", tt.name)
		wantCode(t, fmt.Sprintf("Symlink(target, %q)", tt.name), err, tt.code)
	}
	if info := Lstat(t, s, "l"); info.Target != "f" {
		t.Errorf("existing link now targets %q, want f", info.Target)
	}
	if info := Lstat(t, s, "f"); info.Type != vfs.TypeFile {
		t.Errorf("f is now %v, want file", info.Type)
	}
}

func testRemove(t *testing.T, s vfs.Store) {
	mustMkdir(t, s, "d", 0o755)
	mustWrite(t, s, "d/target", "content", 0o644)
	mustSymlink(t, s, "d/target", "link")
	mustSymlink(t, s, "d", "dirlink")
	mustMkdir(t, s, "empty", 0o755)
	mustWrite(t, s, "file", "x", 0o644)
	tests := []struct {
		name string
		left []string
	}{
		{"link", []string{"d", "dirlink", "empty", "file"}},
		{"dirlink", []string{"d", "empty", "file"}},
		{"empty", []string{"d", "file"}},
		{"file", []string{"d"}},
	}
	for _, tt := range tests {
		if err := s.Remove(t.Context(), tt.name); err != nil {
			t.Fatalf("Remove(%q): %v", tt.name, err)
		}
		if exists(t, s, tt.name) {
			t.Errorf("%q still exists after Remove", tt.name)
		}
		if got := listNames(t, s, ""); !slices.Equal(got, tt.left) {
			t.Errorf("after Remove(%q): root lists %q, want %q", tt.name, got, tt.left)
		}
	}
	// Removing the links removed neither their targets nor the directory.
	if got := readFile(t, s, "d/target", 0); got != "content" {
		t.Errorf("link target after removing the links = %q", got)
	}
}

func testRemoveErrors(t *testing.T, s vfs.Store) {
	mustMkdir(t, s, "d", 0o755)
	mustWrite(t, s, "d/f", "content", 0o644)
	tests := []struct {
		name string
		code errno.Code
	}{
		{"d", errno.ENOTEMPTY},
		{"missing", errno.ENOENT},
		{"d/missing", errno.ENOENT},
	}
	for _, tt := range tests {
		wantCode(t, fmt.Sprintf("Remove(%q)", tt.name), s.Remove(t.Context(), tt.name), tt.code)
	}
	if got := readFile(t, s, "d/f", 0); got != "content" {
		t.Errorf("d/f after failed Remove(d) = %q", got)
	}
}

func testRemoveAll(t *testing.T, s vfs.Store) {
	mustMkdir(t, s, "keep", 0o755)
	mustWrite(t, s, "keep/f", "kept", 0o644)
	mustMkdir(t, s, "tree", 0o755)
	mustMkdir(t, s, "tree/a", 0o700)
	mustMkdir(t, s, "tree/a/b", 0o755)
	mustWrite(t, s, "tree/a/b/f", "x", 0o644)
	mustWrite(t, s, "tree/g", "y", 0o600)
	mustSymlink(t, s, "../keep", "tree/to-keep")
	mustSymlink(t, s, "keep", "keeplink")
	mustWrite(t, s, "file", "z", 0o644)

	tests := []struct {
		name string
		left []string
	}{
		// A link to a directory: only the link goes.
		{"keeplink", []string{"file", "keep", "tree"}},
		// A tree holding a link to a directory elsewhere.
		{"tree", []string{"file", "keep"}},
		{"file", []string{"keep"}},
	}
	for _, tt := range tests {
		if err := s.RemoveAll(t.Context(), tt.name); err != nil {
			t.Fatalf("RemoveAll(%q): %v", tt.name, err)
		}
		if got := listNames(t, s, ""); !slices.Equal(got, tt.left) {
			t.Errorf("after RemoveAll(%q): root lists %q, want %q", tt.name, got, tt.left)
		}
	}
	if got := readFile(t, s, "keep/f", 0); got != "kept" {
		t.Errorf("keep/f after removing links to keep = %q, want %q", got, "kept")
	}
}

func testConcurrentWrites(t *testing.T, s vfs.Store) {
	const n = 16
	mustMkdir(t, s, "d", 0o755)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			name := fmt.Sprintf("d/f%02d", i)
			data := bytes.Repeat([]byte{byte('a' + i)}, 100+i)
			errs <- s.WriteFile(t.Context(), name, bytes.NewReader(data), 0o644)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("concurrent WriteFile: %v", err)
		}
	}
	entries, err := s.ReadDir(t.Context(), "d", 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != n {
		t.Fatalf("ReadDir after %d concurrent writes = %q", n, names(entries))
	}
	for i, e := range entries {
		want := fmt.Sprintf("f%02d", i)
		if e.Name != want || e.Type != vfs.TypeFile || e.Size != int64(100+i) {
			t.Errorf("entry %d = %q %v size %d, want %q file size %d", i, e.Name, e.Type, e.Size, want, 100+i)
		}
		if got := readFile(t, s, "d/"+want, 0); got != string(bytes.Repeat([]byte{byte('a' + i)}, 100+i)) {
			t.Errorf("content of %q = %q", want, got)
		}
	}
}

// testConcurrentReplace races writers replacing one file with readers of
// it: each reader sees one whole version, never a mix or a short one.
func testConcurrentReplace(t *testing.T, s vfs.Store) {
	const size, writers, readers, rounds = 8192, 4, 4, 25
	versions := make([][]byte, writers)
	for i := range versions {
		versions[i] = bytes.Repeat([]byte{byte('A' + i)}, size)
	}
	if err := s.WriteFile(t.Context(), "f", bytes.NewReader(versions[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			for range rounds {
				if err := s.WriteFile(ctx, "f", bytes.NewReader(versions[i]), 0o644); err != nil {
					t.Errorf("WriteFile: %v", err)
					return
				}
			}
		})
	}
	for range readers {
		wg.Go(func() {
			for range rounds {
				if err := readWhole(ctx, s, versions); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if got := listNames(t, s, ""); !slices.Equal(got, []string{"f"}) {
		t.Errorf("after concurrent replaces the root lists %q, want only f", got)
	}
}

func readWhole(ctx context.Context, s vfs.Store, versions [][]byte) error {
	r, err := s.Open(ctx, "f", 0)
	if err != nil {
		return fmt.Errorf("open during replaces: %v", err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil // a reader may fail; it must never see a mix
	}
	if !slices.ContainsFunc(versions, func(v []byte) bool { return bytes.Equal(v, b) }) {
		return fmt.Errorf("a reader saw %d bytes that are no whole version (starts %q)", len(b), b[:min(len(b), 16)])
	}
	return nil
}

// testUpdate: fn gets the content and the node, its result replaces the
// content, the mode stays; fn's error writes nothing and is returned.
func testUpdate(t *testing.T, u vfs.Updater, _ config) {
	s := u.(vfs.Store)
	ctx := t.Context()
	mustMkdir(t, s, "d", 0o755)
	mustWrite(t, s, "d/f", "one\n", 0o640)
	var seen vfs.Info
	err := u.Update(ctx, "d/f", 1<<20, func(old []byte, info vfs.Info) ([]byte, error) {
		if string(old) != "one\n" {
			t.Errorf("fn got %q, want %q", old, "one\n")
		}
		seen = info
		return append(old, "two\n"...), nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if seen.Name != "f" || seen.Type != vfs.TypeFile || seen.Size != 4 || seen.Mode != 0o640 {
		t.Errorf("fn got info %+v, want f, a file of 4 bytes, mode 0640", seen)
	}
	if got := readFile(t, s, "d/f", 0); got != "one\ntwo\n" {
		t.Errorf("after Update: %q", got)
	}
	if info := Lstat(t, s, "d/f"); info.Mode != 0o640 || info.Size != 8 {
		t.Errorf("after Update: mode %#o size %d, want 0640 and 8", info.Mode, info.Size)
	}
	refused := errors.New("fn refuses")
	if err := u.Update(ctx, "d/f", 1<<20, func([]byte, vfs.Info) ([]byte, error) { return []byte("never"), refused }); err != refused {
		t.Errorf("Update whose fn fails: %v, want fn's error itself", err)
	}
	if got := readFile(t, s, "d/f", 0); got != "one\ntwo\n" {
		t.Errorf("a failed Update left %q", got)
	}
	if got := listNames(t, s, "d"); !slices.Equal(got, []string{"f"}) {
		t.Errorf("after Updates d lists %q, want only f", got)
	}
}

func testUpdateErrors(t *testing.T, u vfs.Updater, _ config) {
	s := u.(vfs.Store)
	mustMkdir(t, s, "d", 0o755)
	mustWrite(t, s, "big", "0123456789", 0o644)
	called := func(name string) func([]byte, vfs.Info) ([]byte, error) {
		return func(old []byte, _ vfs.Info) ([]byte, error) {
			t.Errorf("Update(%q) called fn", name)
			return old, nil
		}
	}
	for name, code := range map[string]errno.Code{"missing": errno.ENOENT, "d": errno.EISDIR, "d/missing": errno.ENOENT} {
		wantCode(t, "Update("+name+")", u.Update(t.Context(), name, 1<<20, called(name)), code)
	}
	err := u.Update(t.Context(), "big", 9, called("big"))
	var tooLarge *vfs.TooLargeError
	if !errors.As(err, &tooLarge) || tooLarge.Size != 10 {
		t.Errorf("Update of 10 bytes with limit 9: %v, want a TooLargeError of size 10", err)
	}
}

// testUpdateLosesNoRace: when the file changes between the content fn
// got and the write of fn's result, nothing is written, Update fails
// with EAGAIN, and the other writer's change stays.
func testUpdateLosesNoRace(t *testing.T, u vfs.Updater, c config) {
	s := u.(vfs.Store)
	mustWrite(t, s, "f", "base\n", 0o644)
	err := u.Update(t.Context(), "f", 1<<20, func(old []byte, _ vfs.Info) ([]byte, error) {
		c.changeBehind(t, s, "f", []byte("theirs\n"))
		return []byte("mine\n"), nil
	})
	wantCode(t, "Update of a file changed meanwhile", err, errno.EAGAIN)
	if got := readFile(t, s, "f", 0); got != "theirs\n" {
		t.Errorf("after an Update that lost the race the file holds %q, want the other writer's %q", got, "theirs\n")
	}
}

// testUpdateConcurrent: writers incrementing one counter with Update,
// each trying again after EAGAIN, lose no increment.
func testUpdateConcurrent(t *testing.T, u vfs.Updater, _ config) {
	mustWrite(t, u.(vfs.Store), "n", "0", 0o644)
	UpdateConcurrent(t, u, "n", 4, 25)
}

// UpdateConcurrent runs writers goroutines that each increment rounds
// times the decimal counter in the file name with Update, trying again
// after EAGAIN, and fails the test unless the counter grew by
// writers*rounds, none lost, and no Update failed otherwise.
func UpdateConcurrent(t *testing.T, u vfs.Updater, name string, writers, rounds int) {
	t.Helper()
	s := u.(vfs.Store)
	start, err := strconv.Atoi(readFile(t, s, name, 0))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for range rounds {
				for {
					err := u.Update(t.Context(), name, 64, func(old []byte, _ vfs.Info) ([]byte, error) {
						n, err := strconv.Atoi(string(old))
						return []byte(strconv.Itoa(n + 1)), err
					})
					if errno.CodeOf(err) == errno.EAGAIN {
						continue
					}
					if err != nil {
						t.Errorf("Update: %v", err)
						return
					}
					break
				}
			}
		})
	}
	wg.Wait()
	if got := readFile(t, s, name, 0); got != strconv.Itoa(start+writers*rounds) {
		t.Errorf("%d writers x %d increments of %d left %s", writers, rounds, start, got)
	}
}

// testRevWriter: WriteFileIf and RemoveIf change a node only while it is
// at the revision given (0: absent), else EAGAIN and nothing changes.
func testRevWriter(t *testing.T, s vfs.Store, rw vfs.RevWriter) {
	ctx := t.Context()
	mustWrite(t, s, "f", "one", 0o644)
	rev := Lstat(t, s, "f").Rev
	if rev == 0 {
		t.Fatal("a RevWriter store gave a file revision 0")
	}
	write := func(name string, rev int64, data string) error {
		return rw.WriteFileIf(ctx, name, rev, bytes.NewReader([]byte(data)), 0o600)
	}
	wantCode(t, "WriteFileIf at an old revision", write("f", rev-1, "stale"), errno.EAGAIN)
	wantCode(t, "WriteFileIf(rev 0) of an existing file", write("f", 0, "stale"), errno.EAGAIN)
	wantCode(t, "WriteFileIf(rev) of a missing file", write("g", rev, "stale"), errno.EAGAIN)
	if got := readFile(t, s, "f", 0); got != "one" || exists(t, s, "g") {
		t.Errorf("refused conditional writes changed the store: f = %q, g exists %v", got, exists(t, s, "g"))
	}
	if err := write("f", rev, "two"); err != nil {
		t.Fatalf("WriteFileIf at the current revision: %v", err)
	}
	info := Lstat(t, s, "f")
	if got := readFile(t, s, "f", 0); got != "two" || info.Mode != 0o600 || info.Rev == rev {
		t.Errorf("after WriteFileIf: %q mode %#o rev %d (was %d)", got, info.Mode, info.Rev, rev)
	}
	if err := write("g", 0, "new"); err != nil || readFile(t, s, "g", 0) != "new" {
		t.Errorf("WriteFileIf(rev 0) of a missing file: %v", err)
	}
	wantCode(t, "RemoveIf at an old revision", rw.RemoveIf(ctx, "f", rev), errno.EAGAIN)
	if !exists(t, s, "f") {
		t.Error("a refused RemoveIf removed the file")
	}
	if err := rw.RemoveIf(ctx, "f", info.Rev); err != nil || exists(t, s, "f") {
		t.Errorf("RemoveIf at the current revision: %v, file exists %v", err, exists(t, s, "f"))
	}
	mustMkdir(t, s, "d", 0o755)
	mustWrite(t, s, "d/x", "x", 0o644)
	wantCode(t, "RemoveIf of a directory with entries", rw.RemoveIf(ctx, "d", Lstat(t, s, "d").Rev), errno.ENOTEMPTY)
}

// Clock is a settable clock for a store's WithClock option.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock that reads at.
func NewClock(at time.Time) *Clock { return &Clock{now: at} }

// Now is the time the clock was last set to.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set sets the clock.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

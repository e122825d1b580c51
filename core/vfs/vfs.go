// Package vfs is the workspace filesystem the tools run on: a tree rooted
// at "/", with absolute paths only, symbolic links resolved in workspace
// path space, and stores mounted at paths.
//
// A Store is a primitive tree (sqlitefs, memfs, hostfs) addressed by
// link-free relative names; it never follows a symbolic link. The
// Workspace is the namespace over the stores: it canonicalizes paths,
// follows links (40 at most, then ELOOP), routes each path to the store
// mounted there, refuses changes under read-only mounts, and words every
// failure exactly as the reference does (the texts come from package toolspec).
//
// vfs imports toolspec (for messages) and errno; it must not import core or
// any adapter.
package vfs

import (
	"context"
	"io"
	"unicode/utf16"

	"github.com/agenttools/agenttools/toolspec"
)

// FileType is the kind of a node.
type FileType uint8

// The node kinds.
const (
	TypeFile FileType = iota
	TypeDir
	TypeSymlink
	// TypeOther is a host node that is none of the above: a named pipe, a
	// socket, a device. ls shows it as neither file, directory nor link;
	// read treats it as no file; grep skips it.
	TypeOther
)

// String names the type as find reports it (the spec's find messages
// typeFile, typeDir, typeSymlink and typeOther).
func (t FileType) String() string {
	switch t {
	case TypeDir:
		return toolspec.MsgFindTypeDir
	case TypeSymlink:
		return toolspec.MsgFindTypeSymlink
	case TypeOther:
		return toolspec.MsgFindTypeOther
	}
	return toolspec.MsgFindTypeFile
}

// Info describes one node, as lstat sees it (a link is not followed).
type Info struct {
	// Name is the node's last path component ("" for the root).
	Name string
	Type FileType
	// Mode holds the permission bits (at most 0o7777), as in the reference;
	// a symbolic link reports 0o777.
	Mode uint32
	// Size is the length in bytes of a file, 0 for a directory, and the
	// length of the target of a symbolic link in UTF-16 code units, as the
	// reference reports it.
	Size int64
	// MTime is the modification time in milliseconds since 1970.
	MTime int64
	// Target is a symbolic link's target, verbatim.
	Target string
	// Rev is a number the store changes whenever the node changes (its
	// content, mode, target), larger than any it gave before; 0 for a
	// store that does not number changes. A mirror of the tree copies
	// only the nodes whose Rev moved.
	Rev int64
}

// IsDir reports whether the node is a directory.
func (i Info) IsDir() bool { return i.Type == TypeDir }

// Store is a primitive tree of directories, files and symbolic links.
//
// Names are relative and link-free: "" is the store's root, "a/b" is b in
// directory a; no name holds ".", "..", an empty element or a NUL. A
// Store never follows a symbolic link, and the Workspace only hands it
// names whose every element but the last it has seen to be a directory.
//
// Errors are *errno.Error values with a code; their text is the store's
// own and is not shown to a model as is (the Workspace words failures).
// A store may report a directory's size, a link's size and its root's
// name as it likes: the Workspace normalizes them (0, the target's
// UTF-16 length, the mount point's name). Implementations must be safe
// for concurrent use.
type Store interface {
	// Lstat describes the node at name without following a link.
	Lstat(ctx context.Context, name string) (Info, error)
	// ReadDir lists a directory's entries in raw byte order of their
	// names, skipping offset entries and returning at most limit (all of
	// them when limit < 0).
	ReadDir(ctx context.Context, name string, offset, limit int) ([]Info, error)
	// Open reads a regular file from byte offset to its end. The reader
	// sees the file as it was when opened, or fails; it never sees a write
	// half done.
	Open(ctx context.Context, name string, offset int64) (io.ReadCloser, error)
	// WriteFile creates or replaces the regular file at name with what r
	// holds and sets its permission bits to mode, atomically: a reader
	// sees the old content or the new one. Its parent directory exists.
	// When r fails, the old content stays and its error is returned.
	WriteFile(ctx context.Context, name string, r io.Reader, mode uint32) error
	// Create creates an empty regular file at name with permission bits
	// mode, whatever the process umask; EEXIST when anything is at name
	// (a dangling link included). Of concurrent creates of one name,
	// exactly one succeeds, across processes too for a store that
	// processes share. Its parent directory exists.
	Create(ctx context.Context, name string, mode uint32) error
	// Mkdir creates a directory with permission bits mode, whatever the
	// process umask. Its parent exists and name does not.
	Mkdir(ctx context.Context, name string, mode uint32) error
	// Symlink creates a symbolic link at name holding target verbatim.
	Symlink(ctx context.Context, target, name string) error
	// Remove removes a file, a symbolic link or an empty directory.
	Remove(ctx context.Context, name string) error
	// RemoveAll removes name and everything below it.
	RemoveAll(ctx context.Context, name string) error
	// Chmod sets the permission bits of a file or directory.
	Chmod(ctx context.Context, name string, mode uint32) error
}

// Updater is a Store that replaces a file's content with what fn makes
// of it without losing a concurrent change: fn's result is written only
// if the file is still the version fn was given. One call is one
// attempt. When anyone sharing the store (another process included)
// changed the file between the read and the write, nothing is written
// and Update fails with EAGAIN; the caller reads again
// (Workspace.Update retries). fn runs outside any lock that would hold
// up changes to other files, and may be slow.
//
// fn gets the current content and node; it must not change old, which
// may be the store's own bytes or what the store checks the file against
// before writing. A file longer than limit bytes
// is not read: Update returns a *TooLargeError. When fn returns an
// error, nothing is written and Update returns that error. The file
// keeps its mode (and, on a host, its owner). Errors as for Open and
// WriteFile (ENOENT, EISDIR, ...).
type Updater interface {
	Update(ctx context.Context, name string, limit int64, fn func(old []byte, info Info) ([]byte, error)) error
}

// PieceUpdater is an Updater whose fn may give the new content as
// Pieces, which it writes one after another without putting them
// together (hostfs streams them to its temporary file): an edit of a
// large file then holds the old content and its replacements, not a
// second copy of the file. The pieces may be parts of old: the store
// writes them before it lets go of old. Otherwise as Updater.Update.
type PieceUpdater interface {
	UpdatePieces(ctx context.Context, name string, limit int64, fn func(old []byte, info Info) (Pieces, error)) error
}

// Pieces is a file's content as byte slices that follow one another.
type Pieces [][]byte

// Len is the content's length in bytes.
func (p Pieces) Len() int {
	n := 0
	for _, b := range p {
		n += len(b)
	}
	return n
}

// Join is the content as one slice: the only piece itself when there is
// one (nil stays nil), else a copy.
func (p Pieces) Join() []byte {
	if len(p) == 1 {
		return p[0]
	}
	out := make([]byte, 0, p.Len())
	for _, b := range p {
		out = append(out, b...)
	}
	return out
}

// Reader reads the content. Its WriteTo (what io.Copy uses) hands each
// piece to the writer in one Write.
func (p Pieces) Reader() io.Reader { return &piecesReader{p: p} }

// piecesReader reads p from p[i][at:] on; p itself is left alone.
type piecesReader struct {
	p     Pieces
	i, at int
}

func (r *piecesReader) Read(b []byte) (int, error) {
	for r.i < len(r.p) && r.at == len(r.p[r.i]) {
		r.i, r.at = r.i+1, 0
	}
	if r.i == len(r.p) {
		return 0, io.EOF
	}
	n := copy(b, r.p[r.i][r.at:])
	r.at += n
	return n, nil
}

func (r *piecesReader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for ; r.i < len(r.p); r.i, r.at = r.i+1, 0 {
		if r.at == len(r.p[r.i]) {
			continue
		}
		n, err := w.Write(r.p[r.i][r.at:])
		total += int64(n)
		r.at += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// RevWriter is a Store that numbers its changes (Info.Rev) and can make
// a change only while a node is still at a revision, the check and the
// change one atomic step, even against other processes: a sync that
// copies what it saw at revision rev never overwrites a newer change.
// When the node moved on, the call fails with EAGAIN and changes
// nothing.
type RevWriter interface {
	// WriteFileIf is WriteFile done only while the node at name is at
	// revision rev; rev 0 means nothing may be at name.
	WriteFileIf(ctx context.Context, name string, rev int64, r io.Reader, mode uint32) error
	// RemoveIf is Remove (a file, a link or an empty directory) done
	// only while the node at name is at revision rev.
	RemoveIf(ctx context.Context, name string, rev int64) error
}

// PathStatter is a Store that describes the nodes along a path in one
// call: a store that answers each Lstat with a round trip (a query)
// answers a whole lookup with one. The Workspace uses it when a store
// has it, and one Lstat per element otherwise.
type PathStatter interface {
	// LstatPath describes the node at name and then those at
	// name/elems[0], name/elems[0]/elems[1], ... in that order, as Lstat
	// describes them (no link followed). It stops after the first that
	// is not a directory and before the first that does not exist, so
	// the result is shorter than 1+len(elems) then, and empty when
	// nothing is at name. Each elems[i] is one element (no "/", ".",
	// "..", NUL, not empty). Errors: EINVAL (a malformed name or
	// element), the store's own.
	LstatPath(ctx context.Context, name string, elems []string) ([]Info, error)
}

// HostDirStore is a Store over a directory of the host. A symbolic link
// whose absolute target names a place inside that directory, as the host
// spells it, is read as the same place inside the mount, so links a host
// tool wrote with absolute paths keep working; any other absolute target
// is a workspace path, as always.
type HostDirStore interface {
	Store
	// HostDirs are the absolute host paths of the directory (the path it
	// was opened with, and the same path with links resolved).
	HostDirs() []string
}

// UTF16Len is the length of s in UTF-16 code units, the length JavaScript
// reports for a string.
func UTF16Len(s string) int64 {
	n := int64(0)
	for _, r := range s {
		n += int64(utf16.RuneLen(r))
	}
	return n
}

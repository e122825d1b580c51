package vfs

import (
	"strconv"
	"strings"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/toolspec"
)

// Canonical returns the canonical form of a workspace path and its
// components: "." and empty elements collapse, ".." pops one element.
// It fails with EINVAL, worded as the reference words it, for an empty
// path, a relative one, one holding a NUL byte, or one whose ".." climbs
// above "/"; and, ours, for a canonical path longer than
// toolspec.WorkspaceMaxPathBytesDefault. The root is "/" with no components.
func Canonical(path string) (string, []string, error) {
	switch {
	case path == "":
		return "", nil, errno.New(errno.EINVAL, toolspec.MsgInvalidPathEmpty, path)
	case path[0] != '/':
		return "", nil, errno.New(errno.EINVAL, toolspec.MsgInvalidPathRelative(path), path)
	case strings.IndexByte(path, 0) >= 0:
		return "", nil, errno.New(errno.EINVAL, toolspec.MsgInvalidPathNUL(path), path)
	}
	parts := make([]string, 0, strings.Count(path, "/"))
	for _, part := range strings.Split(path, "/") {
		switch part {
		case "", ".":
		case "..":
			if len(parts) == 0 {
				return "", nil, errno.New(errno.EINVAL, toolspec.MsgInvalidPathEscapes(path), path)
			}
			parts = parts[:len(parts)-1]
		default:
			parts = append(parts, part)
		}
	}
	canon := "/" + strings.Join(parts, "/")
	if int64(len(canon)) > toolspec.WorkspaceMaxPathBytesDefault {
		return "", nil, pathTooLong(toolspec.WorkspaceMaxPathBytesDefault, path)
	}
	return canon, parts, nil
}

// pathTooLong is the refusal of path, longer than max bytes, showing
// its first 100 bytes.
func pathTooLong(max int64, path string) error {
	shown := path
	if len(shown) > 100 {
		shown = toolspec.MsgShortened(strings.ToValidUTF8(shown[:100], ""))
	}
	return errno.New(errno.EINVAL, toolspec.MsgPathTooLong(max, shown), path)
}

// NameTooLongError is a store's refusal to make a node whose name is
// longer than the store can keep (a database's index limit): Len bytes
// where Max is the most. It changes nothing. The Workspace words it as
// its own refusal of a path too long (EINVAL), with the limit that Max
// makes for the path.
type NameTooLongError struct {
	Len, Max int // bytes
}

func (e *NameTooLongError) Error() string {
	return "name of " + strconv.Itoa(e.Len) + " bytes, longer than the store's " + strconv.Itoa(e.Max)
}

// Unwrap gives the code: EINVAL, as the Workspace's own refusal.
func (e *NameTooLongError) Unwrap() error { return errno.EINVAL }

// Clean is the lexical normal form of an absolute or relative path, with
// ".." above the top dropped rather than refused (how a link target and
// the tool-set root option are read). An absolute path stays absolute.
func Clean(path string) string {
	var parts []string
	for _, part := range strings.Split(path, "/") {
		switch part {
		case "", ".":
		case "..":
			if len(parts) > 0 {
				parts = parts[:len(parts)-1]
			}
		default:
			parts = append(parts, part)
		}
	}
	if strings.HasPrefix(path, "/") {
		return "/" + strings.Join(parts, "/")
	}
	return strings.Join(parts, "/")
}

// Join appends a name to a canonical directory path.
func Join(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

// Base is the last component of a canonical path ("" for "/").
func Base(path string) string {
	return path[strings.LastIndexByte(path, '/')+1:]
}

// IsWithin reports whether path is root or below it (both canonical).
func IsWithin(path, root string) bool {
	return root == "/" || path == root || strings.HasPrefix(path, root+"/")
}

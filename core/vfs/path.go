package vfs

import (
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
		shown := path
		if len(shown) > 100 {
			shown = toolspec.MsgShortened(strings.ToValidUTF8(shown[:100], ""))
		}
		return "", nil, errno.New(errno.EINVAL, toolspec.MsgPathTooLong(toolspec.WorkspaceMaxPathBytesDefault, shown), path)
	}
	return canon, parts, nil
}

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

// Package errno holds the POSIX-style error codes of the workspace
// filesystem and the error type that carries them.
//
// A Code is what programs branch on (errors.Is(err, errno.ENOENT), or
// errors.Is(err, fs.ErrNotExist)). The text of an Error the workspace
// returns is the exact message the model sees, declared in
// spec/tools.cue, so callers never compare messages (a store's own errors
// carry the host's reason instead, and the workspace words them). This
// package imports only the standard library.
package errno

import (
	"errors"
	"io/fs"
)

// Code is a POSIX error name, such as ENOENT.
type Code string

// The codes the workspace uses.
const (
	ENOENT    Code = "ENOENT"    // no such file or directory
	ENOTDIR   Code = "ENOTDIR"   // a path component is not a directory
	EISDIR    Code = "EISDIR"    // the path is a directory
	EEXIST    Code = "EEXIST"    // the path exists
	ENOTEMPTY Code = "ENOTEMPTY" // the directory is not empty
	EINVAL    Code = "EINVAL"    // invalid argument, such as a relative path
	EROFS     Code = "EROFS"     // the path is on a read-only mount
	ELOOP     Code = "ELOOP"     // too many symbolic links
	EPERM     Code = "EPERM"     // not permitted, such as removing the root
	EACCES    Code = "EACCES"    // permission denied by the host
	EBUSY     Code = "EBUSY"     // a mount point is in use
	ENOSPC    Code = "ENOSPC"    // no space left on the host device
	EFBIG     Code = "EFBIG"     // too large
	EIO       Code = "EIO"       // any other input/output failure
	EAGAIN    Code = "EAGAIN"    // try again: the file changed while it was being read or updated
)

// Error returns the code's name.
func (c Code) Error() string { return string(c) }

// Is maps codes to the io/fs sentinel errors, as syscall.Errno does, so
// errors.Is(errno.ENOENT, fs.ErrNotExist) is true.
func (c Code) Is(target error) bool {
	switch target {
	case fs.ErrNotExist:
		return c == ENOENT
	case fs.ErrExist:
		return c == EEXIST || c == ENOTEMPTY
	case fs.ErrPermission:
		return c == EPERM || c == EACCES || c == EROFS
	case fs.ErrInvalid:
		return c == EINVAL
	}
	return false
}

// Error is a failure with a code, the exact model-facing message, and the
// workspace path it concerns (empty when none).
type Error struct {
	Code    Code
	Message string
	Path    string
	// Err is the underlying cause, if any (a host system error).
	Err error
}

// New returns an error with a code, a message and a path.
func New(code Code, message, path string) *Error {
	return &Error{Code: code, Message: message, Path: path}
}

// Error returns the message, which is the text the model sees.
func (e *Error) Error() string { return e.Message }

// Is reports whether target is e's code, or an io/fs sentinel e's code
// maps to.
func (e *Error) Is(target error) bool {
	if c, ok := target.(Code); ok {
		return c == e.Code
	}
	return e.Code.Is(target)
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// CodeOf returns the code of the first *Error or Code in err's chain, or
// "" when there is none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var c Code
	if errors.As(err, &c) {
		return c
	}
	return ""
}

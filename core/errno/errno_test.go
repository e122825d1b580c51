package errno_test

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/agenttools/agenttools/core/errno"

	_ "github.com/agenttools/agenttools/internal/goldentest"
)

func TestIs(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", errno.New(errno.ENOENT, "no such path: /x", "/x"))
	cases := []struct {
		target error
		want   bool
	}{
		{errno.ENOENT, true},
		{errno.EEXIST, false},
		{fs.ErrNotExist, true},
		{fs.ErrExist, false},
		{fs.ErrPermission, false},
	}
	for _, c := range cases {
		if got := errors.Is(err, c.target); got != c.want {
			t.Errorf("errors.Is(ENOENT error, %v) = %v, want %v", c.target, got, c.want)
		}
	}
	if errno.CodeOf(err) != errno.ENOENT || err.Error() != "wrapped: no such path: /x" {
		t.Errorf("CodeOf %q, text %q", errno.CodeOf(err), err.Error())
	}
	if errno.CodeOf(errors.New("plain")) != "" {
		t.Error("a plain error has a code")
	}
	for code, target := range map[errno.Code]error{errno.EROFS: fs.ErrPermission, errno.EACCES: fs.ErrPermission, errno.ENOTEMPTY: fs.ErrExist, errno.EINVAL: fs.ErrInvalid} {
		if !errors.Is(errno.New(code, "m", ""), target) {
			t.Errorf("%s is not %v", code, target)
		}
	}
}

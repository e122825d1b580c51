//go:build !unix

package execbackend

import (
	"errors"
	"os"

	"github.com/agenttools/agenttools/toolspec"
)

// privateDir makes dir (with create) and checks that it is a directory
// and not a symbolic link. Owners and permission bits are not checked
// here: on Windows the user's cache directory (%LocalAppData%) is
// private to the user by its access list.
func privateDir(dir string, create bool) error {
	if create {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
	}
	fi, err := lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return errors.New(toolspec.MsgExecMirrorNotDirectory(dir))
	}
	return nil
}

package pgfs_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core/vfs/pgfs"
)

// TestPasswordNeverShown: the errors of Open, Workspaces and
// RemoveWorkspace for URLs that are wrong in many ways never show the
// password, whether in the user part (net/url able to read the URL or
// not: a stray '%', '/' or '[') or in a password parameter.
func TestPasswordNeverShown(t *testing.T) {
	ctx := context.Background()
	for _, u := range []string{
		"postgres://bob:cr3t%x@h/db",
		"postgres://bob:cr3t/x@h/db",
		"postgres://bob:cr3t@[::1/db",
		"postgres://bob:cr3t@h:99999/db",
		"postgres://bob:cr3t@h/db?workspace=a&workspace=b",
		"postgres://bob:cr3t@h/db?workspace=%ff",
		"postgres://bob@h/db?password=cr3t&workspace=a&workspace=b",
		"postgres://bob@h/db?sslmode=bogus&password=cr3t",
		"postgres://bob@h:99999/db?password=cr3t",
		"postgres://bob:cr3t@127.0.0.1:1/db?password=cr3t",
	} {
		_, err := pgfs.Open(ctx, u)
		_, err2 := pgfs.Workspaces(ctx, u)
		err3 := pgfs.RemoveWorkspace(ctx, u, "w")
		_, _, err4 := pgfs.SplitURL(u)
		for _, err := range []error{err, err2, err3, err4} {
			if err != nil && strings.Contains(err.Error(), "cr3t") {
				t.Errorf("%s: the error shows the password: %v", u, err)
			}
		}
		if err == nil || err2 == nil || err3 == nil {
			t.Errorf("%s: no error: %v, %v, %v", u, err, err2, err3)
		}
	}
}

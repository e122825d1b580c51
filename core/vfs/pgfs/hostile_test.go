package pgfs_test

import (
	"context"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

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

// TestConnectBounded: a server that accepts connections and never
// answers (a wrong port, a proxy in front of a dead server) makes Open,
// Workspaces and RemoveWorkspace fail, without a deadline of the
// caller's, once the connection timeout passes, instead of hanging; a
// connect_timeout of the URL still rules.
func TestConnectBounded(t *testing.T) {
	defer pgfs.SetConnectTimeout(200 * time.Millisecond)()
	t.Setenv("PGCONNECT_TIMEOUT", "")
	os.Unsetenv("PGCONNECT_TIMEOUT")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var mu sync.Mutex
	var held []net.Conn
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	}()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	u := "postgres://bob@" + l.Addr().String() + "/db?sslmode=disable"
	calls := map[string]func(string) error{
		"Open":            func(u string) error { _, err := pgfs.Open(context.Background(), u); return err },
		"Workspaces":      func(u string) error { _, err := pgfs.Workspaces(context.Background(), u); return err },
		"RemoveWorkspace": func(u string) error { return pgfs.RemoveWorkspace(context.Background(), u, "w") },
	}
	for name, call := range calls {
		for _, u := range []string{u, u + "&connect_timeout=1"} {
			done := make(chan error, 1)
			go func() { done <- call(u) }()
			select {
			case err := <-done:
				if err == nil {
					t.Errorf("%s(%s) succeeded against a silent server", name, u)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("%s(%s) still waits for a silent server after 30 s", name, u)
			}
		}
	}
}

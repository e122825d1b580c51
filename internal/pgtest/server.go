// Package pgtest gives tests a real PostgreSQL server.
//
// The server is the one named by AGENTTOOLS_TEST_POSTGRES (a connection
// URL: .ci/run starts one with the pgserver command and sets it), or, when
// that is unset, one the test binary starts itself on first use (Start:
// initdb into a temporary directory and pg_ctl start, as the postgres user
// when the tests run as root, listening on a Unix socket only) and stops
// when its tests end (Main). Without PostgreSQL's programs, a test that
// needs the server skips and says why; under CI (CI or
// AGENTTOOLS_POSTGRES_REQUIRED set) it fails instead.
//
// pgtest imports pgx and the standard library; only tests and the
// pgserver command import it.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL names the environment variable that holds the URL of a running
// server for the tests (a superuser's: tests create databases).
const EnvURL = "AGENTTOOLS_TEST_POSTGRES"

// Server is a PostgreSQL server started by Start, in a directory of its
// own.
type Server struct {
	// Dir holds the cluster (data), its log (log) and its socket
	// directory (sock).
	Dir string
	// URL connects to its postgres database as the superuser postgres.
	URL    string
	bin    string
	asUser string // "postgres" when started as root, else ""
}

// StartOptions configures Start.
type StartOptions struct {
	// Durable keeps PostgreSQL's defaults (fsync, synchronous commit, full
	// page writes). Without it the server trades crash safety for speed,
	// as a test server may: its data lives as long as the tests.
	Durable bool
}

// Start makes a new cluster in dir (created if missing; empty) and starts
// its server, listening on a Unix socket in dir only (no TCP port). When
// this process runs as root, initdb (which refuses root) and the server
// run as the user postgres, which then owns dir. Errors: PostgreSQL's
// programs not found, no postgres user, initdb or pg_ctl failing (their
// output and the server's log are in the error).
func Start(ctx context.Context, dir string, opts StartOptions) (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "sock"), 0o700); err != nil {
		return nil, err
	}
	s := &Server{Dir: dir, bin: bin}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root, initdb needs the user postgres: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		for _, p := range []string{dir, filepath.Join(dir, "sock")} {
			if err := os.Chown(p, uid, gid); err != nil {
				return nil, err
			}
		}
		s.asUser = "postgres"
	}
	data := filepath.Join(dir, "data")
	if out, err := s.run(ctx, "initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	settings := []string{"-k", filepath.Join(dir, "sock"), "-c", "listen_addresses=", "-c", "max_connections=300"}
	if !opts.Durable {
		settings = append(settings, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	if out, err := s.run(ctx, "pg_ctl", "-D", data, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "-o", strings.Join(quoteAll(settings), " "), "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		return nil, fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	s.URL = (&url.URL{Scheme: "postgres", User: url.User("postgres"), Path: "/postgres",
		RawQuery: url.Values{"host": {filepath.Join(dir, "sock")}}.Encode()}).String()
	return s, nil
}

// quoteAll quotes each argument for pg_ctl's -o, which a shell splits.
func quoteAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return out
}

// Attach returns the server Start made in dir, to stop it from another
// process.
func Attach(dir string) *Server {
	s := &Server{Dir: dir}
	s.bin, _ = binDir()
	if os.Geteuid() == 0 {
		s.asUser = "postgres"
	}
	return s
}

// Stop stops the server (fast shutdown) and removes its directory.
func (s *Server) Stop() error {
	out, err := s.run(context.Background(), "pg_ctl", "-D", filepath.Join(s.Dir, "data"), "-m", "fast", "-w", "stop")
	if err != nil {
		err = fmt.Errorf("pg_ctl stop: %v\n%s", err, out)
	}
	return errors.Join(err, os.RemoveAll(s.Dir))
}

func (s *Server) run(ctx context.Context, prog string, args ...string) ([]byte, error) {
	path := filepath.Join(s.bin, prog)
	if s.asUser != "" {
		args = append([]string{"-u", s.asUser, "--", path}, args...)
		path = "runuser"
	}
	cmd := exec.CommandContext(ctx, path, args...)
	// The server must not hold the caller's output open (go test waits
	// for it): pg_ctl sends it to the log.
	cmd.Dir = s.Dir
	return cmd.CombinedOutput()
}

// binDir finds the directory of initdb and pg_ctl: the one on PATH, else
// the newest of Debian's /usr/lib/postgresql/*/bin.
func binDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		return filepath.Dir(p), nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int {
		va, _ := strconv.Atoi(filepath.Base(filepath.Dir(a)))
		vb, _ := strconv.Atoi(filepath.Base(filepath.Dir(b)))
		return va - vb
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "initdb")); err == nil {
			return dirs[i], nil
		}
	}
	return "", errors.New("PostgreSQL's programs (initdb, pg_ctl) are not installed: install the postgresql package, or set " + EnvURL + " to a server's URL")
}

// The server the tests of this binary use: the environment's, or one
// started on first use and stopped by Main.
var (
	once    sync.Once
	baseURL string
	started *Server
	failure error
	hasMain bool
)

// Main runs a package's tests (call it from TestMain) and stops the
// server they started, if any. A package whose tests call URL or
// Database must use it (or Run).
func Main(m *testing.M) {
	os.Exit(Run(m))
}

// Run is Main without the exit, for a TestMain that has more to clean
// up: it runs the tests, stops the server they started, and returns the
// exit status for os.Exit.
func Run(m *testing.M) int {
	hasMain = true
	code := m.Run()
	if started != nil {
		if err := started.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
		}
	}
	return code
}

// required reports whether a missing server fails the tests rather than
// skipping them.
func required() bool {
	return os.Getenv("CI") != "" || os.Getenv("AGENTTOOLS_POSTGRES_REQUIRED") != ""
}

// URL returns the URL of the tests' server (a superuser's, to its
// postgres database), starting one on first use when the environment
// names none. Without a server it skips t, or fails it under CI.
func URL(t testing.TB) string {
	t.Helper()
	once.Do(func() {
		if u := os.Getenv(EnvURL); u != "" {
			baseURL = u
			return
		}
		if !hasMain {
			failure = errors.New("pgtest: the package's TestMain must call pgtest.Main (or Run), which stops the server it starts")
			return
		}
		if runtime.GOOS == "windows" {
			failure = errors.New("no PostgreSQL server: set " + EnvURL)
			return
		}
		dir, err := os.MkdirTemp("", "agenttools-pg-")
		if err != nil {
			failure = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		s, err := Start(ctx, dir, StartOptions{})
		if err != nil {
			os.RemoveAll(dir)
			failure = fmt.Errorf("no PostgreSQL server: %w", err)
			return
		}
		started, baseURL = s, s.URL
	})
	if failure != nil {
		if required() {
			t.Fatal(failure)
		}
		t.Skip(failure)
	}
	return baseURL
}

// Database creates a new, empty database on the tests' server for t,
// dropped when t ends, and returns its URL.
func Database(t testing.TB) string {
	t.Helper()
	base := URL(t)
	var b [6]byte
	rand.Read(b[:])
	name := "t_" + hex.EncodeToString(b[:])
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Error(err)
		}
	})
	u, err := WithDatabase(base, name)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// WithDatabase returns the URL u naming database name instead.
func WithDatabase(u, name string) (string, error) {
	p, err := url.Parse(u)
	if err != nil {
		return "", err
	}
	p.Path = "/" + name
	p.RawPath = ""
	return p.String(), nil
}

// Params are the parts of the URL u (host, port, user, password, the
// database) as the parameters of a URL with an empty authority
// (postgres://?host=…&dbname=…, as libpq allows), for tests of that
// spelling.
func Params(t testing.TB, u string) url.Values {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	q := p.Query()
	if p.Hostname() != "" {
		q.Set("host", p.Hostname())
	}
	if p.Port() != "" {
		q.Set("port", p.Port())
	}
	if p.User != nil {
		q.Set("user", p.User.Username())
		if pw, ok := p.User.Password(); ok {
			q.Set("password", pw)
		}
	}
	q.Set("dbname", strings.TrimPrefix(p.Path, "/"))
	return q
}

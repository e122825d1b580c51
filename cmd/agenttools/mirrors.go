package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs/pgfs"
	"github.com/agenttools/agenttools/toolspec"
)

// mirrorsAbout is the mirrors command's help.
const mirrorsAbout = `Lists the exec mirrors in the user cache directory (one per --db whose exec ran without
--mirror: a copy of its /workspace, kept so that the next command copies only what
changed), least recently used first, with their size, last use and database. With
--prune, removes those not in use (a command running in a mirror holds its lock; a mirror
is only a cache: the next command on its database makes it again, copying the whole
workspace). Exit status 0, or 1 when a mirror could not be removed.`

// listMirrors runs the mirrors command: lists the default exec mirrors,
// or removes them.
func listMirrors(args []string, stdout, stderr io.Writer) (int, error) {
	fl := flags("mirrors", "[--prune] [--older-than DURATION]", mirrorsAbout, stdout)
	prune := fl.Bool("prune", false, "remove the mirrors listed, except those in use")
	olderThan := fl.String("older-than", "0", "only the mirrors last used longer ago than this: a Go duration (90m, 12h) or\na number of days (7d)")
	if err := fl.parse(args); err != nil {
		return 0, err
	}
	if fl.NArg() != 0 {
		return 0, usagef("mirrors", "takes no arguments, got %d", fl.NArg())
	}
	age, err := parseAge(*olderThan)
	if err != nil {
		return 0, usagef("mirrors", "--older-than: %v", err)
	}
	root, err := execbackend.MirrorCache()
	if err != nil {
		return 0, err
	}
	all, err := execbackend.Mirrors(root)
	if err != nil {
		return 0, err
	}
	cutoff := time.Now().Add(-age)
	var list []execbackend.MirrorInfo
	for _, m := range all {
		if age == 0 || m.LastUsed.Before(cutoff) {
			list = append(list, m)
		}
	}
	if !*prune {
		fmt.Fprintf(stdout, "%s: %s\n", root, countMirrors(len(list)))
		if len(list) == 0 {
			return 0, nil
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "MIRROR\tSIZE\tLAST USED\tDATABASE")
		var total int64
		for _, m := range list {
			total += m.Size
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", filepath.Base(m.Dir), toolspec.FormatSize(m.Size), lastUse(m), database(m.Key))
		}
		fmt.Fprintf(tw, "total\t%s\t\t\n", toolspec.FormatSize(total))
		return 0, tw.Flush()
	}
	code := 0
	var removed int
	var freed int64
	for _, m := range list {
		err := execbackend.RemoveMirror(m.Dir)
		switch {
		case errors.Is(err, execbackend.ErrMirrorInUse):
			fmt.Fprintf(stdout, "kept %s: %v\n", m.Dir, err)
		case err != nil:
			fmt.Fprintf(stderr, "agenttools mirrors: %s: %v\n", m.Dir, err)
			code = 1
		default:
			removed++
			freed += m.Size
			fmt.Fprintf(stdout, "removed %s (%s): %s\n", m.Dir, toolspec.FormatSize(m.Size), database(m.Key))
		}
	}
	fmt.Fprintf(stdout, "removed %s, %s\n", countMirrors(removed), toolspec.FormatSize(freed))
	return code, nil
}

// parseAge reads --older-than: a Go duration, or a number of days ("7d").
func parseAge(s string) (time.Duration, error) {
	var d time.Duration
	var err error
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n int64
		if n, err = strconv.ParseInt(days, 10, 64); err == nil && n > math.MaxInt64/int64(24*time.Hour) {
			err = strconv.ErrRange
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d < 0 {
		return 0, fmt.Errorf("want a duration such as 12h or 7d, got %q", s)
	}
	return d, nil
}

// lastUse says when a mirror was last used.
func lastUse(m execbackend.MirrorInfo) string {
	if m.InUse {
		return "in use"
	}
	return m.LastUsed.Local().Format("2006-01-02 15:04")
}

// countMirrors is "1 mirror" or "n mirrors".
func countMirrors(n int) string {
	if n == 1 {
		return "1 mirror"
	}
	return strconv.Itoa(n) + " mirrors"
}

// database names the database a mirror is for, saying when it is gone
// or was not recorded (a directory without a key file); a PostgreSQL
// workspace's is its URL (without the password).
func database(key string) string {
	if pgfs.IsURL(key) {
		// A workspace in a database server: whether it is still there
		// would take a connection, and the password, which the key
		// leaves out.
		return key
	}
	switch _, err := os.Stat(key); {
	case key == "":
		return "(not recorded)"
	case err != nil:
		return key + " (gone)"
	}
	return key
}

package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/agenttools/agenttools/core/vfs/pgfs"
	"github.com/agenttools/agenttools/toolspec"
)

// shownURL is the PostgreSQL URL u as the command shows it and names an
// exec mirror by: without a password (in its user part, a password
// parameter, or sslpassword, that of the client's TLS key), and with
// the workspace parameter naming the workspace u opens, even the
// default one, so that both spellings share one mirror; or, with
// withWorkspace false, without it (the database alone).
// Errors: SplitURL's, a URL net/url cannot read.
func shownURL(u string, withWorkspace bool) (string, error) {
	conn, workspace, err := pgfs.SplitURL(u)
	if err != nil {
		return "", err
	}
	p, err := url.Parse(conn)
	if err != nil {
		return "", err
	}
	if p.User != nil {
		p.User = url.User(p.User.Username())
	}
	q := p.Query()
	q.Del("password")
	q.Del("sslpassword")
	if withWorkspace {
		q.Set("workspace", workspace)
	}
	p.RawQuery = q.Encode()
	s := p.String()
	if p.Host == "" && p.User == nil {
		// net/url writes an empty authority without its "//"
		// (postgres:?host=…), which pgfs.IsURL, and so mirrors, would
		// not take for a URL.
		s = p.Scheme + "://" + strings.TrimPrefix(strings.TrimPrefix(s, p.Scheme+":"), "//")
	}
	return s, nil
}

// workspacesAbout is the workspaces command's help.
const workspacesAbout = `Lists the workspaces of the PostgreSQL database --db (a postgres:// or postgresql://
URL; its workspace parameter, which the other commands open, is ignored here), in byte
order of their names: each one's change counter (REV), its files, directories and links
(NODES, the root included) and the total size of its files. Changes nothing: a database
without workspace tables lists none. Exit status 0, or 2 for a usage error, a database
that cannot be reached or one that is not a workspace database.`

// listWorkspaces runs the workspaces command.
func listWorkspaces(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fl := flags("workspaces", "--db URL", workspacesAbout, stdout)
	db := fl.String("db", "", "the PostgreSQL database: postgres://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE[?PARAMS]")
	if err := fl.parse(args); err != nil {
		return 0, err
	}
	if fl.NArg() != 0 {
		return 0, usagef("workspaces", "takes no arguments, got %d", fl.NArg())
	}
	if !pgfs.IsURL(*db) {
		return 0, usagef("workspaces", "--db: want a PostgreSQL URL (postgres://…), got %q (an SQLite database holds one workspace)", *db)
	}
	shown, err := shownURL(*db, false)
	if err != nil {
		return 0, usagef("workspaces", "--db: %v", err)
	}
	list, err := pgfs.Workspaces(ctx, *db)
	if err != nil {
		return 0, fmt.Errorf("--db: %w", err)
	}
	n := strconv.Itoa(len(list)) + " workspaces"
	if len(list) == 1 {
		n = "1 workspace"
	}
	fmt.Fprintf(stdout, "%s: %s\n", shown, n)
	if len(list) == 0 {
		return 0, nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tREV\tNODES\tSIZE")
	for _, w := range list {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", workspaceName(w.Name), w.Rev, w.Nodes, toolspec.FormatSize(w.Bytes))
	}
	return 0, tw.Flush()
}

// workspaceName is a workspace's name as the listing shows it: quoted
// when it holds a tab, a line break or another character that would
// break the table or hide, else as it is.
func workspaceName(name string) string {
	if name == "" || strings.ContainsFunc(name, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) || !unicode.IsPrint(r) }) || strings.HasPrefix(name, `"`) {
		return strconv.Quote(name)
	}
	return name
}

// errNoWorkspace is the error of a command that needs the workspace the
// PostgreSQL URL u names, which its database does not hold.
func errNoWorkspace(u string) error {
	_, name, _ := pgfs.SplitURL(u)
	shown, _ := shownURL(u, false)
	return fmt.Errorf("--db: %s has no workspace %q ('agenttools workspaces --db URL' lists them)", shown, name)
}

package core_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/publish"
	"github.com/agenttools/agenttools/toolspec"
)

func okOut(url string) toolspec.Output {
	return toolspec.Output{Kind: toolspec.OutputJSON, JSON: []byte(`{"ok":true,"url":` + toolspec.QuoteJSON(url) + `}`)}
}

func failOut(msg string) toolspec.Output {
	return toolspec.Output{Kind: toolspec.OutputJSON, JSON: []byte(`{"ok":false,"error":` + toolspec.QuoteJSON(msg) + `}`)}
}

// TestPublishOffered: publish comes last, only with a publisher, and not
// in a read-only set or with Assets false, as in the reference.
func TestPublishOffered(t *testing.T) {
	shell := execbackend.NewScripted(execbackend.Info{ID: "shell"}, execbackend.NewScripts(nil))
	p := &publish.Scripted{}
	for _, tc := range []struct {
		name string
		opts core.Options
		want []string
	}{
		{"no publisher", core.Options{Backends: []execbackend.Backend{shell}}, []string{"read", "ls", "find", "grep", "write", "edit", "delete", "exec"}},
		{"publisher", core.Options{Backends: []execbackend.Backend{shell}, Publisher: p}, []string{"read", "ls", "find", "grep", "write", "edit", "delete", "exec", "publish"}},
		{"publisher without exec", core.Options{Publisher: p}, []string{"read", "ls", "find", "grep", "write", "edit", "delete", "publish"}},
		{"assets true", core.Options{Publisher: p, Assets: new(true)}, []string{"read", "ls", "find", "grep", "write", "edit", "delete", "publish"}},
		{"assets false", core.Options{Publisher: p, Assets: new(false)}, []string{"read", "ls", "find", "grep", "write", "edit", "delete"}},
		{"readonly", core.Options{Publisher: p, Readonly: true}, []string{"read", "ls", "find", "grep"}},
		{"prefix", core.Options{Publisher: p, Prefix: "ws_"}, []string{"ws_read", "ws_ls", "ws_find", "ws_grep", "ws_write", "ws_edit", "ws_delete", "ws_publish"}},
	} {
		var got []string
		for _, tool := range newExec(t, tc.opts, nil).Tools() {
			got = append(got, tool.Name)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: tools (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestPublishScripted: the publisher gets the path as written, the
// default expiry (one hour) or the call's, and the session prefix; its
// error text is the model's.
func TestPublishScripted(t *testing.T) {
	p := &publish.Scripted{Fail: map[string]string{"/workspace/secret.txt": "asset store refused the upload"}}
	ex := newExec(t, core.Options{Publisher: p}, map[string]string{"/workspace/a.txt": "a"})
	checkOutput(t, call(t, ex, "publish", `{"path":"/workspace/a.txt"}`), okOut("https://assets.example/workspace/a.txt?expiresAfter=3600000"))
	checkOutput(t, call(t, ex, "publish", `{"path":"/workspace/a.txt","expiresAfterMs":60000}`), okOut("https://assets.example/workspace/a.txt?expiresAfter=60000"))
	out := call(t, ex, "publish", `{"path":"/workspace/secret.txt"}`)
	checkOutput(t, out, failOut("asset store refused the upload"))
	if !out.IsError() {
		t.Errorf("a failed publish is not IsError")
	}
	// The scripted publisher reads no file: a missing or relative path
	// gets a link, as the oracle's does.
	checkOutput(t, call(t, ex, "publish", `{"path":"relative/chart.png"}`), okOut("https://assets.example/relative/chart.png?expiresAfter=3600000"))

	ex.Workspace().SetSessionID("s1")
	checkOutput(t, call(t, ex, "publish", `{"path":"/workspace/a.txt","expiresAfterMs":5000}`), okOut("https://assets.example/agent-s1/workspace/a.txt?expiresAfter=5000"))

	want := []publish.Share{
		{Path: "/workspace/a.txt", Opts: publish.Options{ExpiresAfter: time.Hour, ExpiresAfterMs: 3600000}},
		{Path: "/workspace/a.txt", Opts: publish.Options{ExpiresAfter: time.Minute, ExpiresAfterMs: 60000}},
		{Path: "/workspace/secret.txt", Opts: publish.Options{ExpiresAfter: time.Hour, ExpiresAfterMs: 3600000}},
		{Path: "relative/chart.png", Opts: publish.Options{ExpiresAfter: time.Hour, ExpiresAfterMs: 3600000}},
		{Path: "/workspace/a.txt", Opts: publish.Options{ExpiresAfter: 5 * time.Second, ExpiresAfterMs: 5000, Prefix: "agent-s1"}},
	}
	if diff := cmp.Diff(want, p.Shares()); diff != "" {
		t.Errorf("shares (-want +got):\n%s", diff)
	}
	if publish.DefaultExpiry != time.Hour {
		t.Errorf("DefaultExpiry = %v, want one hour", publish.DefaultExpiry)
	}
}

// TestPublishArguments: expiresAfterMs must be a positive integer and
// path non-empty; a refused call never reaches the publisher.
func TestPublishArguments(t *testing.T) {
	p := &publish.Scripted{}
	ex := newExec(t, core.Options{Publisher: p}, nil)
	for _, tc := range []struct{ args, problem string }{
		{`{"path":""}`, toolspec.MsgArgumentsTooShort("path", 1, 0)},
		{`{"path":"/workspace/a","expiresAfterMs":0}`, toolspec.MsgArgumentsNotAbove("expiresAfterMs", 0, "0")},
		{`{"path":"/workspace/a","expiresAfterMs":-5}`, toolspec.MsgArgumentsNotAbove("expiresAfterMs", 0, "-5")},
		{`{"path":"/workspace/a","expiresAfterMs":-1e400}`, toolspec.MsgArgumentsNotAbove("expiresAfterMs", 0, "-1e400")},
		{`{"path":"/workspace/a","expiresAfterMs":1.5}`, toolspec.MsgArgumentsNotInteger("expiresAfterMs", "1.5")},
		{`{"path":"/workspace/a","expiresAfterMs":9007199254740992}`, toolspec.MsgArgumentsTooBig("expiresAfterMs", 9007199254740991, "9007199254740992")},
		{`{"path":"/workspace/a","expiresAfterMs":"60"}`, toolspec.MsgArgumentsWrongType("expiresAfterMs", toolspec.TypeNameInteger, toolspec.TypeNameString)},
		{`{"path":"/workspace/a","prefix":"x"}`, toolspec.MsgArgumentsUnknown("prefix", "path, expiresAfterMs")},
	} {
		checkOutput(t, call(t, ex, "publish", tc.args), invalid("publish", tc.problem))
	}
	if got := p.Shares(); len(got) != 0 {
		t.Errorf("refused calls reached the publisher: %v", got)
	}
	// The smallest and the largest lifetime are taken, and the publisher
	// echoes the call's number, as the oracle's does, past the 292 years
	// a time.Duration holds too.
	for _, ms := range []string{"1", "9223372036854", "9223372036855", "9007199254740991"} {
		checkOutput(t, call(t, ex, "publish", `{"path":"/workspace/a","expiresAfterMs":`+ms+`}`), okOut("https://assets.example/workspace/a?expiresAfter="+ms))
	}
}

// readingPublisher publishes by reading the file (as a real publisher
// does) and answers a URL naming what it read, or Open's error.
type readingPublisher struct {
	opened []publish.Info
	errs   []error
}

func (r *readingPublisher) Publish(ctx context.Context, f publish.File, opts publish.Options) (string, error) {
	rc, info, err := f.Open(ctx)
	r.errs = append(r.errs, err)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return "", err
	}
	r.opened = append(r.opened, info)
	return "https://example.test" + info.Path + "?body=" + string(data), nil
}

// TestPublishOpen: File.Open resolves the path as every tool does (the
// root option, symbolic links) and opens a regular file, with the
// workspace's errors, which reach the model as ok:false.
func TestPublishOpen(t *testing.T) {
	p := &readingPublisher{}
	ex := newExec(t, core.Options{Publisher: p, Root: "/workspace"}, map[string]string{
		"/workspace/out/chart.png": "PNG",
		"/workspace/dir/":          "",
		"/secret.txt":              "s",
	})
	ws := ex.Workspace()
	if err := ws.Symlink(t.Context(), "/workspace/out/chart.png", "/workspace/latest.png"); err != nil {
		t.Fatal(err)
	}
	if err := ws.Symlink(t.Context(), "out", "/workspace/linkdir"); err != nil {
		t.Fatal(err)
	}
	checkOutput(t, call(t, ex, "publish", `{"path":"/workspace/out/chart.png"}`), okOut("https://example.test/workspace/out/chart.png?body=PNG"))
	checkOutput(t, call(t, ex, "publish", `{"path":"out/chart.png"}`), okOut("https://example.test/workspace/out/chart.png?body=PNG"))

	for _, tc := range []struct {
		args string
		want string
		code errno.Code
		is   error
	}{
		{`{"path":"/workspace/missing.png"}`, toolspec.MsgNoSuchFile("/workspace/missing.png"), errno.ENOENT, fs.ErrNotExist},
		{`{"path":"/workspace/dir"}`, toolspec.MsgIsDirectory("/workspace/dir"), errno.EISDIR, nil},
		{`{"path":"/secret.txt"}`, toolspec.MsgOutsideRoot("/workspace", "/secret.txt"), errno.EACCES, fs.ErrPermission},
		{`{"path":"../secret.txt"}`, toolspec.MsgOutsideRoot("/workspace", "../secret.txt"), errno.EACCES, fs.ErrPermission},
		// The root option refuses a path through a link below the root,
		// as the reference's does.
		{`{"path":"/workspace/linkdir/chart.png"}`, toolspec.MsgSymlinkInPath("/workspace/linkdir"), errno.EACCES, fs.ErrPermission},
		{`{"path":"/workspace/latest.png"}`, toolspec.MsgSymlinkInPath("/workspace/latest.png"), errno.EACCES, fs.ErrPermission},
	} {
		checkOutput(t, call(t, ex, "publish", tc.args), failOut(tc.want))
		err := p.errs[len(p.errs)-1]
		if errno.CodeOf(err) != tc.code || tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("%s: Open's error %#v, want code %s", tc.args, err, tc.code)
		}
	}

	// Without the root option links are followed anywhere in the
	// workspace, and a relative path is refused as by every tool.
	p2 := &readingPublisher{}
	ex2 := newExec(t, core.Options{Publisher: p2}, map[string]string{"/workspace/out/chart.png": "PNG"})
	if err := ex2.Workspace().Symlink(t.Context(), "out", "/workspace/linkdir"); err != nil {
		t.Fatal(err)
	}
	if err := ex2.Workspace().Symlink(t.Context(), "/workspace/linkdir/chart.png", "/workspace/latest.png"); err != nil {
		t.Fatal(err)
	}
	checkOutput(t, call(t, ex2, "publish", `{"path":"/workspace/linkdir/chart.png"}`), okOut("https://example.test/workspace/out/chart.png?body=PNG"))
	// A link to a file: the file's bytes, Info naming the file.
	checkOutput(t, call(t, ex2, "publish", `{"path":"/workspace/latest.png"}`), okOut("https://example.test/workspace/out/chart.png?body=PNG"))
	if got := p2.opened[len(p2.opened)-1]; got.Size != 3 || got.Path != "/workspace/out/chart.png" || got.ModTime.IsZero() {
		t.Errorf("Info of a linked file: %+v", got)
	}
	checkOutput(t, call(t, ex2, "publish", `{"path":"out/chart.png"}`), failOut(toolspec.MsgInvalidPathRelative("out/chart.png")))
}

// publisherFunc is a Publisher made of a function.
type publisherFunc func(ctx context.Context, f publish.File, opts publish.Options) (string, error)

func (p publisherFunc) Publish(ctx context.Context, f publish.File, opts publish.Options) (string, error) {
	return p(ctx, f, opts)
}

// TestPublishFailures: an empty URL is a failure (deviation
// publishEmptyURL); a cancelled call is a Go error, not a result, even
// when the publisher words it as its own failure.
func TestPublishFailures(t *testing.T) {
	empty := publisherFunc(func(context.Context, publish.File, publish.Options) (string, error) { return "", nil })
	ex := newExec(t, core.Options{Publisher: empty}, nil)
	checkOutput(t, call(t, ex, "publish", `{"path":"/workspace/a.txt"}`), failOut(toolspec.MsgPublishEmptyURL("/workspace/a.txt")))

	timeout := publisherFunc(func(context.Context, publish.File, publish.Options) (string, error) {
		return "", errors.New("upload: " + context.DeadlineExceeded.Error())
	})
	ex = newExec(t, core.Options{Publisher: timeout}, nil)
	// The publisher's own timeout, with the call's context alive, is the
	// model's to see.
	checkOutput(t, call(t, ex, "publish", `{"path":"/workspace/a.txt"}`), failOut("upload: context deadline exceeded"))

	ctx, cancel := context.WithCancel(t.Context())
	cancelling := publisherFunc(func(context.Context, publish.File, publish.Options) (string, error) {
		cancel()
		return "", errors.New("upload aborted")
	})
	ex = newExec(t, core.Options{Publisher: cancelling}, nil)
	if out, err := ex.Call(ctx, "publish", []byte(`{"path":"/workspace/a.txt"}`)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled during the publisher: %v, %s; want context.Canceled", err, out.JSON)
	}

	p := &publish.Scripted{}
	ex = newExec(t, core.Options{Publisher: p}, nil)
	if out, err := ex.Call(ctx, "publish", []byte(`{"path":"/workspace/a.txt"}`)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before: %v, %s; want context.Canceled", err, out.JSON)
	}
	if len(p.Shares()) != 0 {
		t.Errorf("a cancelled call reached the publisher: %v", p.Shares())
	}
}

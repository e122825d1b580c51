package local_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/publish/local"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/toolspec"
)

// TestThroughTheTool: the publish tool of a core tool set with the local
// publisher resolves the path as every tool does (the root option,
// relative paths, symbolic links) and answers ok:false, with the
// workspace's words, for what it cannot publish; the links it returns
// serve the file through a real HTTP server.
func TestThroughTheTool(t *testing.T) {
	ctx := t.Context()
	ws := vfs.New(memfs.New())
	ws.SetSessionID("s42")
	for path, content := range map[string]string{
		"/workspace/app/out/chart.svg": "<svg/>",
		"/workspace/secret.txt":        "outside the root",
	} {
		if err := ws.WriteFile(ctx, path, []byte(content), vfs.WriteOptions{CreateParents: true}); err != nil {
			t.Fatal(err)
		}
	}
	for target, link := range map[string]string{
		"/workspace/app/out/chart.svg": "/workspace/app/latest.svg",
		"/workspace/secret.txt":        "/workspace/app/leak.txt",
		"../secret.txt":                "/workspace/app/rel.txt",
	} {
		if err := ws.Symlink(ctx, target, link); err != nil {
			t.Fatal(err)
		}
	}
	p, _ := serve(t, "", local.Options{})
	tools, err := core.New(ws, core.Options{Publisher: p, Root: "/workspace/app"})
	if err != nil {
		t.Fatal(err)
	}
	publishCall := func(args string) map[string]any {
		t.Helper()
		out, err := tools.Call(ctx, toolspec.ToolPublish, []byte(args))
		if err != nil {
			t.Fatalf("publish %s: %v", args, err)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(out.JSON), &v); err != nil {
			t.Fatalf("publish %s: %v (%+v)", args, err, out)
		}
		return v
	}
	for _, args := range []string{`{"path":"out/chart.svg"}`, `{"path":"/workspace/app/out/chart.svg"}`, `{"path":"out/../out/chart.svg"}`} {
		got := publishCall(args)
		link, _ := got["url"].(string)
		if got["ok"] != true || !strings.Contains(link, "/agent-s42/workspace/app/out/chart.svg?") {
			t.Errorf("publish %s: %v", args, got)
			continue
		}
		if res := fetch(t, http.MethodGet, link); res.status != http.StatusOK || res.body != "<svg/>" || res.headers.Get("Content-Type") != "image/svg+xml" {
			t.Errorf("GET of %s's link: %d %q %q", args, res.status, res.body, res.headers.Get("Content-Type"))
		}
	}
	root := "/workspace/app"
	for args, want := range map[string]string{
		`{"path":"missing.txt"}`:                     toolspec.MsgNoSuchFile(root + "/missing.txt"),
		`{"path":"out"}`:                             toolspec.MsgIsDirectory(root + "/out"),
		`{"path":"../secret.txt"}`:                   toolspec.MsgOutsideRoot(root, "../secret.txt"),
		`{"path":"/workspace/secret.txt"}`:           toolspec.MsgOutsideRoot(root, "/workspace/secret.txt"),
		`{"path":"/workspace/app/../../etc/passwd"}`: toolspec.MsgOutsideRoot(root, "/workspace/app/../../etc/passwd"),
		// The root option refuses a path through a link, wherever it
		// leads, as the reference does.
		`{"path":"latest.svg"}`: toolspec.MsgSymlinkInPath(root + "/latest.svg"),
		`{"path":"leak.txt"}`:   toolspec.MsgSymlinkInPath(root + "/leak.txt"),
		`{"path":"rel.txt"}`:    toolspec.MsgSymlinkInPath(root + "/rel.txt"),
		// The call's own number, past the 292 years a time.Duration holds.
		`{"path":"out/chart.svg","expiresAfterMs":9007199254740991}`: toolspec.MsgPublishLocalExpiryTooLong(9007199254740991, local.DefaultMaxExpiry.Milliseconds()),
	} {
		if got := publishCall(args); got["ok"] != false || got["url"] != nil || got["error"] != want {
			t.Errorf("publish %s: %v, want ok:false %q", args, got, want)
		}
	}
	if n, _ := p.Live(); n != 3 {
		t.Errorf("%d copies kept, want the 3 published", n)
	}

	// Without the root option, a link is followed, and the link shows the
	// file it led to; .. above / is refused.
	tools, err = core.New(ws, core.Options{Publisher: p})
	if err != nil {
		t.Fatal(err)
	}
	got := publishCall(`{"path":"/workspace/app/leak.txt"}`)
	if link, _ := got["url"].(string); got["ok"] != true || !strings.Contains(link, "/agent-s42/workspace/secret.txt?") {
		t.Errorf("publish through a link: %v", got)
	} else if res := fetch(t, http.MethodGet, link); res.body != "outside the root" {
		t.Errorf("GET through a link: %d %q", res.status, res.body)
	}
	if got := publishCall(`{"path":"/../../etc/passwd"}`); got["ok"] != false || got["error"] != toolspec.MsgInvalidPathEscapes("/../../etc/passwd") {
		t.Errorf("publish above /: %v", got)
		t.Errorf("publish above /: %v", got)
	}
}

package s3_test

import (
	"encoding/json"
	"net/url"
	"regexp"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/mcp/mcptest"
	s3pub "github.com/agenttools/agenttools/core/publish/s3"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/toolspec"
)

// sessionKeyRE matches a link's path in bucket links with the session
// prefix of session s1, capturing the file's path.
var sessionKeyRE = regexp.MustCompile(`^/links/agent-s1/[0-9a-f]{16}/(.*)$`)

// callPublish calls the publish tool and returns the text the model
// reads.
func callPublish(t *testing.T, cs *sdk.ClientSession, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "publish", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	return res.Content[0].(*sdk.TextContent).Text
}

// failure is the model's text of a publish that failed with msg.
func failure(msg string) string {
	b, err := json.Marshal(msg)
	if err != nil {
		panic(err)
	}
	return `{"ok":false,"error":` + string(b) + `}`
}

// TestPublishToolOverMCP: the publish tool of an MCP server, with the S3
// publisher, called by the go-sdk client: a link that a plain HTTP
// client fetches, under the session's prefix; the lifetimes S3 cannot
// sign, a missing file, a directory and paths outside the root option
// are ok:false with their reasons; so is a bucket the server does not
// have, in the server's words.
func TestPublishToolOverMCP(t *testing.T) {
	g := startGateway(t, "links")
	ws := vfs.New(memfs.New())
	for p, content := range map[string]string{"/workspace/out/report.txt": "quarterly\n", "/workspace/dir/x": "x", "/secret.txt": "secret"} {
		if err := ws.WriteFile(t.Context(), p, []byte(content), vfs.WriteOptions{CreateParents: true}); err != nil {
			t.Fatal(err)
		}
	}
	ws.SetSessionID("s1")
	cs := mcptest.Connect(t, ws, agenttools.Options{Publisher: s3pub.New(g.client, s3pub.Options{Bucket: "links"}), Root: "/workspace"}, nil)

	for _, path := range []string{"/workspace/out/report.txt", "out/report.txt"} {
		text := callPublish(t, cs, map[string]any{"path": path, "expiresAfterMs": 60000})
		var res struct {
			OK  bool   `json:"ok"`
			URL string `json:"url"`
		}
		if err := json.Unmarshal([]byte(text), &res); err != nil || !res.OK {
			t.Fatalf("publish %s: %s, want ok:true", path, text)
		}
		u, err := url.Parse(res.URL)
		if err != nil {
			t.Fatal(err)
		}
		if m := sessionKeyRE.FindStringSubmatch(u.Path); m == nil || m[1] != "workspace/out/report.txt" {
			t.Errorf("publish %s: link path %q, want /links/agent-s1/<id>/workspace/out/report.txt", path, u.Path)
		}
		if status, body := get(t, res.URL); status != 200 || body != "quarterly\n" {
			t.Errorf("publish %s: GET the link: %d %q, want 200 %q", path, status, body, "quarterly\n")
		}
	}

	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": "/workspace/out/report.txt", "expiresAfterMs": 500}, toolspec.MsgPublishS3ExpiryRange(500, 1000, 604800000)},
		{map[string]any{"path": "/workspace/out/report.txt", "expiresAfterMs": 8 * 24 * 3600 * 1000}, toolspec.MsgPublishS3ExpiryRange(8*24*3600*1000, 1000, 604800000)},
		// The call's own number, past the 292 years a time.Duration holds.
		{map[string]any{"path": "/workspace/out/report.txt", "expiresAfterMs": int64(9007199254740991)}, toolspec.MsgPublishS3ExpiryRange(9007199254740991, 1000, 604800000)},
		{map[string]any{"path": "/workspace/missing.txt"}, toolspec.MsgNoSuchFile("/workspace/missing.txt")},
		{map[string]any{"path": "/workspace/dir"}, toolspec.MsgIsDirectory("/workspace/dir")},
		{map[string]any{"path": "/secret.txt"}, toolspec.MsgOutsideRoot("/workspace", "/secret.txt")},
		{map[string]any{"path": "../secret.txt"}, toolspec.MsgOutsideRoot("/workspace", "../secret.txt")},
	} {
		if got := callPublish(t, cs, tc.args); got != failure(tc.want) {
			t.Errorf("publish %v: %s, want %s", tc.args, got, failure(tc.want))
		}
	}
	if n := objectCount(t, g, "links"); n != 2 {
		t.Errorf("%d objects in the bucket, want the 2 published", n)
	}

	cs = mcptest.Connect(t, ws, agenttools.Options{Publisher: s3pub.New(g.client, s3pub.Options{Bucket: "gone"})}, nil)
	want := failure(toolspec.MsgPublishS3Failed("/workspace/out/report.txt", "gone", "NoSuchBucket: The specified bucket does not exist."))
	if got := callPublish(t, cs, map[string]any{"path": "/workspace/out/report.txt"}); got != want {
		t.Errorf("publish to a missing bucket: %s, want %s", got, want)
	}
}

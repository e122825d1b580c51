package publish_test

import (
	"context"
	"fmt"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/publish"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// A tool set with a publisher offers publish; Scripted answers the
// oracle's links without reading the file, and records what it was asked.
func Example() {
	ctx := context.Background()
	ws := vfs.New(memfs.New())
	_ = ws.WriteFile(ctx, "/workspace/out/chart.png", []byte("PNG"), vfs.WriteOptions{CreateParents: true})
	ws.SetSessionID("s1")
	p := &publish.Scripted{Fail: map[string]string{"/workspace/secret.txt": "asset store refused the upload"}}
	ex, err := core.New(ws, core.Options{Publisher: p})
	if err != nil {
		panic(err)
	}
	for _, args := range []string{
		`{"path":"/workspace/out/chart.png"}`,
		`{"path":"/workspace/out/chart.png","expiresAfterMs":60000}`,
		`{"path":"/workspace/secret.txt"}`,
	} {
		out, err := ex.Call(ctx, "publish", []byte(args))
		if err != nil {
			panic(err)
		}
		fmt.Println(string(out.JSON))
	}
	for _, s := range p.Shares() {
		fmt.Println(s.Path, s.Opts.ExpiresAfter, s.Opts.Prefix)
	}
	// Output:
	// {"ok":true,"url":"https://assets.example/agent-s1/workspace/out/chart.png?expiresAfter=3600000"}
	// {"ok":true,"url":"https://assets.example/agent-s1/workspace/out/chart.png?expiresAfter=60000"}
	// {"ok":false,"error":"asset store refused the upload"}
	// /workspace/out/chart.png 1h0m0s agent-s1
	// /workspace/out/chart.png 1m0s agent-s1
	// /workspace/secret.txt 1h0m0s agent-s1
}

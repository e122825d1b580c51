package local_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core/publish/local"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
)

// A Publisher served by an http.Server of yours, under /files/ of a mux
// that serves other things too, and handed to a tool set. BaseURL must be
// known before New, so the listener comes first (port 0 picks a free
// one). The handler answers the link's path with or without BaseURL's
// path, so the mux passes it on unstripped.
func Example() {
	ctx := context.Background()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	p, err := local.New(local.Options{BaseURL: "http://" + ln.Addr().String() + "/files"})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close() // the copies go with it: its links stop working
	mux := http.NewServeMux()
	mux.Handle("/files/", p)
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	defer srv.Close()

	ws := vfs.New(memfs.New())
	ws.SetSessionID("s1") // links then carry agent-s1
	if err := ws.WriteFile(ctx, "/workspace/report.txt", []byte("quarterly numbers\n"), vfs.WriteOptions{CreateParents: true}); err != nil {
		log.Fatal(err)
	}
	tools, err := raw.New(ws, agenttools.Options{Publisher: p})
	if err != nil {
		log.Fatal(err)
	}
	out, err := tools.Execute(ctx, "publish", []byte(`{"path":"/workspace/report.txt","expiresAfterMs":60000}`))
	if err != nil {
		log.Fatal(err)
	}
	var res struct {
		OK  bool   `json:"ok"`
		URL string `json:"url"`
	}
	if err := json.Unmarshal([]byte(out.AsText()), &res); err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.OK, strings.HasPrefix(res.URL, "http://"+ln.Addr().String()+"/files/agent-s1/workspace/report.txt?"))

	resp, err := http.Get(res.URL)
	if err != nil {
		log.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Print(resp.StatusCode, " ", resp.Header.Get("Content-Type"), " ", string(body))

	resp, err = http.Get(strings.Replace(res.URL, "report.txt", "other.txt", 1)) // any part changed
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode)

	out, _ = tools.Execute(ctx, "publish", []byte(`{"path":"/workspace/missing.txt"}`))
	fmt.Println(out.AsText())
	// Output:
	// true true
	// 200 text/plain; charset=utf-8 quarterly numbers
	// 403
	// {"ok":false,"error":"no such file: /workspace/missing.txt"}
}

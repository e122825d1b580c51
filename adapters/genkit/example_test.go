package genkit_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log"
	"slices"
	"strings"
	"time"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	"github.com/agenttools/agenttools"
	agentgenkit "github.com/agenttools/agenttools/adapters/genkit"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
)

// defineExampleModel registers a model that stands in for an LLM: it
// makes the given calls, one a turn (tool name, arguments), then answers
// "Done.", printing on each turn the tools it was sent (the first turn)
// (by name) and the tool responses it received.
func defineExampleModel(g *genkit.Genkit, calls [][2]string) ai.Model {
	turn := 0
	return genkit.DefineModel(g, "example", &ai.ModelOptions{
		Supports: &ai.ModelSupports{Multiturn: true, Tools: true, Media: true},
	}, func(_ context.Context, req *ai.ModelRequest, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
		if turn == 0 {
			var names []string
			for _, t := range req.Tools {
				names = append(names, t.Name)
			}
			slices.Sort(names) // Generate collects the definitions through a map: no order
			fmt.Println("tools:", strings.Join(names, " "))
		} else if last := req.Messages[len(req.Messages)-1]; last.Role == ai.RoleTool {
			for _, p := range last.Content {
				if p.IsToolResponse() {
					r := p.ToolResponse
					fmt.Printf("model received for %s: %q", r.Name, r.Output)
					for _, m := range r.Content {
						fmt.Printf(", media %s (%s...)", m.ContentType, m.Text[:22])
					}
					fmt.Println()
				}
			}
		}
		if turn == len(calls) {
			return &ai.ModelResponse{Request: req, Message: ai.NewModelTextMessage("Done."), FinishReason: ai.FinishReasonStop}, nil
		}
		c := calls[turn]
		turn++
		var input any
		if err := json.Unmarshal([]byte(c[1]), &input); err != nil {
			return nil, err
		}
		return &ai.ModelResponse{
			Request:      req, // as plugins do: an interrupted response's History needs it
			Message:      ai.NewModelMessage(ai.NewToolRequestPart(&ai.ToolRequest{Name: c[0], Ref: fmt.Sprint("call_", turn), Input: input})),
			FinishReason: ai.FinishReasonStop,
		}, nil
	})
}

// pixelPNG is a 1x1 PNG image.
var pixelPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")

// exampleWorkspace is an in-memory workspace with a notes file and an
// image under /workspace, on a clock stopped at 2026-01-01 so that the
// mtimes the tools report are stable.
func exampleWorkspace(ctx context.Context) *vfs.Workspace {
	stopped := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ws := vfs.New(memfs.New(memfs.WithClock(func() time.Time { return stopped })))
	for path, data := range map[string][]byte{
		"/workspace/notes.txt": []byte("status: draft\n"),
		"/workspace/pixel.png": pixelPNG,
	} {
		if err := ws.WriteFile(ctx, path, data, vfs.WriteOptions{CreateParents: true}); err != nil {
			log.Fatal(err)
		}
	}
	return ws
}

// The tools registered on a Genkit instance and used by Generate's own
// tool loop: a text read, an image read (a media part with a data: URI)
// and a write, then the model's answer.
func Example() {
	ctx := context.Background()
	g := genkit.Init(ctx) // no plugins: the model below stands in for one
	set, err := agentgenkit.Define(g, exampleWorkspace(ctx), agenttools.Options{})
	if err != nil {
		log.Fatal(err)
	}
	model := defineExampleModel(g, [][2]string{
		{"read", `{"path":"/workspace/notes.txt"}`},
		{"read", `{"path":"/workspace/pixel.png"}`},
		{"write", `{"path":"/workspace/notes.txt","content":"status: final\n"}`},
	})
	// agentgenkit.Generate is genkit.Generate with the tools' calls bound to
	// it: when a turn fails, none of them is left running.
	resp, err := agentgenkit.Generate(ctx, g,
		ai.WithModel(model),
		ai.WithPrompt("Mark the notes final."),
		ai.WithTools(set.Refs()...),
		ai.WithMaxTurns(5))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("answer:", resp.Text())
	// Output:
	// tools: delete edit find grep ls read write
	// model received for read: "status: draft"
	// model received for read: "Read /workspace/pixel.png (image/png, 70 bytes).", media image/png (data:image/png;base64,...)
	// model received for write: "{\"path\":\"/workspace/notes.txt\",\"bytesWritten\":14}"
	// answer: Done.
}

// Tools built without registering them, passed to one Generate call; a
// read-only set has no write, edit or delete.
func ExampleNew() {
	ctx := context.Background()
	g := genkit.Init(ctx)
	set, err := agentgenkit.New(exampleWorkspace(ctx), agenttools.Options{Readonly: true})
	if err != nil {
		log.Fatal(err)
	}
	model := defineExampleModel(g, [][2]string{{"grep", `{"query":"status"}`}})
	resp, err := agentgenkit.Generate(ctx, g,
		ai.WithModel(model),
		ai.WithPrompt("What is the status?"),
		ai.WithTools(set.Refs()...),
		ai.WithMaxTurns(3))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("answer:", resp.Text())
	// Output:
	// tools: find grep ls read
	// model received for grep: "{\"path\":\"/workspace\",\"query\":\"status\",\"count\":1,\"matches\":[{\"path\":\"/workspace/notes.txt\",\"line\":1,\"text\":\"status: draft\"}]}"
	// answer: Done.
}

// Two workspaces in one Genkit instance, each set under its own prefix
// (Options.Prefix): one registered with Define, one built with New and
// checked against g with RefsFor. A call with a bad argument is answered
// with the invalid-arguments text, and the run goes on.
func ExampleTools_RefsFor() {
	ctx := context.Background()
	g := genkit.Init(ctx)
	wsB := vfs.New(memfs.New())
	if err := wsB.WriteFile(ctx, "/workspace/notes.txt", []byte("status: other\n"), vfs.WriteOptions{CreateParents: true}); err != nil {
		log.Fatal(err)
	}
	a, err := agentgenkit.Define(g, exampleWorkspace(ctx), agenttools.Options{Prefix: "a_", Readonly: true})
	if err != nil {
		log.Fatal(err)
	}
	b, err := agentgenkit.New(wsB, agenttools.Options{Prefix: "b_", Readonly: true})
	if err != nil {
		log.Fatal(err)
	}
	refsB, err := b.RefsFor(g) // fails when g holds other tools of these names
	if err != nil {
		log.Fatal(err)
	}
	model := defineExampleModel(g, [][2]string{
		{"a_read", `{"path":"/workspace/notes.txt"}`},
		{"b_read", `{"path":"/workspace/notes.txt"}`},
		{"b_read", `{"path":42}`},
	})
	resp, err := agentgenkit.Generate(ctx, g,
		ai.WithModel(model),
		ai.WithPrompt("Compare the notes."),
		ai.WithTools(append(a.Refs(), refsB...)...),
		ai.WithMaxTurns(5))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("answer:", resp.Text())
	// Output:
	// tools: a_find a_grep a_ls a_read b_find b_grep b_ls b_read
	// model received for a_read: "status: draft"
	// model received for b_read: "status: other"
	// model received for b_read: "Invalid input for tool b_read: path must be a string, got a number"
	// answer: Done.
}

// Approval of the mutating tools (Options.Approve): each write or delete
// interrupts the generation; Approve resumes it with the human's
// decision. The approved write runs; the refused delete changes nothing,
// and the model is told so.
func ExampleTools_Approve() {
	ctx := context.Background()
	g := genkit.Init(ctx)
	set, err := agentgenkit.Define(g, exampleWorkspace(ctx), agenttools.Options{Approve: []string{agenttools.ApproveMutating}})
	if err != nil {
		log.Fatal(err)
	}
	model := defineExampleModel(g, [][2]string{
		{"write", `{"path":"/workspace/notes.txt","content":"status: final\n"}`},
		{"delete", `{"path":"/workspace/pixel.png"}`},
	})
	opts := []ai.GenerateOption{ai.WithModel(model), ai.WithTools(set.Refs()...), ai.WithMaxTurns(5)}
	resp, err := agentgenkit.Generate(ctx, g, append(opts, ai.WithPrompt("Mark the notes final and tidy up."))...)
	for err == nil && resp.FinishReason == ai.FinishReasonInterrupted {
		var approve ai.GenerateOption
		approve, err = set.Approve(resp, func(req agenttools.ApprovalRequest) bool {
			yes := req.Tool == "write" // a human's answer
			fmt.Printf("approve %s %s? %t\n", req.Tool, req.Arguments, yes)
			return yes
		})
		if err != nil {
			log.Fatal(err)
		}
		resp, err = agentgenkit.Generate(ctx, g, append(opts, ai.WithMessages(resp.History()...), approve)...)
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("answer:", resp.Text())
	// Output:
	// tools: delete edit find grep ls read write
	// approve write {"content":"status: final\n","path":"/workspace/notes.txt"}? true
	// model received for write: "{\"path\":\"/workspace/notes.txt\",\"bytesWritten\":14}"
	// approve delete {"path":"/workspace/pixel.png"}? false
	// model received for delete: "{\"error\":\"The user did not approve this delete call; nothing was changed.\"}"
	// answer: Done.
}

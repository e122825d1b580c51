package genkit

import (
	"context"
	"runtime"
	"strings"
	"sync"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
)

// Generate is genkit.Generate with the calls of every tool of this
// package bound to it (see Bound).
func Generate(ctx context.Context, g *genkit.Genkit, opts ...ai.GenerateOption) (*ai.ModelResponse, error) {
	return Bound(ctx, func(ctx context.Context) (*ai.ModelResponse, error) {
		return genkit.Generate(ctx, g, opts...)
	})
}

// Bound runs call, one run of Genkit's loop on ctx (genkit.Generate,
// genkit.GenerateData, a prompt's Execute, ...), with the calls of every
// tool of this package that it makes bound to it: when call returns,
// the calls still running are cancelled (a running command is killed),
// and none leaves a goroutine behind.
//
// Genkit runs the tool requests of a turn concurrently, one goroutine
// each (and so the restarted calls of an interrupted generation it
// resumes), and when one of them fails (a tool's error, an unknown tool)
// Generate returns at once: the others go on running, and each then
// waits forever to hand Genkit a result nobody reads (an unbuffered
// channel send in ai.handleToolRequests). Under Bound such a call is
// cancelled when call returns, and ends its goroutine with
// runtime.Goexit (which runs the deferred calls, so Genkit's trace span
// ends) instead of returning to Genkit. So does a call that ends after
// another of ours in the same run returned a Go error (a cancelled
// context), which stops the run. Only a goroutine Genkit started for a
// tool request or a restart is ended so: a call of ours made by other code (the caller
// directly, or a tool of the caller's that calls ours) returns to it, and
// its error does not stop the run. Calls of other tools are Genkit's to
// bound.
func Bound[T any](ctx context.Context, call func(context.Context) (T, error)) (T, error) {
	gen := &generation{returned: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.WithValue(ctx, generationKey{}, gen))
	defer cancel()
	// returned is closed before the cancel, so that a call the cancel
	// ends sees it.
	defer close(gen.returned)
	return call(ctx)
}

// generation is one run of Bound.
type generation struct {
	// returned is closed when the run has returned.
	returned chan struct{}
	// failed holds the Done channel of each context on which a call of
	// ours returned a Go error to Genkit, which ended the Genkit run on
	// that context; not the runs the caller starts after it on others.
	failed sync.Map
}

type generationKey struct{}

// settle is called when a call on ctx has ended with err, before it
// returns to Genkit: it ends the goroutine when Genkit will not take the
// result. Genkit takes a turn's results until it gets the first error,
// so once one of our calls returned an error, the later ones of that
// turn, which Genkit called on the same context, need not return: that
// error ends Genkit's wait.
func (g *generation) settle(ctx context.Context, err error) {
	if !genkitCall() {
		return
	}
	select {
	case <-g.returned:
		runtime.Goexit()
	default:
	}
	// Our calls return a Go error only when their context ended.
	done := ctx.Done()
	if done == nil {
		return
	}
	if err != nil {
		if _, taken := g.failed.LoadOrStore(done, struct{}{}); taken {
			runtime.Goexit()
		}
		return
	}
	if _, ok := g.failed.Load(done); ok {
		runtime.Goexit()
	}
}

// Function names of the frames genkitCall knows (runtime.Frame.Function).
const (
	genkitFrames = "github.com/firebase/genkit/go/"
	// Genkit's goroutine for one tool request, in Genkit v1.4.0, and
	// for one restarted call of an interrupted generation.
	toolRequestFrame = genkitFrames + "ai.handleToolRequests.func"
	restartFrame     = genkitFrames + "ai.handleResumeOption.func"
	ourFrames        = "github.com/agenttools/agenttools/adapters/genkit."
)

// genkitCall reports whether the running goroutine is one that Genkit's
// loop started for a tool request or a restarted call, running our tool
// for it with only
// Genkit's and this package's tool plumbing in between. Genkit waits for
// such a call's result, and a Go error it returns ends the run; a call
// made by anyone else (the caller directly, a tool of the caller's that
// calls ours and answers the model itself, a Bound inside a tool) returns
// to its caller, so settle must never end its goroutine.
func genkitCall() bool {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		switch fn := f.Function; {
		case strings.HasPrefix(fn, toolRequestFrame), strings.HasPrefix(fn, restartFrame):
			return true
		case strings.HasPrefix(fn, genkitFrames),
			strings.HasPrefix(fn, ourFrames+"(*Tools)."),
			strings.HasPrefix(fn, ourFrames+"(*action)."),
			strings.HasPrefix(fn, ourFrames+"(*generation)."):
		default:
			return false
		}
		if !more {
			return false
		}
	}
}

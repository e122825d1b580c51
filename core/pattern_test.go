package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/core"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/toolspec"
)

// TestPatternLengthIsCapped checks the argument caps of deviation
// patternLength: a glob (find's pattern, grep's include and exclude, each
// string of a list) of up to toolspec.WorkspaceMaxPathBytesDefault bytes and a
// query of up to toolspec.GrepMaxQueryBytesDefault bytes run; one byte more is
// refused with the invalid-argument text, before the tool runs. The globs
// of one include or exclude list hold at most
// toolspec.WorkspaceMaxGlobListBytesDefault bytes together, and a list holds
// at most toolspec.WorkspaceMaxGlobListItemsDefault globs (checked first: a
// list too long is one problem, whatever its items).
func TestPatternLengthIsCapped(t *testing.T) {
	ex := newExec(t, core.Options{}, map[string]string{"/workspace/a.txt": "hello\n"})
	globMax := int(toolspec.WorkspaceMaxPathBytesDefault)
	queryMax := int(toolspec.GrepMaxQueryBytesDefault)
	listMax := int(toolspec.WorkspaceMaxGlobListBytesDefault)
	itemsMax := int(toolspec.WorkspaceMaxGlobListItemsDefault)
	// strList is a JSON list of n copies of item.
	strList := func(n int, item any) string {
		data, _ := json.Marshal(slices.Repeat([]any{item}, n))
		return string(data)
	}
	glob := func(n int) string { return strings.Repeat("*", n) }
	// globs is a JSON list of globs of globMax bytes, the last one extra
	// bytes longer or shorter, holding total bytes together.
	globs := func(total int) string {
		var list []string
		for ; total > globMax; total -= globMax {
			list = append(list, strings.Repeat("a", globMax))
		}
		list = append(list, strings.Repeat("b", total))
		data, _ := json.Marshal(list)
		return string(data)
	}
	for _, c := range []struct {
		tool    string
		args    string
		problem string // "" for a call that runs
	}{
		{toolspec.ToolFind, findArgs(toolspec.FindArgs{Path: "/workspace", Pattern: glob(globMax)}), ""},
		{toolspec.ToolFind, findArgs(toolspec.FindArgs{Path: "/workspace", Pattern: glob(globMax + 1)}), toolspec.MsgArgumentsTooLong("pattern", int64(globMax), int64(globMax+1))},
		{toolspec.ToolFind, fmt.Sprintf(`{"pattern":"**","exclude":%q}`, glob(globMax)), ""},
		{toolspec.ToolFind, fmt.Sprintf(`{"pattern":"**","exclude":%q}`, glob(globMax+1)), toolspec.MsgArgumentsTooLong("exclude", int64(globMax), int64(globMax+1))},
		{toolspec.ToolFind, fmt.Sprintf(`{"pattern":"**","exclude":["x",%q]}`, glob(2*globMax)), toolspec.MsgArgumentsTooLong("exclude[1]", int64(globMax), int64(2*globMax))},
		{toolspec.ToolGrep, fmt.Sprintf(`{"query":"hello","include":%q}`, glob(globMax)), ""},
		{toolspec.ToolGrep, fmt.Sprintf(`{"query":"hello","include":[%q]}`, glob(globMax+1)), toolspec.MsgArgumentsTooLong("include[0]", int64(globMax), int64(globMax+1))},
		{toolspec.ToolGrep, fmt.Sprintf(`{"query":"hello","exclude":%q}`, glob(globMax+1)), toolspec.MsgArgumentsTooLong("exclude", int64(globMax), int64(globMax+1))},
		{toolspec.ToolFind, fmt.Sprintf(`{"pattern":"**","exclude":%s}`, globs(listMax)), ""},
		{toolspec.ToolFind, fmt.Sprintf(`{"pattern":"**","exclude":%s}`, globs(listMax+1)), toolspec.MsgArgumentsTooLong("exclude", int64(listMax), int64(listMax+1))},
		{toolspec.ToolGrep, fmt.Sprintf(`{"query":"hello","include":%s}`, globs(listMax)), ""},
		{toolspec.ToolGrep, fmt.Sprintf(`{"query":"hello","include":%s}`, globs(2*listMax)), toolspec.MsgArgumentsTooLong("include", int64(listMax), int64(2*listMax))},
		{toolspec.ToolGrep, fmt.Sprintf(`{"query":"hello","exclude":%s}`, globs(listMax+1)), toolspec.MsgArgumentsTooLong("exclude", int64(listMax), int64(listMax+1))},
		{toolspec.ToolFind, fmt.Sprintf(`{"pattern":"**","exclude":%s}`, strList(itemsMax, "**/x")), ""},
		{toolspec.ToolFind, fmt.Sprintf(`{"pattern":"**","exclude":%s}`, strList(itemsMax+1, "**/x")), toolspec.MsgArgumentsTooMany("exclude", int64(itemsMax), int64(itemsMax+1))},
		{toolspec.ToolGrep, fmt.Sprintf(`{"query":"hello","include":%s}`, strList(itemsMax, "*.txt")), ""},
		{toolspec.ToolGrep, fmt.Sprintf(`{"query":"hello","include":%s}`, strList(100000, "")), toolspec.MsgArgumentsTooMany("include", int64(itemsMax), 100000)},
		{toolspec.ToolGrep, fmt.Sprintf(`{"query":"hello","exclude":%s}`, strList(itemsMax+1, 1)), toolspec.MsgArgumentsTooMany("exclude", int64(itemsMax), int64(itemsMax+1))},
		{toolspec.ToolGrep, fmt.Sprintf(`{"query":%q}`, strings.Repeat("é", queryMax/2)), ""},
		{toolspec.ToolGrep, fmt.Sprintf(`{"query":%q}`, strings.Repeat("é", queryMax/2)+"x"), toolspec.MsgArgumentsTooLong("query", int64(queryMax), int64(queryMax+1))},
		{toolspec.ToolGrep, fmt.Sprintf(`{"query":%q,"regex":true}`, strings.Repeat("a|", queryMax)), toolspec.MsgArgumentsTooLong("query", int64(queryMax), int64(2*queryMax))},
	} {
		out := call(t, ex, c.tool, c.args)
		if c.problem == "" {
			if out.Kind != toolspec.OutputJSON || strings.Contains(string(out.JSON), `"error"`) {
				t.Errorf("%s %.80s: %.300s", c.tool, c.args, out.Text+string(out.JSON))
			}
			continue
		}
		checkOutput(t, out, invalid(c.tool, c.problem))
	}
}

// cancelStore is a store that cancels the call it serves once it has
// listed the directory "workspace/big" or given the first bytes of the
// file "workspace/big.txt": the hook stands for a client that gives up
// while the tool is inside one directory or one file.
type cancelStore struct {
	vfs.Store
	cancel context.CancelFunc
}

func (s cancelStore) ReadDir(ctx context.Context, name string, offset, limit int) ([]vfs.Info, error) {
	entries, err := s.Store.ReadDir(ctx, name, offset, limit)
	if name == "workspace/big" {
		s.cancel()
	}
	return entries, err
}

func (s cancelStore) Open(ctx context.Context, name string, offset int64) (io.ReadCloser, error) {
	r, err := s.Store.Open(ctx, name, offset)
	if err != nil || name != "workspace/big.txt" {
		return r, err
	}
	return cancelReader{r, s.cancel}, nil
}

type cancelReader struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (r cancelReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	r.cancel()
	return n, err
}

// TestSearchStopsWithinOneDirectoryOrFile cancels find in the middle of
// one directory of 3000 entries, and grep in the middle of one file of
// 20,000 lines (one read from the store): each answers the context's
// error instead of going on to fill a page.
func TestSearchStopsWithinOneDirectoryOrFile(t *testing.T) {
	files := map[string]string{"/workspace/big.txt": strings.Repeat("x\n", 20000)}
	for i := range 3000 {
		files[fmt.Sprintf("/workspace/big/f%04d", i)] = ""
	}
	for _, c := range []struct{ tool, args string }{
		{toolspec.ToolFind, `{"path":"/workspace/big","pattern":"*","limit":1000}`},
		{toolspec.ToolGrep, `{"path":"/workspace/big.txt","query":"x","limit":1000}`},
	} {
		t.Run(c.tool, func(t *testing.T) {
			store := memfs.New()
			populate(t, vfs.New(store), files)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			ex, err := core.New(vfs.New(cancelStore{store, cancel}), core.Options{})
			if err != nil {
				t.Fatal(err)
			}
			out, err := ex.Call(ctx, c.tool, []byte(c.args))
			if !errors.Is(err, context.Canceled) {
				t.Errorf("got %.200s, %v; want context.Canceled", out.Text+string(out.JSON), err)
			}
		})
	}
}

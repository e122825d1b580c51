package bench

// The system's own calls, for the hostfs rows whose time is mostly the
// operating system's: listing a directory, removing a tree, replacing a
// file. Store "system" builds each case's tree on a host directory, as
// hostfs does, and times, in this process, the calls a plain program
// makes for the same result, with nothing of agenttools in between:
//
//   - ls: the directory's names (getdents), sorted, and an lstat of each
//     entry of the page (ls -f plus a stat of the page's entries), a
//     page at a time for a paged row;
//   - delete: os.RemoveAll (rm -rf);
//   - write: the content into a new file beside the target, fsync, and a
//     rename over the target (cp, sync and mv; hostfs acknowledges a
//     write only once it is on disk, so the fsync belongs to both);
//   - find: a walk in sorted order, each directory's names and types
//     read (getdents) and sorted, the names matched against the
//     pattern's last element (find -name, with the sort find's callers
//     add), until the page is full, from the top again for each page.
//
// Rows of other tools are not run. The table sets hostfs against these
// rows: the goal for them is within 1.5 times.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agenttools/agenttools/internal/replay"
	"github.com/agenttools/agenttools/toolspec"
)

// SystemStore names the system's own calls as a store (see system.go).
const SystemStore = "system"

// SystemGoal is the largest hostfs ÷ system ratio the issue accepts.
const SystemGoal = 1.5

// systemTools are the tools the system side times.
var systemTools = []string{toolspec.ToolLs, toolspec.ToolDelete, toolspec.ToolWrite, toolspec.ToolFind}

// hostPath maps a workspace path under /workspace to the host directory
// mounted there.
func hostPath(dir, p string) (string, error) {
	rest, ok := strings.CutPrefix(p, toolspec.WorkspaceRoot)
	if !ok || (rest != "" && rest[0] != '/') {
		return "", fmt.Errorf("system: %s is not under %s", p, toolspec.WorkspaceRoot)
	}
	return filepath.Join(dir, filepath.FromSlash(rest)), nil
}

// systemCall does with plain system calls what one call of the tool
// does with args; it returns the calls a paged listing took.
func systemCall(tool, target string, args replay.Object) (int, error) {
	switch tool {
	case toolspec.ToolLs:
		offset, limit := page(args, int(toolspec.LsPageDefault))
		return systemList(target, offset, limit, false)
	case toolspec.ToolDelete:
		return 1, os.RemoveAll(target)
	case toolspec.ToolWrite:
		v, _ := args.Get("content")
		content, _ := v.(string)
		f, err := os.CreateTemp(filepath.Dir(target), ".bench-*")
		if err != nil {
			return 1, err
		}
		_, err = f.WriteString(content)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(f.Name(), target)
		}
		if err != nil {
			os.Remove(f.Name())
		}
		return 1, err
	case toolspec.ToolFind:
		offset, limit := page(args, int(toolspec.FindPageDefault))
		v, _ := args.Get("pattern")
		pattern, _ := v.(string)
		return systemFind(target, pattern, offset, limit, false)
	}
	return 0, fmt.Errorf("system: no system calls for %s", tool)
}

// page is the offset and limit of a paged tool's arguments.
func page(args replay.Object, defLimit int) (offset, limit int) {
	limit = defLimit
	if v, ok := args.Get("limit"); ok {
		if n, err := replay.Int(v, limit); err == nil {
			limit = n
		}
	}
	if v, ok := args.Get("offset"); ok {
		if n, err := replay.Int(v, 0); err == nil {
			offset = n
		}
	}
	return offset, limit
}

// systemFind walks dir in sorted order for a page of the entries whose
// name matches pattern's last element (every page from offset on when
// all is set; each page walks from the top, as each find call does).
func systemFind(dir, pattern string, offset, limit int, all bool) (int, error) {
	name := pattern[strings.LastIndexByte(pattern, '/')+1:]
	if _, err := filepath.Match(name, ""); err != nil {
		return 0, err
	}
	pages := 0
	for {
		pages++
		seen := 0
		var walk func(string) (bool, error)
		walk = func(d string) (bool, error) {
			f, err := os.Open(d)
			if err != nil {
				return false, err
			}
			entries, err := f.ReadDir(-1)
			f.Close()
			if err != nil {
				return false, err
			}
			slices.SortFunc(entries, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
			for _, e := range entries {
				if ok, _ := filepath.Match(name, e.Name()); ok {
					if seen++; seen > offset+limit {
						return true, nil
					}
				}
				if e.IsDir() {
					if full, err := walk(filepath.Join(d, e.Name())); full || err != nil {
						return full, err
					}
				}
			}
			return false, nil
		}
		full, err := walk(dir)
		if err != nil || !all || !full {
			return pages, err
		}
		offset += limit
	}
}

// systemList lists a page (every page from offset on when all is set):
// each page reads the names, sorts them and lstats the page's entries.
func systemList(dir string, offset, limit int, all bool) (int, error) {
	pages := 0
	for {
		pages++
		f, err := os.Open(dir)
		if err != nil {
			return pages, err
		}
		names, err := f.Readdirnames(-1)
		f.Close()
		if err != nil {
			return pages, err
		}
		slices.Sort(names)
		end := min(len(names), offset+limit)
		for _, n := range names[min(offset, end):end] {
			if _, err := os.Lstat(filepath.Join(dir, n)); err != nil {
				return pages, err
			}
		}
		if !all || end >= len(names) {
			return pages, nil
		}
		offset = end
	}
}

// runSystemRow times call's system counterpart; ok is false for a tool
// the system side does not run.
func runSystemRow(ctx context.Context, c Case, call Call, dir string, run func(ops []Op, it int) error, opts Options) (Row, bool, error) {
	r := Row{Workload: c.Name + "/" + call.Label, Case: c.Name, Label: call.Label, Kind: "tool", Tool: call.Tool}
	if !slices.Contains(systemTools, call.Tool) {
		return r, false, nil
	}
	r.Repeat, r.Warmup = iterations(c, call, opts)
	argsV, err := replay.ParseOrdered(call.Args)
	if err != nil {
		return r, true, err
	}
	var totals, chains []float64
	for it := range r.Warmup + r.Repeat {
		if err := ctx.Err(); err != nil {
			return r, true, err
		}
		if err := run(call.Each, it); err != nil {
			return r, true, fmt.Errorf("each: %w", err)
		}
		v, err := replay.Expand(argsV, it)
		if err != nil {
			return r, true, err
		}
		args, _ := v.(replay.Object)
		p, _ := args.Get("path")
		ps, _ := p.(string)
		target, err := hostPath(dir, ps)
		if err != nil {
			return r, true, err
		}
		t0 := time.Now()
		var calls int
		switch {
		case call.Follow && call.Tool == toolspec.ToolLs:
			offset, limit := page(args, int(toolspec.LsPageDefault))
			calls, err = systemList(target, offset, limit, true)
		case call.Follow && call.Tool == toolspec.ToolFind:
			offset, limit := page(args, int(toolspec.FindPageDefault))
			v, _ := args.Get("pattern")
			pattern, _ := v.(string)
			calls, err = systemFind(target, pattern, offset, limit, true)
		default:
			calls, err = systemCall(call.Tool, target, args)
		}
		d := time.Since(t0)
		if err != nil {
			return r, true, err
		}
		if it >= r.Warmup {
			totals = append(totals, us(d))
			chains = append(chains, float64(calls))
		}
	}
	r.Us = statsOf(totals)
	r.CallsPerIter = int(statsOf(chains).Mean + 0.5)
	r.OK = true
	return r, true, nil
}

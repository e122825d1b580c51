package exec

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/gen"
)

// MirrorOptions configure a Mirror backend.
type MirrorOptions struct {
	// HostOptions configure the commands as for Host (ID "host" and the
	// spec's description for the mirrored root when empty). Dir is the
	// workspace directory that is mirrored, and where commands run when
	// the call gives no cwd; gen.WorkspaceRoot when empty.
	HostOptions
	// Mirror is the host directory that holds the copy; created when
	// missing. The tree is kept in Mirror/tree and what was last synced
	// in Mirror/state.json, so a later process (the next agenttools
	// call) copies only what changed since.
	Mirror string
}

// Mirror runs commands as Host does, for a workspace that is not on the
// host (an SQLite workspace): before each command the workspace
// directory is synced into a host directory, the command runs there,
// and what it changed (new, changed and deleted files, directories,
// modes, symbolic links) is synced back into the workspace when it
// exits. A sync copies only the nodes whose revision (vfs.Info.Rev),
// size or time moved since the last one, so a command on a large,
// unchanged tree copies nothing. Commands on one Mirror run one at a
// time. What a background child changes after the command exits is not
// synced back.
type Mirror struct {
	host *Host
	root string     // the mirrored workspace directory
	dir  string     // the host copy
	mu   sync.Mutex // held from a command's start to its synced exit
	last SyncStats
}

// NewMirror returns a mirror backend over ws.
func NewMirror(ws *vfs.Workspace, opts MirrorOptions) (*Mirror, error) {
	if opts.Mirror == "" {
		return nil, errors.New("exec: a mirror needs a host directory")
	}
	if opts.Dir == "" {
		opts.Dir = gen.WorkspaceRoot
	}
	if opts.Description == "" {
		opts.Description = gen.MsgExecMirrorBackend(opts.Dir)
	}
	h, err := NewHost(ws, opts.HostOptions)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(opts.Mirror)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(abs, "tree"), 0o700); err != nil {
		return nil, err
	}
	return &Mirror{host: h, root: vfs.Clean(opts.Dir), dir: abs}, nil
}

// Info describes the backend.
func (m *Mirror) Info() Info { return m.host.info }

// Start syncs the workspace into the mirror, then runs the command there
// (cwd, a directory at or below the mirrored one, maps to its copy).
// The run's exit comes after its changes are synced back.
func (m *Mirror) Start(ctx context.Context, req Request) (Run, error) {
	cwd := req.Cwd
	if cwd == "" {
		cwd = m.root
	}
	loc, err := m.host.ws.Resolve(ctx, cwd)
	if err != nil {
		return nil, err
	}
	rel, ok := within(m.root, loc.Path)
	if !ok {
		return nil, errno.New(errno.EINVAL, gen.MsgNotHostDirectory(loc.Path), loc.Path)
	}
	if !loc.Info.IsDir() {
		return nil, errno.New(errno.ENOTDIR, gen.MsgNotDirectory(loc.Path), loc.Path)
	}
	m.mu.Lock()
	tree := filepath.Join(m.dir, "tree")
	s := &syncer{ws: m.host.ws, root: m.root, tree: tree, stateFile: filepath.Join(m.dir, "state.json"),
		copy: vfs.HostCopy{WS: m.host.ws, Root: m.root, Dir: tree}}
	if err := s.in(ctx); err != nil {
		m.mu.Unlock()
		return nil, err
	}
	run, err := m.host.startIn(ctx, filepath.Join(s.tree, filepath.FromSlash(rel)), req)
	if err != nil {
		m.mu.Unlock()
		return nil, err
	}
	return &mirrorRun{run: run, m: m, s: s}, nil
}

// within returns p relative to root when p is root or below it.
func within(root, p string) (string, bool) {
	if p == root {
		return "", true
	}
	prefix := root
	if prefix != "/" {
		prefix += "/"
	}
	rel, ok := strings.CutPrefix(p, prefix)
	return rel, ok
}

type mirrorRun struct {
	run      *hostRun
	m        *Mirror
	s        *syncer
	released bool
	exit     *Event // an exit held back while a failed sync is reported
}

// Next passes the command's events on; before the exit it syncs the
// mirror back into the workspace (a failed sync is reported on stderr
// before the exit). A cancelled run is not synced back: what the killed
// command changed is dropped at the next sync.
func (r *mirrorRun) Next(ctx context.Context) (Event, error) {
	if r.exit != nil {
		ev := *r.exit
		r.exit = nil
		return ev, nil
	}
	ev, err := r.run.Next(ctx)
	if err != nil {
		r.release()
		return ev, err
	}
	if ev.Kind != Exit {
		return ev, nil
	}
	err = r.s.out(context.WithoutCancel(ctx))
	r.m.last = r.s.stats
	r.release()
	if err != nil {
		r.exit = &ev
		return Event{Kind: Stderr, Data: []byte(gen.MsgExecMirrorSyncFailed(err.Error()))}, nil
	}
	return ev, nil
}

// Kill kills the command as Host does.
func (r *mirrorRun) Kill() error { return r.run.Kill() }

func (r *mirrorRun) release() {
	if !r.released {
		r.released = true
		r.m.mu.Unlock()
	}
}

// syncState is what the last sync saw of one node, on both sides.
type syncState struct {
	Type   vfs.FileType `json:"type"`
	Rev    int64        `json:"rev"`    // the workspace node's revision
	Size   int64        `json:"size"`   // its size
	MTime  int64        `json:"mtime"`  // its time (ms)
	Mode   uint32       `json:"mode"`   // its permission bits
	Target string       `json:"target"` // a link's target, as the workspace holds it
	HostNS int64        `json:"hostNs"` // the copy's modification time (ns)
	HostSz int64        `json:"hostSize"`
	HostMd uint32       `json:"hostMode"`
}

// syncer copies between the workspace directory root and the host tree.
type syncer struct {
	ws        *vfs.Workspace
	root      string
	tree      string
	copy      vfs.HostCopy
	stateFile string
	state     map[string]syncState // by path relative to root
	stats     SyncStats
}

// SyncStats counts what the syncs around one command did: nodes copied
// into the mirror and removed from it before the command, nodes copied
// back into the workspace and removed from it after.
type SyncStats struct {
	CopiedIn, RemovedIn, CopiedOut, RemovedOut int
}

// LastSync is what the syncs around the last command that finished did.
func (m *Mirror) LastSync() SyncStats {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.last
}

func (s *syncer) load() {
	s.state = map[string]syncState{}
	data, err := os.ReadFile(s.stateFile)
	if err == nil && json.Unmarshal(data, &s.state) != nil {
		s.state = map[string]syncState{}
	}
	if err != nil || len(s.state) == 0 {
		// No record: the tree is rebuilt from scratch.
		_ = os.RemoveAll(s.tree)
		_ = os.MkdirAll(s.tree, 0o700)
		s.state = map[string]syncState{}
	}
}

func (s *syncer) save() error {
	data, err := json.Marshal(s.state)
	if err != nil {
		return err
	}
	tmp := s.stateFile + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, s.stateFile)
}

func (s *syncer) hostPath(rel string) string { return s.copy.HostPath(rel) }

func (s *syncer) wsPath(rel string) string { return s.copy.WSPath(rel) }

// in brings the host tree up to the workspace: nodes whose revision,
// size, time or mode moved are copied, nodes gone are removed.
func (s *syncer) in(ctx context.Context) error {
	s.load()
	seen := map[string]bool{}
	var walk func(rel string) error
	walk = func(rel string) error {
		entries, err := s.ws.ReadDir(ctx, s.wsPath(rel), 0, -1)
		if err != nil {
			return err
		}
		for _, e := range entries {
			child := e.Name
			if rel != "" {
				child = rel + "/" + e.Name
			}
			seen[child] = true
			if err := s.copyIn(ctx, child, e); err != nil {
				return err
			}
			if e.Type == vfs.TypeDir {
				if err := walk(child); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(""); err != nil {
		return err
	}
	// Longest paths first: a directory's entries go before it.
	var gone []string
	for rel := range s.state {
		if !seen[rel] {
			gone = append(gone, rel)
		}
	}
	slices.SortFunc(gone, func(a, b string) int { return len(b) - len(a) })
	for _, rel := range gone {
		if err := os.RemoveAll(s.hostPath(rel)); err != nil {
			return err
		}
		delete(s.state, rel)
		s.stats.RemovedIn++
	}
	s.settleDirs()
	return s.save()
}

// settleDirs records the host times of the directories again: copying
// their entries in changed them, which is not the command's doing.
func (s *syncer) settleDirs() {
	for rel, st := range s.state {
		if st.Type != vfs.TypeDir {
			continue
		}
		if fi, err := os.Lstat(s.hostPath(rel)); err == nil {
			st.HostNS, st.HostSz, st.HostMd = fi.ModTime().UnixNano(), fi.Size(), uint32(fi.Mode().Perm())
			s.state[rel] = st
		}
	}
}

// copyIn makes the host copy of one workspace node current.
func (s *syncer) copyIn(ctx context.Context, rel string, e vfs.Info) error {
	old, known := s.state[rel]
	// A store that does not number changes (Rev 0) may change a file and
	// keep its size and time: its files are always copied.
	numbered := e.Rev != 0 || e.Type != vfs.TypeFile
	if known && numbered && old.Type == e.Type && old.Rev == e.Rev && old.Size == e.Size && old.MTime == e.MTime && old.Mode == e.Mode && old.Target == e.Target {
		if hostUnchanged(s.hostPath(rel), old) {
			return nil
		}
	}
	s.stats.CopiedIn++
	if err := s.copy.ToHost(ctx, rel, e); err != nil {
		return err
	}
	if e.Type == vfs.TypeOther {
		return nil
	}
	return s.record(rel, e)
}

// record notes a node as synced: its workspace attributes and its host
// copy's.
func (s *syncer) record(rel string, e vfs.Info) error {
	st := syncState{Type: e.Type, Rev: e.Rev, Size: e.Size, MTime: e.MTime, Mode: e.Mode, Target: e.Target}
	fi, err := os.Lstat(s.hostPath(rel))
	if err != nil {
		return err
	}
	st.HostNS, st.HostSz, st.HostMd = fi.ModTime().UnixNano(), fi.Size(), uint32(fi.Mode().Perm())
	s.state[rel] = st
	return nil
}

// hostUnchanged reports whether the host copy is as the last sync left it.
func hostUnchanged(hp string, st syncState) bool {
	fi, err := os.Lstat(hp)
	return err == nil && fi.ModTime().UnixNano() == st.HostNS && fi.Size() == st.HostSz && uint32(fi.Mode().Perm()) == st.HostMd
}

// out brings the workspace up to the host tree after a command: what
// the command created, changed or removed is written, made or removed
// in the workspace.
func (s *syncer) out(ctx context.Context) error {
	seen := map[string]bool{}
	err := filepath.WalkDir(s.tree, func(hp string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if hp == s.tree {
			return nil
		}
		relOS, _ := filepath.Rel(s.tree, hp)
		rel := filepath.ToSlash(relOS)
		seen[rel] = true
		fi, err := os.Lstat(hp)
		if err != nil {
			return nil // gone meanwhile
		}
		if st, ok := s.state[rel]; ok && fi.ModTime().UnixNano() == st.HostNS && fi.Size() == st.HostSz && uint32(fi.Mode().Perm()) == st.HostMd && vfs.HostType(fi) == st.Type {
			return nil
		}
		return s.copyOut(ctx, rel, fi)
	})
	if err != nil {
		return err
	}
	var gone []string
	for rel := range s.state {
		if !seen[rel] {
			gone = append(gone, rel)
		}
	}
	slices.SortFunc(gone, func(a, b string) int { return len(b) - len(a) })
	for _, rel := range gone {
		if err := s.ws.Remove(ctx, s.wsPath(rel), vfs.RemoveOptions{Recursive: true, Force: true}); err != nil {
			return err
		}
		delete(s.state, rel)
		s.stats.RemovedOut++
	}
	return s.save()
}

// copyOut writes one host node the command made or changed into the
// workspace.
func (s *syncer) copyOut(ctx context.Context, rel string, fi fs.FileInfo) error {
	s.stats.CopiedOut++
	if vfs.HostType(fi) == vfs.TypeOther {
		return nil // a pipe or socket the command left: not workspace content
	}
	if err := s.copy.FromHost(ctx, rel, fi); err != nil {
		return err
	}
	info, err := s.ws.Lstat(ctx, s.wsPath(rel))
	if err != nil {
		return err
	}
	return s.record(rel, info)
}

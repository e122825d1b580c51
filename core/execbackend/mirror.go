package execbackend

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gofrs/flock"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/hostio"
	"github.com/agenttools/agenttools/toolspec"
)

// MirrorOptions configure a Mirror backend.
type MirrorOptions struct {
	// HostOptions configure the commands as for Host (ID "host" and the
	// spec's description for the mirrored root when empty; with Sandbox,
	// "sandbox" and the sandbox's description, the copy bound at Dir's
	// path in the sandbox). Dir is the
	// workspace directory that is mirrored, and where commands run when
	// the call gives no cwd; toolspec.WorkspaceRoot when empty.
	HostOptions
	// Mirror is the host directory that holds the copy. Nothing is made
	// until the first command: then it is made private to this user
	// (0700, with the directories missing on its path), or, when it is
	// there, checked: every directory on its path must be owned by root
	// or this user and not writable by others (unless sticky, as /tmp
	// is), every link on it made by root or this user, and Mirror itself
	// a directory of this user's that others cannot write. A mirror that
	// fails the check is not used: each command answers
	// toolspec.MsgExecMirrorUnavailable with the reason.
	//
	// The tree is kept in Mirror/tree, what was last synced in
	// Mirror/state.json, so a later process (the next agenttools call)
	// copies only what changed since, and a base copy of each file up to
	// MaxMergeBytes (what the command starts from, for merges) in
	// Mirror/base.
	Mirror string
	// Key names the workspace for its default mirror, used when Mirror
	// is "": a directory in MirrorCache named by a hash of Key, which
	// records Key for Mirrors. The agenttools command gives the
	// database's real path. Without a user cache directory every
	// command answers toolspec.MsgExecMirrorUnavailable.
	Key string
}

// Mirror runs commands as Host does, for a workspace that is not on the
// host (an SQLite workspace): before each command the workspace
// directory is synced into a host directory, the command runs there,
// and what it changed (new, changed and deleted files, directories,
// modes, symbolic links) is synced back into the workspace when it
// exits. A sync copies only the nodes whose revision (vfs.Info.Rev),
// size or time moved since the last one, so a command on a large,
// unchanged tree copies nothing; what is in the copy but not in the
// workspace (left by a command that was cancelled) is removed first.
//
// The workspace may change while a command runs (another call, another
// process): the sync back writes only what the command changed, and
// never over a change made meanwhile. A file both changed is merged line
// by line against the content the command started from (a base copy kept
// in the mirror for every file up to MaxMergeBytes); where both changed
// the same lines, or the file is not text or has no base copy, or the
// workspace deleted or replaced what the command changed, the
// workspace's version stays and the command's is saved under
// toolspec.MsgExecMirrorConflictDir(run id), named in a note on stderr
// (toolspec.MsgExecMirrorConflicts). A node the command deleted that the
// workspace changed meanwhile is kept, and named too; so is a directory
// it deleted that the workspace added to. A link is removed and made
// again only while it is as the command found it (else a conflict); a
// mode the command changed is applied without rewriting the content; a
// directory the workspace deleted is not made again (what the command
// wrote in it is saved as conflicts). After a merge or a conflict the
// next command sees the workspace's version. On a store that does not
// number changes (Rev 0) a file without a base copy is written over,
// and deletions are not conditional.
//
// Commands on one mirror directory run one at a time, across processes
// too (a lock file in it). A node that cannot be copied (a name the host
// cannot hold, a file the command left unreadable) is passed over and
// named in a note on stderr; the rest is synced. What a background child
// changes after the command exits is not synced back, nor is what a
// cancelled command changed.
type Mirror struct {
	host *Host
	root string     // the mirrored workspace directory
	dir  string     // the host copy; "" for the default one of key
	key  string     // MirrorOptions.Key
	mu   sync.Mutex // held from a command's start to its synced exit
	last SyncStats
}

// NewMirror returns a mirror backend over ws. It makes nothing on the
// host: the mirror directory is made when the first command runs. It
// fails where Host does not run (Windows: an error that names the
// system).
func NewMirror(ws *vfs.Workspace, opts MirrorOptions) (*Mirror, error) {
	if err := hostSupported("mirror"); err != nil {
		return nil, err
	}
	if opts.Mirror == "" && opts.Key == "" {
		return nil, errors.New("exec: a mirror needs a host directory or a key")
	}
	if opts.Dir == "" {
		opts.Dir = toolspec.WorkspaceRoot
	}
	if opts.Description == "" && opts.Sandbox == nil {
		opts.Description = toolspec.MsgExecMirrorBackend(opts.Dir)
	}
	h, err := newHost(ws, opts.HostOptions, true)
	if err != nil {
		return nil, err
	}
	abs := ""
	if opts.Mirror != "" {
		if abs, err = filepath.Abs(opts.Mirror); err != nil {
			return nil, err
		}
	}
	return &Mirror{host: h, root: vfs.Clean(opts.Dir), dir: abs, key: opts.Key}, nil
}

// Info describes the backend.
func (m *Mirror) Info() Info { return m.host.info }

// LastSync is what the syncs around the last command that finished did.
func (m *Mirror) LastSync() SyncStats {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.last
}

// SyncStats counts what the syncs around one command did: nodes copied
// into the mirror and removed from it before the command, nodes copied
// back into the workspace and removed from it after, files merged with
// a change the workspace made meanwhile, and conflicts (nodes whose
// workspace version was kept over the command's).
type SyncStats struct {
	CopiedIn, RemovedIn, CopiedOut, RemovedOut int
	Merged, Conflicts                          int
}

// MaxMergeBytes is the largest file, in bytes, the mirror keeps a base
// copy of (the content a command started from) and merges: a larger
// file that the command and the workspace both changed is a conflict
// (8 MiB).
const MaxMergeBytes = 8 << 20

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
		return nil, errno.New(errno.EINVAL, toolspec.MsgNotHostDirectory(loc.Path), loc.Path)
	}
	if !loc.Info.IsDir() {
		return nil, errno.New(errno.ENOTDIR, toolspec.MsgNotDirectory(loc.Path), loc.Path)
	}
	m.mu.Lock()
	dir, unlock, err := m.lock(ctx)
	if err != nil {
		m.mu.Unlock()
		return nil, err
	}
	release := func() {
		unlock()
		m.mu.Unlock()
	}
	tree := filepath.Join(dir, "tree")
	s := &syncer{ws: m.host.ws, tree: tree, dir: dir, baseDir: filepath.Join(dir, "base"), stateFile: filepath.Join(dir, "state.json"),
		copy: hostio.Copy{WS: m.host.ws, Root: m.root, Dir: tree}, run: req.ID}
	skipped, err := s.in(ctx)
	if err != nil {
		release()
		return nil, err
	}
	var run *hostRun
	if sb := m.host.sandbox; sb != nil {
		// The sandbox binds the copy at the mirrored directory's path;
		// as root its user gets the copy.
		if err = s.give(sb); err == nil {
			run, err = m.host.startIn(ctx, tree, path.Join(m.root, rel), req)
		}
	} else {
		run, err = m.host.startIn(ctx, filepath.Join(tree, filepath.FromSlash(rel)), "", req)
	}
	if err != nil {
		release()
		return nil, err
	}
	r := &mirrorRun{run: run, m: m, s: s, release: release}
	if skipped != nil {
		r.note(toolspec.MsgExecMirrorCopyInFailed(skipped.Error()))
	}
	return r, nil
}

// lockDir takes the lock file of a mirror directory for a command,
// waiting while another process holds it, marks the mirror used now
// (the file's modification time) and returns what releases it. It
// returns errLockGone when the mirror was removed (RemoveMirror) while
// it waited.
func lockDir(ctx context.Context, dir string) (func(), error) {
	return takeLock(ctx, dir, true)
}

// tryLockDir takes the lock file of a mirror directory if no process
// holds it (else ErrMirrorInUse), leaving its time as it is.
func tryLockDir(dir string) (func(), error) {
	return takeLock(context.Background(), dir, false)
}

// lockHeld reports whether a process holds the lock of a mirror
// directory, without writing anything: a directory without a lock file
// is not in use.
func lockHeld(dir string) bool {
	l := flock.New(filepath.Join(dir, "lock"), flock.SetFlag(os.O_RDONLY))
	for {
		ok, err := l.TryRLock()
		if ok {
			_ = l.Unlock()
			return false
		}
		if !errors.Is(err, syscall.EINTR) {
			return err == nil
		}
	}
}

// errLockGone is lockDir's error when the lock it took is no longer the
// mirror directory's.
var errLockGone = errors.New("exec: the mirror was removed")

// lockOpened is called once a takeLock has opened its lock file and
// tried it (a test hook).
var lockOpened = func(path string) {}

// takeLock takes the lock file of dir: flock(2) on Unix (exclusive,
// tried without blocking every 20 ms while use is set and ctx is not
// done), LockFileEx on Windows (github.com/gofrs/flock). Each try opens
// the file anew; a lock file whose directory has gone answers an error
// that is fs.ErrNotExist.
func takeLock(ctx context.Context, dir string, use bool) (func(), error) {
	path := filepath.Join(dir, "lock")
	l := flock.New(path, flock.SetFlag(os.O_RDWR|os.O_CREATE), flock.SetPermissions(0o600))
	for opened := false; ; {
		ok, err := l.TryLock()
		if err != nil {
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			return nil, err
		}
		if !opened {
			opened = true
			lockOpened(path)
		}
		if ok {
			break
		}
		if !use {
			return nil, ErrMirrorInUse
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	unlock := func() { _ = l.Unlock() }
	// RemoveMirror moves the directory aside while it holds the lock:
	// the file locked is then not the one at path.
	held, err := l.Stat()
	if err == nil {
		var now fs.FileInfo
		if now, err = os.Lstat(path); err == nil && !os.SameFile(held, now) {
			err = errLockGone
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		err = errLockGone
	}
	if err != nil {
		unlock()
		return nil, err
	}
	if use {
		t := time.Now()
		_ = os.Chtimes(path, t, t)
	}
	return unlock, nil
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
	release  func()
	released bool
	queue    []Event // events to give before the command's own
	// stderr is set once stderr had something: a note after it is set
	// off by a blank line, one that starts stderr is not.
	stderr bool
}

// note queues a note on stderr, before the exit.
func (r *mirrorRun) note(text string) {
	if !r.stderr {
		text = strings.TrimLeft(text, "\n")
	}
	r.stderr = true
	r.queue = append(r.queue, Event{Kind: Stderr, Data: []byte(text)})
}

// Next passes the command's events on; before the exit it syncs the
// mirror back into the workspace (nodes it could not copy are named on
// stderr before the exit). A cancelled run is not synced back: what the
// killed command changed is dropped at the next sync.
func (r *mirrorRun) Next(ctx context.Context) (Event, error) {
	if len(r.queue) > 0 {
		ev := r.queue[0]
		r.queue = r.queue[1:]
		return ev, nil
	}
	ev, err := r.run.Next(ctx)
	if err != nil {
		r.done()
		return ev, err
	}
	if ev.Kind != Exit {
		r.stderr = r.stderr || ev.Kind == Stderr && len(ev.Data) > 0
		return ev, nil
	}
	skipped := r.s.out(context.WithoutCancel(ctx))
	r.m.last = r.s.stats
	r.done()
	if note := r.s.conflictNote(); note != "" {
		r.note(note)
	}
	if skipped != nil {
		r.note(toolspec.MsgExecMirrorSyncFailed(skipped.Error()))
	}
	r.queue = append(r.queue, ev)
	return r.Next(ctx)
}

// Kill kills the command as Host does.
func (r *mirrorRun) Kill() error { return r.run.Kill() }

func (r *mirrorRun) done() {
	if !r.released {
		r.released = true
		r.release()
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
	HostCT int64        `json:"hostCt"` // its status change time (ns)
	HostSz int64        `json:"hostSize"`
	HostMd uint32       `json:"hostMode"`
	Base   bool         `json:"base,omitempty"` // a file's base copy is kept
}

// syncer copies between a workspace directory and the host tree.
type syncer struct {
	ws        *vfs.Workspace
	tree      string
	dir       string // the mirror directory
	baseDir   string // base copies of the files, by hash of their path
	copy      hostio.Copy
	stateFile string
	state     map[string]syncState // by path relative to both
	stats     SyncStats
	skipped   skips
	run       string     // the run's id, for its conflict directory
	conflicts []conflict // what the sync back kept over the command's version
	saveDir   string     // the run's conflict directory, once made
}

// skips collects the nodes a sync passed over.
type skips struct {
	first []string
	n     int
}

// skipReasons is how many nodes' reasons the note on the nodes a sync
// passed over gives; the rest are counted (toolspec.MsgExecMirrorReasonsMore).
const skipReasons = 3

func (k *skips) add(rel string, err error) {
	k.n++
	if len(k.first) < skipReasons {
		k.first = append(k.first, err.Error())
	}
}

// err is nil when nothing was passed over; its text is the reasons the
// notes give (toolspec.MsgExecMirrorCopyInFailed, MsgExecMirrorSyncFailed).
func (k *skips) err() error {
	if k.n == 0 {
		return nil
	}
	msg := strings.Join(k.first, toolspec.MsgExecMirrorReasonSeparator)
	if k.n > len(k.first) {
		msg += toolspec.MsgExecMirrorReasonsMore(int64(k.n - len(k.first)))
	}
	return errors.New(msg)
}

func (s *syncer) load() error {
	// The tree must be a directory of its own, not a link a command put
	// in its place.
	if fi, err := os.Lstat(s.tree); err != nil || !fi.IsDir() {
		_ = hostio.RemoveAll(s.tree)
		_ = os.Remove(s.stateFile)
	}
	if err := os.MkdirAll(s.tree, 0o700); err != nil {
		return err
	}
	s.state = map[string]syncState{}
	data, err := os.ReadFile(s.stateFile)
	if err == nil && json.Unmarshal(data, &s.state) != nil {
		s.state = map[string]syncState{}
		err = errors.New("unreadable state")
	}
	// The base copies are as private as the tree. Without the state
	// that lists them, or with anything else in their place, they start
	// afresh (each file gets its base copy at its next copy in).
	if fi, berr := os.Lstat(s.baseDir); err != nil || berr != nil || !fi.IsDir() {
		_ = hostio.RemoveAll(s.baseDir)
		for rel, st := range s.state {
			st.Base = false
			s.state[rel] = st
		}
	}
	if err := os.MkdirAll(s.baseDir, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(s.baseDir, 0o700); err != nil {
		return err
	}
	// Base copies an interrupted sync was writing.
	tmps, _ := filepath.Glob(filepath.Join(s.dir, baseTmpPattern))
	for _, p := range tmps {
		_ = os.Remove(p)
	}
	return nil
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
// size, time or mode moved are copied, nodes the workspace no longer has
// (or never had) are removed. It returns the nodes it passed over as a
// non-nil skipped; err is for a failure that stops the sync.
func (s *syncer) in(ctx context.Context) (skipped, err error) {
	if err := s.load(); err != nil {
		return nil, err
	}
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
			if err := s.copyIn(ctx, child, e); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				s.skipped.add(child, err)
				s.forget(child)
				continue
			}
			seen[child] = true
			if e.Type == vfs.TypeDir {
				if err := walk(child); err != nil {
					return err
				}
				if err := s.copy.SetHostMode(child, e); err != nil {
					s.skipped.add(child, err)
				}
			}
		}
		return nil
	}
	if err := walk(""); err != nil {
		return nil, err
	}
	// What the copy holds beyond the workspace goes: nodes removed from
	// the workspace, and what a cancelled command left.
	var extra []string
	_ = filepath.WalkDir(s.tree, func(hp string, d fs.DirEntry, err error) error {
		if err != nil || hp == s.tree {
			return nil
		}
		rel := s.relOf(hp)
		if !seen[rel] {
			extra = append(extra, hp)
			s.forget(rel)
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	for _, hp := range extra {
		if err := hostio.RemoveAll(hp); err != nil {
			s.skipped.add(s.relOf(hp), err)
			continue
		}
		s.stats.RemovedIn++
	}
	for rel := range s.state {
		if !seen[rel] {
			s.forget(rel)
		}
	}
	s.settleDirs()
	if err := s.save(); err != nil {
		return nil, err
	}
	return s.skipped.err(), nil
}

// give gives the copy to the sandbox's user (see sandboxer.giveTree)
// and records the host attributes of what it gave again: a new owner
// changes a node's change time, which the sync back must not take for
// the command's change (a file without a base copy would be written
// back, or be a conflict).
func (s *syncer) give(sb *sandboxer) error {
	changed := false
	err := sb.giveTree(s.tree, func(hp string) {
		rel := s.relOf(hp)
		if st, ok := s.state[rel]; ok {
			if fi, err := os.Lstat(hp); err == nil {
				s.state[rel] = withHost(st, fi)
				changed = true
			}
		}
	})
	if err == nil && changed {
		err = s.save()
	}
	return err
}

func (s *syncer) relOf(hp string) string {
	relOS, _ := filepath.Rel(s.tree, hp)
	return filepath.ToSlash(relOS)
}

// settleDirs records the host times of the directories again: copying
// their entries in changed them, which is not the command's doing.
func (s *syncer) settleDirs() {
	for rel, st := range s.state {
		if st.Type != vfs.TypeDir {
			continue
		}
		if fi, err := os.Lstat(s.hostPath(rel)); err == nil {
			s.state[rel] = withHost(st, fi)
		}
	}
}

// copyIn makes the host copy of one workspace node current, and a file's
// base copy with it.
func (s *syncer) copyIn(ctx context.Context, rel string, e vfs.Info) error {
	old, known := s.state[rel]
	// A store that does not number changes (Rev 0) may change a file and
	// keep its size and time: its files are always copied.
	numbered := e.Rev != 0 || e.Type != vfs.TypeFile
	// A file that should have a base copy and has none gets one.
	based := e.Type != vfs.TypeFile || old.Base || e.Size > MaxMergeBytes
	if known && numbered && based && old.Type == e.Type && old.Rev == e.Rev && old.Size == e.Size && old.MTime == e.MTime && old.Mode == e.Mode && old.Target == e.Target {
		if fi, err := os.Lstat(s.hostPath(rel)); err == nil && hostSame(fi, old) {
			if e.Type == vfs.TypeDir {
				// Its entries are copied in; SetHostMode closes it again.
				return os.Chmod(s.hostPath(rel), 0o700)
			}
			return nil
		}
	}
	s.stats.CopiedIn++
	if e.Type == vfs.TypeFile {
		var b *baseCopy
		var err error
		// A file replaced while it is copied (another writer's edit) is
		// copied again, as it is now.
		for attempt := 1; ; attempt++ {
			// One read of the workspace makes both copies.
			var tee io.Writer
			b = nil
			if e.Size <= MaxMergeBytes {
				b = s.newBase()
				tee = b
			}
			err = s.copy.ToHostTee(ctx, rel, e, tee)
			if err == nil || errno.CodeOf(err) != errno.EAGAIN || attempt == vfs.UpdateAttempts {
				break
			}
			b.discard()
			if e, err = s.ws.Lstat(ctx, s.wsPath(rel)); err != nil {
				return err
			}
			if e.Type != vfs.TypeFile {
				return s.copyIn(ctx, rel, e)
			}
		}
		if err != nil {
			b.discard()
			return err
		}
		kept := b.keep(s.basePath(rel))
		if err := s.record(rel, e); err != nil {
			return err
		}
		if kept {
			st := s.state[rel]
			st.Base = true
			s.state[rel] = st
		}
		return nil
	}
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
	fi, err := os.Lstat(s.hostPath(rel))
	if err != nil {
		return err
	}
	s.state[rel] = withHost(syncState{Type: e.Type, Rev: e.Rev, Size: e.Size, MTime: e.MTime, Mode: e.Mode, Target: e.Target}, fi)
	return nil
}

func withHost(st syncState, fi fs.FileInfo) syncState {
	st.HostNS, st.HostCT, st.HostSz, st.HostMd = fi.ModTime().UnixNano(), hostio.ChangeTime(fi), fi.Size(), uint32(fi.Mode().Perm())
	return st
}

// hostSame reports whether a host node is as the last sync left it.
func hostSame(fi fs.FileInfo, st syncState) bool {
	return hostio.Type(fi) == st.Type && fi.ModTime().UnixNano() == st.HostNS && hostio.ChangeTime(fi) == st.HostCT &&
		fi.Size() == st.HostSz && uint32(fi.Mode().Perm()) == st.HostMd
}

// forget drops what the last sync recorded of rel, and its base copy:
// the next sync in copies it again.
func (s *syncer) forget(rel string) {
	if st, ok := s.state[rel]; ok && st.Base {
		_ = os.Remove(s.basePath(rel))
	}
	delete(s.state, rel)
}

// basePath is where the base copy of the file at rel is kept: named by
// a hash of rel, so the base directory holds no tree.
func (s *syncer) basePath(rel string) string {
	sum := sha256.Sum256([]byte(rel))
	return filepath.Join(s.baseDir, hex.EncodeToString(sum[:]))
}

// baseTmpPattern names the base copies being written, in the mirror
// directory.
const baseTmpPattern = "base-tmp-*"

// baseCopy is a base copy being written. Its Write never fails: past
// MaxMergeBytes, or after an error, it stops keeping and keep says so.
// A nil *baseCopy keeps nothing.
type baseCopy struct {
	f   *os.File
	n   int64
	err error
}

func (s *syncer) newBase() *baseCopy {
	f, err := os.CreateTemp(s.dir, baseTmpPattern)
	return &baseCopy{f: f, err: err}
}

func (b *baseCopy) Write(p []byte) (int, error) {
	if b.err == nil {
		b.n += int64(len(p))
		if b.n > MaxMergeBytes {
			b.err = errors.New("too large")
		} else if _, err := b.f.Write(p); err != nil {
			b.err = err
		}
	}
	return len(p), nil
}

// keep puts the copy at dst and reports whether it could; when it could
// not, no base copy is left at dst.
func (b *baseCopy) keep(dst string) bool {
	if b == nil || b.err != nil {
		b.discard()
		_ = os.Remove(dst)
		return false
	}
	err := b.f.Close()
	if err == nil {
		err = os.Rename(b.f.Name(), dst)
	}
	if err != nil {
		_ = os.Remove(b.f.Name())
		_ = os.Remove(dst)
		return false
	}
	return true
}

// discard drops the copy.
func (b *baseCopy) discard() {
	if b != nil && b.f != nil {
		b.f.Close()
		_ = os.Remove(b.f.Name())
		b.f = nil
		if b.err == nil {
			b.err = os.ErrClosed
		}
	}
}

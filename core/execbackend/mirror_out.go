package execbackend

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/internal/hostio"
	"github.com/agenttools/agenttools/toolspec"
)

// conflict is one node whose workspace version the sync back kept over
// the command's: rel is its path, line its line in the note.
type conflict struct {
	rel, line string
}

// out brings the workspace up to the host tree after a command: what
// the command created, changed or removed is written, made or removed
// in the workspace, each only while the workspace node is still as the
// last sync left it (its revision). A file the workspace changed
// meanwhile is merged; what cannot be merged is a conflict (s.conflicts).
// Nodes it cannot copy are passed over and returned as a non-nil error
// naming them; the rest is synced.
func (s *syncer) out(ctx context.Context) error {
	// What the sync in passed over was noted then, and never came in:
	// there is nothing of it to copy back.
	s.skipped = skips{}
	seen := map[string]bool{}
	_ = filepath.WalkDir(s.tree, func(hp string, d fs.DirEntry, err error) error {
		if hp == s.tree {
			return nil
		}
		rel := s.relOf(hp)
		seen[rel] = true
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				// An unreadable directory: its entries are kept as they were.
				s.skipped.add(rel, err)
				s.keepBelow(rel, seen)
			}
			return nil
		}
		fi, err := os.Lstat(hp)
		if err != nil {
			return nil // gone meanwhile
		}
		st, known := s.state[rel]
		if known && hostSame(fi, st) {
			return nil
		}
		if err := s.copyOut(ctx, rel, hp, fi, st, known); err != nil {
			s.skipped.add(rel, err)
			if d.IsDir() {
				s.keepBelow(rel, seen)
				return filepath.SkipDir
			}
		}
		return nil
	})
	var gone []string
	for rel := range s.state {
		if !seen[rel] {
			gone = append(gone, rel)
		}
	}
	s.removeAll(ctx, gone)
	if err := s.save(); err != nil {
		s.skipped.add("", err)
	}
	return s.skipped.err()
}

// keepBelow marks everything recorded below rel as seen, so that a
// directory the sync could not read does not lose its entries.
func (s *syncer) keepBelow(rel string, seen map[string]bool) {
	for r := range s.state {
		if strings.HasPrefix(r, rel+"/") {
			seen[r] = true
		}
	}
}

// copyOut brings one host node the command made or changed into the
// workspace. st is what the last sync recorded of it, when known.
func (s *syncer) copyOut(ctx context.Context, rel, hp string, fi fs.FileInfo, st syncState, known bool) error {
	typ := hostio.Type(fi)
	if typ == vfs.TypeOther {
		return nil // a pipe or socket the command left: not workspace content
	}
	if known && st.Type != typ {
		// The command replaced the node with one of another type: the old
		// one goes first, unless the workspace changed it meanwhile.
		removed, err := s.clear(ctx, rel, st)
		if err != nil {
			return err
		}
		if !removed {
			if typ == vfs.TypeDir {
				// What the command put in it finds no directory: conflicts.
				s.stats.Conflicts++
				s.conflicts = append(s.conflicts, conflict{rel: rel, line: toolspec.MsgExecMirrorConflictNotDeleted(s.wsPath(rel))})
				return nil
			}
			return s.saveConflict(ctx, rel, hp, fi)
		}
		known = false
	}
	switch typ {
	case vfs.TypeDir:
		return s.dirOut(ctx, rel, fi, st, known)
	case vfs.TypeSymlink:
		return s.linkOut(ctx, rel, hp, fi, st, known)
	}
	return s.fileOut(ctx, rel, hp, fi, st, known)
}

// missing reports whether err says a path is not there (or a parent on
// its way is no directory).
func missing(err error) bool {
	c := errno.CodeOf(err)
	return c == errno.ENOENT || c == errno.ENOTDIR
}

// dirOut makes the workspace directory at rel as the command left it.
// A directory the workspace removed or replaced meanwhile is not made
// again: what the command changed in it becomes conflicts.
func (s *syncer) dirOut(ctx context.Context, rel string, fi fs.FileInfo, st syncState, known bool) error {
	p := s.wsPath(rel)
	mode := vfs.UnixMode(fi.Mode())
	if known {
		cur, err := s.ws.Lstat(ctx, p)
		switch {
		case missing(err) || err == nil && cur.Type != vfs.TypeDir:
			s.forget(rel)
			return nil
		case err != nil:
			return err
		}
		if mode != st.Mode {
			if err := s.ws.Chmod(ctx, p, mode); err != nil {
				return err
			}
			s.stats.CopiedOut++
		}
	} else {
		err := s.ws.Mkdir(ctx, p, vfs.MkdirOptions{Mode: &mode})
		switch {
		case errno.CodeOf(err) == errno.EEXIST:
			// The workspace made one meanwhile: the command's entries go
			// into it (or, when it is no directory, become conflicts).
			if cur, err := s.ws.Lstat(ctx, p); err != nil || cur.Type != vfs.TypeDir {
				return nil
			}
		case missing(err):
			return nil // its parent went meanwhile
		case err != nil:
			return err
		default:
			s.stats.CopiedOut++
		}
	}
	info, err := s.ws.Lstat(ctx, p)
	if err != nil || info.Type != vfs.TypeDir {
		s.forget(rel)
		return nil
	}
	return s.record(rel, info)
}

// linkOut makes the workspace link at rel as the command left it: the
// old link is removed only while it is as the last sync left it.
func (s *syncer) linkOut(ctx context.Context, rel, hp string, fi fs.FileInfo, st syncState, known bool) error {
	target, err := os.Readlink(hp)
	if err != nil {
		return err
	}
	target = s.copy.WSTarget(target)
	p := s.wsPath(rel)
	if known {
		if target == st.Target {
			s.state[rel] = withHost(st, fi) // made again as it was
			return nil
		}
		if err := s.removeIf(ctx, p, st.Rev); err != nil {
			if errno.CodeOf(err) == errno.EAGAIN || missing(err) {
				return s.saveConflict(ctx, rel, hp, fi)
			}
			return err
		}
	}
	if err := s.ws.Symlink(ctx, target, p); err != nil {
		if errno.CodeOf(err) == errno.EEXIST {
			if cur, err := s.ws.Lstat(ctx, p); err == nil && cur.Type == vfs.TypeSymlink && cur.Target == target {
				return s.record(rel, cur) // the workspace made the same link
			}
		}
		if errno.CodeOf(err) == errno.EEXIST || missing(err) {
			return s.saveConflict(ctx, rel, hp, fi)
		}
		return err
	}
	s.stats.CopiedOut++
	// Recorded only when it is still the link made here.
	if cur, err := s.ws.Lstat(ctx, p); err == nil && cur.Type == vfs.TypeSymlink && cur.Target == target {
		return s.record(rel, cur)
	}
	s.forget(rel)
	return nil
}

// removeIf removes the node at p (a file, a link or an empty directory)
// while it is at revision rev; on a store that does not number changes
// (rev 0), whatever it is.
func (s *syncer) removeIf(ctx context.Context, p string, rev int64) error {
	if rev == 0 {
		return s.ws.Remove(ctx, p, vfs.RemoveOptions{Force: true})
	}
	return s.ws.RemoveIf(ctx, p, rev)
}

// fileOut writes the file the command made or changed at rel into the
// workspace: a new file only where nothing is; a changed one only while
// the workspace file is still at the revision it was copied at, else
// merged with the workspace's version.
func (s *syncer) fileOut(ctx context.Context, rel, hp string, fi fs.FileInfo, st syncState, known bool) error {
	p := s.wsPath(rel)
	if !known {
		err := s.writeOut(ctx, rel, hp, fi, 0)
		switch c := errno.CodeOf(err); {
		case c == errno.EAGAIN:
			// The workspace made one meanwhile: merged from nothing.
			if cur, err := s.ws.Lstat(ctx, p); err == nil && cur.Type == vfs.TypeFile {
				return s.mergeOut(ctx, rel, hp, fi, []byte{}, 0)
			}
			return s.saveConflict(ctx, rel, hp, fi)
		case c == errno.EEXIST || missing(err):
			return s.saveConflict(ctx, rel, hp, fi) // no directory to hold it
		}
		return err
	}
	cur, err := s.ws.Lstat(ctx, p)
	switch {
	case missing(err) || err == nil && cur.Type != vfs.TypeFile:
		return s.saveConflict(ctx, rel, hp, fi) // removed or replaced meanwhile
	case err != nil:
		return err
	}
	mode := vfs.UnixMode(fi.Mode())
	if st.Base {
		same, sum, err := sameContent(hp, s.basePath(rel), fi.Size())
		if err != nil {
			return err
		}
		if same {
			// Its times or mode changed, not its content.
			if mode == st.Mode {
				s.state[rel] = withHost(st, fi)
				return nil
			}
			if err := s.ws.Chmod(ctx, p, mode); err != nil {
				if missing(err) {
					return s.saveConflict(ctx, rel, hp, fi)
				}
				return err
			}
			s.stats.CopiedOut++
			s.recordWritten(ctx, rel, fi, sum, true)
			return nil
		}
	}
	switch {
	case st.Rev == 0 && !st.Base:
		// A store that does not number changes, and no base to merge
		// with: written over, as it was before merges.
		return s.writeOut(ctx, rel, hp, fi, -1)
	case st.Rev != 0 && cur.Rev == st.Rev:
		if err := s.writeOut(ctx, rel, hp, fi, st.Rev); errno.CodeOf(err) != errno.EAGAIN {
			return err
		}
	}
	if !st.Base {
		return s.saveConflict(ctx, rel, hp, fi)
	}
	base, err := os.ReadFile(s.basePath(rel))
	if err != nil {
		return s.saveConflict(ctx, rel, hp, fi)
	}
	return s.mergeOut(ctx, rel, hp, fi, base, st.Mode)
}

// writeOut streams the host file at rel into the workspace while the
// node there is at revision rev (0: while nothing is there; -1: whatever
// is there), keeping a base copy of what it wrote, and records it.
func (s *syncer) writeOut(ctx context.Context, rel, hp string, fi fs.FileInfo, rev int64) error {
	f, err := os.Open(hp)
	if err != nil {
		return err
	}
	defer f.Close()
	sum := sha256.New()
	var b *baseCopy
	var w io.Writer = sum
	if fi.Size() <= MaxMergeBytes {
		b = s.newBase()
		w = io.MultiWriter(sum, b)
	}
	p, mode, r := s.wsPath(rel), vfs.UnixMode(fi.Mode()), io.TeeReader(f, w)
	if rev < 0 {
		err = s.ws.WriteFrom(ctx, p, r, vfs.WriteOptions{Mode: &mode})
	} else {
		err = s.ws.WriteFromIf(ctx, p, rev, r, mode)
	}
	if err != nil {
		b.discard()
		return err
	}
	s.stats.CopiedOut++
	s.recordWritten(ctx, rel, fi, sumOf(sum), b.keep(s.basePath(rel)))
	return nil
}

func sumOf(h hash.Hash) [sha256.Size]byte {
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}

// recordWritten records the file just written at rel from the host file
// fi describes (whose content hashes to sum), but only when the
// workspace file's revision is known to hold that content: read back
// after the revision is taken, it still does (a later change moves the
// revision on for good). Otherwise the next sync copies it in again.
func (s *syncer) recordWritten(ctx context.Context, rel string, fi fs.FileInfo, sum [sha256.Size]byte, base bool) {
	p := s.wsPath(rel)
	info, err := s.ws.Lstat(ctx, p)
	if err == nil && info.Type == vfs.TypeFile {
		var r io.ReadCloser
		if r, _, err = s.ws.Open(ctx, p, 0); err == nil {
			h := sha256.New()
			_, err = io.Copy(h, r)
			r.Close()
			if err == nil && sumOf(h) == sum {
				s.state[rel] = withHost(syncState{Type: vfs.TypeFile, Rev: info.Rev, Size: info.Size, MTime: info.MTime, Mode: info.Mode, Base: base}, fi)
				return
			}
		}
	}
	_ = os.Remove(s.basePath(rel))
	delete(s.state, rel)
}

// sameContent reports whether the host file at hp holds what the base
// copy holds, and the hash of that content.
func sameContent(hp, basePath string, size int64) (bool, [sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	bi, err := os.Stat(basePath)
	if err != nil || bi.Size() != size {
		return false, sum, nil
	}
	f, err := os.Open(hp)
	if err != nil {
		return false, sum, err
	}
	defer f.Close()
	b, err := os.Open(basePath)
	if err != nil {
		return false, sum, nil
	}
	defer b.Close()
	h := sha256.New()
	fb, bb := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		n, ferr := io.ReadFull(f, fb)
		m, _ := io.ReadFull(b, bb[:n])
		if m != n || !bytes.Equal(fb[:n], bb[:n]) {
			return false, sum, nil
		}
		h.Write(fb[:n])
		if ferr == io.EOF || ferr == io.ErrUnexpectedEOF {
			break
		}
		if ferr != nil {
			return false, sum, ferr
		}
	}
	if n, _ := b.Read(bb[:1]); n > 0 {
		return false, sum, nil
	}
	return true, sumOf(h), nil
}

// mergeRounds is how many times mergeOut runs vfs.Workspace.Update
// (each up to vfs.UpdateAttempts tries) on a file that keeps changing.
const mergeRounds = 4

// errNoMerge is a merge that found both sides changed the same lines.
var errNoMerge = errors.New("no merge")

// errUnchanged is a merge whose result is the workspace's content.
var errUnchanged = errors.New("unchanged")

// mergeOut merges the command's version of the file at rel into the
// workspace's current one, against base (what the command started
// from), as one atomic update of the latest content; a conflict keeps
// the workspace's version and saves the command's. The command's mode,
// when it changed it from baseMode, is applied to the merge. Either
// way the next sync copies the file in again.
func (s *syncer) mergeOut(ctx context.Context, rel, hp string, fi fs.FileInfo, base []byte, baseMode uint32) error {
	if fi.Size() > MaxMergeBytes {
		return s.saveConflict(ctx, rel, hp, fi)
	}
	f, err := os.Open(hp)
	if err != nil {
		return err
	}
	theirs, err := io.ReadAll(io.LimitReader(f, MaxMergeBytes+1))
	f.Close()
	if err != nil {
		return err
	}
	if len(theirs) > MaxMergeBytes {
		return s.saveConflict(ctx, rel, hp, fi)
	}
	p := s.wsPath(rel)
	merge := func(old []byte, _ vfs.Info) ([]byte, error) {
		merged, ok := merge3(base, old, theirs)
		switch {
		case !ok:
			return nil, errNoMerge
		case bytes.Equal(merged, old):
			return nil, errUnchanged
		}
		return merged, nil
	}
	// A file other writers keep changing is merged again, for longer
	// than an edit would try, before the command's version is set aside.
	for round := 0; round < mergeRounds; round++ {
		if err = s.ws.Update(ctx, p, MaxMergeBytes, merge); errno.CodeOf(err) != errno.EAGAIN {
			break
		}
	}
	var tooLarge *vfs.TooLargeError
	switch c := errno.CodeOf(err); {
	case err == nil, errors.Is(err, errUnchanged):
	case errors.Is(err, errNoMerge), errors.As(err, &tooLarge), missing(err), c == errno.EINVAL, c == errno.EISDIR, c == errno.EAGAIN:
		return s.saveConflict(ctx, rel, hp, fi)
	default:
		return err
	}
	if mode := vfs.UnixMode(fi.Mode()); baseMode != 0 && mode != baseMode {
		if err := s.ws.Chmod(ctx, p, mode); err != nil && !missing(err) {
			return err
		}
	}
	s.stats.Merged++
	s.forget(rel)
	return nil
}

// saveConflict keeps the workspace's node at rel and saves the command's
// (the host node hp) under the run's conflict directory, for the note.
// The next sync copies the workspace's node in again.
func (s *syncer) saveConflict(ctx context.Context, rel, hp string, fi fs.FileInfo) error {
	s.forget(rel)
	s.stats.Conflicts++
	saved, err := s.saveCopy(ctx, rel, hp, fi)
	line := toolspec.MsgExecMirrorConflictSaved(s.wsPath(rel), saved)
	if err != nil {
		line = toolspec.MsgExecMirrorConflictNotSaved(s.wsPath(rel), err.Error())
	}
	s.conflicts = append(s.conflicts, conflict{rel: rel, line: line})
	return nil
}

// saveCopy copies the host node at rel (a file or a link) to the same
// path below the run's conflict directory, never over anything, and
// returns that path.
func (s *syncer) saveCopy(ctx context.Context, rel, hp string, fi fs.FileInfo) (string, error) {
	root, err := s.conflictDir(ctx)
	if err != nil {
		return "", err
	}
	dst := vfs.Join(root, rel)
	if err := s.ws.Mkdir(ctx, path.Dir(dst), vfs.MkdirOptions{Recursive: true}); err != nil {
		return "", err
	}
	if hostio.Type(fi) == vfs.TypeSymlink {
		target, err := os.Readlink(hp)
		if err != nil {
			return "", err
		}
		return dst, s.ws.Symlink(ctx, s.copy.WSTarget(target), dst)
	}
	f, err := os.Open(hp)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return dst, s.ws.WriteFromIf(ctx, dst, 0, f, vfs.UnixMode(fi.Mode()))
}

// maxConflictDirs is how many names conflictDir tries for one run.
const maxConflictDirs = 1000

// conflictDir makes the run's conflict directory on first use: the run's
// id, or, when a directory of that name exists (another process's run
// of the same id), the id with -2, -3, ... added.
func (s *syncer) conflictDir(ctx context.Context) (string, error) {
	if s.saveDir != "" {
		return s.saveDir, nil
	}
	id := s.run
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, "/\x00") {
		id = "run"
	}
	parent := path.Dir(toolspec.MsgExecMirrorConflictDir(id))
	if err := s.ws.Mkdir(ctx, parent, vfs.MkdirOptions{Recursive: true}); err != nil {
		return "", err
	}
	var err error
	for i := 1; i <= maxConflictDirs; i++ {
		name := id
		if i > 1 {
			name = toolspec.MsgExecMirrorConflictRetry(id, int64(i))
		}
		dir := toolspec.MsgExecMirrorConflictDir(name)
		if err = s.ws.Mkdir(ctx, dir, vfs.MkdirOptions{}); err == nil {
			s.saveDir = dir
			return dir, nil
		}
		if errno.CodeOf(err) != errno.EEXIST {
			return "", err
		}
	}
	return "", err
}

// clear removes what the last sync recorded at rel (st), and below it,
// for a node of another type the command put there: each node only
// while it is as the last sync left it. removed is false when something
// stays (the workspace changed it meanwhile); what stays below rel is
// named in the note.
func (s *syncer) clear(ctx context.Context, rel string, st syncState) (removed bool, err error) {
	if st.Type == vfs.TypeDir {
		var below []string
		for r := range s.state {
			if strings.HasPrefix(r, rel+"/") {
				below = append(below, r)
			}
		}
		s.removeAll(ctx, below)
	}
	return s.removeOne(ctx, rel, st)
}

// removeAll removes what the command deleted: the nodes at rels, as
// recorded, each only while the workspace has it as the last sync left
// it (a directory: while it is empty and unchanged). A node the
// workspace changed meanwhile stays, and is named in the note unless
// something below it is.
func (s *syncer) removeAll(ctx context.Context, rels []string) {
	// Longest paths first: a directory's entries go before it.
	slices.SortFunc(rels, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	for _, rel := range rels {
		st, ok := s.state[rel]
		if !ok {
			continue
		}
		removed, err := s.removeOne(ctx, rel, st)
		if err != nil {
			s.skipped.add(rel, err)
			continue
		}
		if !removed && !slices.ContainsFunc(s.conflicts, func(c conflict) bool { return strings.HasPrefix(c.rel, rel+"/") }) {
			s.stats.Conflicts++
			s.conflicts = append(s.conflicts, conflict{rel: rel, line: toolspec.MsgExecMirrorConflictNotDeleted(s.wsPath(rel))})
		}
	}
}

// removeOne removes the workspace node at rel that the last sync
// recorded as st, only while it is as that sync left it; removed is
// false when it stays because the workspace changed it. Either way what
// was recorded of it goes.
func (s *syncer) removeOne(ctx context.Context, rel string, st syncState) (removed bool, err error) {
	p := s.wsPath(rel)
	if st.Type == vfs.TypeDir {
		// A directory's revision moves with its entries: what counts is
		// that it is a directory, and empty.
		cur, lerr := s.ws.Lstat(ctx, p)
		switch {
		case missing(lerr):
			s.forget(rel)
			return true, nil
		case lerr != nil:
			return false, lerr
		case cur.Type != vfs.TypeDir:
			s.forget(rel)
			return false, nil
		}
		err = s.removeIf(ctx, p, cur.Rev)
	} else {
		err = s.removeIf(ctx, p, st.Rev)
	}
	switch c := errno.CodeOf(err); {
	case err == nil:
		s.stats.RemovedOut++
		s.forget(rel)
		return true, nil
	case missing(err):
		s.forget(rel)
		return true, nil
	case c == errno.EAGAIN, c == errno.ENOTEMPTY:
		s.forget(rel)
		return false, nil
	}
	return false, err
}

// conflictNote is the note on stderr naming the conflicts of the sync
// back, "" for none.
func (s *syncer) conflictNote() string {
	if len(s.conflicts) == 0 {
		return ""
	}
	slices.SortStableFunc(s.conflicts, func(a, b conflict) int { return strings.Compare(a.rel, b.rel) })
	var lines strings.Builder
	for i, c := range s.conflicts {
		if int64(i) == toolspec.ExecConflictLinesDefault {
			lines.WriteString(toolspec.MsgExecMirrorConflictMore(int64(len(s.conflicts) - i)))
			break
		}
		lines.WriteString(c.line)
	}
	return toolspec.MsgExecMirrorConflicts(lines.String())
}

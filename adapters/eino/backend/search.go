package backend

import (
	"bytes"
	"context"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/cloudwego/eino/adk/filesystem"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

// GlobInfo lists the regular files below req.Path ("/" when empty; the
// file itself when it is one) whose path relative to it, or whose
// absolute path for a pattern that starts with "/", matches req.Pattern
// in doublestar's dialect, the one Eino documents: "*" within a segment,
// "**" across directories, "?", "[abc]", "{a,b}". In walk order:
// pre-order, names in raw byte order. Links are not followed. Nothing at
// the path lists nothing. Errors: EINVAL "Invalid glob pattern", also
// for a glob whose braces make more than GlobAlternativesMax alternatives.
func (b *Backend) GlobInfo(ctx context.Context, req *filesystem.GlobInfoRequest) ([]filesystem.FileInfo, error) {
	match, err := matcher(req.Pattern, false)
	if err != nil {
		return nil, err
	}
	var out []filesystem.FileInfo
	err = b.walk(ctx, req.Path, func(f walked) error {
		if match(f) {
			out = append(out, filesystem.FileInfo{Path: f.path})
		}
		return nil
	})
	return out, err
}

// GrepRaw returns each line (as Read splits them) that holds req.Pattern,
// literally, in the regular files below req.Path ("/" when empty; the
// file itself when it is one), in walk order and line order, with its
// 1-based number and whole text. req.Glob, when set, keeps the files
// whose base name matches it when it has no "/" (as Eino's
// InMemoryBackend filters), else whose path relative to req.Path
// (absolute, for a glob that starts with "/"). A file the host will not
// let us read is passed over. Errors: EINVAL "Invalid glob pattern", as
// GlobInfo.
func (b *Backend) GrepRaw(ctx context.Context, req *filesystem.GrepRequest) ([]filesystem.GrepMatch, error) {
	keep := func(walked) bool { return true }
	if req.Glob != "" {
		var err error
		if keep, err = matcher(req.Glob, !strings.Contains(req.Glob, "/")); err != nil {
			return nil, err
		}
	}
	pattern := []byte(req.Pattern)
	var out []filesystem.GrepMatch
	err := b.walk(ctx, req.Path, func(f walked) error {
		if !keep(f) {
			return nil
		}
		r, err := b.ws.OpenResolved(ctx, f.real, 0)
		if unreadable(err) {
			return nil
		}
		if err != nil {
			return err
		}
		defer r.Close()
		err = eachLine(ctx, r, func(n int, line []byte) bool {
			if bytes.Contains(line, pattern) {
				out = append(out, filesystem.GrepMatch{Path: f.path, Line: n, Content: string(line)})
			}
			return true
		})
		if unreadable(err) {
			return nil
		}
		return err
	})
	return out, err
}

// matcher compiles a glob of Eino's dialect: matched against the base
// name when base is set, else against the path relative to the walk's
// root, or the absolute path when the glob starts with "/".
func matcher(glob string, base bool) (func(walked) bool, error) {
	if !doublestar.ValidatePattern(glob) {
		return nil, errno.New(errno.EINVAL, toolspec.MsgInvalidGlob(doublestar.ErrBadPattern.Error()), glob)
	}
	if alternatives(glob) > GlobAlternativesMax {
		return nil, errno.New(errno.EINVAL, toolspec.MsgInvalidGlob(toolspec.MsgEinoGlobTooManyAlternatives(GlobAlternativesMax)), glob)
	}
	return func(f walked) bool {
		name := f.rel
		switch {
		case base:
			name = vfs.Base(f.path)
		case strings.HasPrefix(glob, "/"):
			name = f.path
		}
		return doublestar.MatchUnvalidated(glob, name)
	}, nil
}

// GlobAlternativesMax is the most alternatives a glob's brace groups may
// make together ("{a,b}{c,d}" makes 4): doublestar tries each against a
// path in turn, so "{a,aa}" repeated 30 times would take hours on one
// name, with no way to cancel it.
const GlobAlternativesMax = 256

// alternatives is how many brace-free patterns glob's brace groups make
// (the product over groups in sequence, the sum over a group's
// alternatives), or a number above GlobAlternativesMax. glob is valid
// (doublestar.ValidatePattern): its braces are balanced.
func alternatives(glob string) int64 {
	type group struct{ sum, product int64 }
	stack := []group{{product: 1}}
	for i := 0; i < len(glob); i++ {
		top := &stack[len(stack)-1]
		switch glob[i] {
		case '\\':
			i++
		case '[':
			// A class's braces and commas are characters: skip to the
			// "]" that ends it, as doublestar reads it.
			if i++; glob[i] == '^' || glob[i] == '!' {
				i++
			}
			for ; glob[i] != ']'; i++ {
				if glob[i] == '\\' {
					i++
				}
			}
		case '{':
			stack = append(stack, group{product: 1})
		case ',':
			if len(stack) > 1 {
				top.sum, top.product = min(top.sum+top.product, GlobAlternativesMax+1), 1
			}
		case '}':
			if len(stack) > 1 {
				sum := min(top.sum+top.product, GlobAlternativesMax+1)
				stack = stack[:len(stack)-1]
				parent := &stack[len(stack)-1]
				parent.product = min(parent.product*sum, GlobAlternativesMax+1)
			}
		}
	}
	return stack[0].product
}

// walked is a regular file a walk found.
type walked struct {
	path string // as reported: below the path the walk was asked for
	rel  string // relative to that path (the file's name when it is the file)
	real string // link-free, to open
}

// walk hands visit every regular file below the directory at p (links
// followed to reach it), in pre-order with names in raw byte order, or
// the file at p itself. It does not follow links below p and passes over
// directories the host will not list. Nothing at p is nothing to visit.
func (b *Backend) walk(ctx context.Context, p string, visit func(walked) error) error {
	p, err := b.path(ctx, p)
	if err != nil {
		return err
	}
	loc, err := b.ws.Resolve(ctx, p)
	switch {
	case absent(err):
		return nil
	case err != nil:
		return err
	case loc.Info.Type == vfs.TypeFile:
		return visit(walked{path: p, rel: vfs.Base(p), real: loc.Real})
	case !loc.Info.IsDir():
		return nil
	}
	var dir func(real, shown, rel string) error
	dir = func(real, shown, rel string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		entries, err := b.ws.ReadDirResolved(ctx, real, 0, -1)
		if unreadable(err) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, en := range entries {
			f := walked{path: vfs.Join(shown, en.Name), rel: en.Name, real: vfs.Join(real, en.Name)}
			if rel != "" {
				f.rel = rel + "/" + en.Name
			}
			switch en.Type {
			case vfs.TypeDir:
				err = dir(f.real, f.path, f.rel)
			case vfs.TypeFile:
				err = visit(f)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	return dir(loc.Real, p, "")
}

// unreadable reports a host refusal a walk passes over, as our grep
// does: permission denied, or a node that vanished or changed kind while
// the walk went by.
func unreadable(err error) bool {
	switch errno.CodeOf(err) {
	case errno.EACCES, errno.EPERM, errno.ENOENT, errno.ENOTDIR, errno.ELOOP, errno.EISDIR:
		return true
	}
	return false
}

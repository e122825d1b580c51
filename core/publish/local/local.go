// Package local is the embedded publisher: publish copies the file's
// bytes into a directory the Publisher owns, and the Publisher, an
// http.Handler, serves each copy under a URL signed with HMAC-SHA256
// until the link expires.
//
// A link is BaseURL + "/" + name + "?id=ID&exp=EXP&sig=SIG": name is the
// call's prefix ("agent-<session id>", when the workspace has one) and
// the file's resolved workspace path without its leading slash, so a
// person sees what the link serves; ID is the copy's random id, EXP the
// expiry in Unix milliseconds, SIG the base64url HMAC-SHA256 of ID, name
// and EXP under the Publisher's key. Changing any of them makes the
// signature wrong.
//
// The copy is taken when publish runs: later changes to the workspace
// file do not change what the link serves. Copies are bounded by a
// per-file cap, a total of live copies and a longest expiry; a publish
// past one of them is a failure the model sees (the spec's
// local* messages of publish). Expired copies are deleted on every Publish
// and on a ticker until Close.
//
// The package imports only the standard library and the project's
// publish, errno and toolspec packages: no framework, no tool set.
package local

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agenttools/agenttools/core/errno"
	"github.com/agenttools/agenttools/core/publish"
	"github.com/agenttools/agenttools/toolspec"
)

// Defaults of the zero Options fields.
const (
	// DefaultMaxFileBytes caps one published file: 100 MiB.
	DefaultMaxFileBytes = 100 << 20
	// DefaultMaxTotalBytes caps the bytes of all live copies: 1 GiB.
	DefaultMaxTotalBytes = 1 << 30
	// DefaultMaxExpiry is the longest link: 7 days, as an S3 presigned
	// URL's.
	DefaultMaxExpiry = 7 * 24 * time.Hour
	// DefaultSweepEvery is how often expired copies are deleted between
	// publishes: one minute.
	DefaultSweepEvery = time.Minute
)

// Options configure a Publisher. Zero fields take the defaults.
type Options struct {
	// BaseURL is where the handler is reached, "http://127.0.0.1:8080" or
	// a proxy's "https://files.example.com/agent": every link starts with
	// it. Required; an http or https URL without a query or fragment.
	BaseURL string
	// Key signs the links (HMAC-SHA256; 32 bytes or more). Nil draws a
	// random key per Publisher, so its links stop working with it; a
	// stable key, with a stable Dir, keeps them working across restarts.
	Key []byte
	// Dir is the directory the copies are kept in (made 0700 if missing;
	// copies are files 0600 named ID.EXP). A Publisher owns it: New
	// takes over the copies a previous Publisher left there (their links
	// work again with the same Key) and deletes the expired ones; other
	// files are left alone. Two Publishers must not share one. Empty: a
	// new temporary directory, removed by Close.
	Dir string
	// MaxFileBytes caps one published file, in bytes
	// (DefaultMaxFileBytes).
	MaxFileBytes int64
	// MaxTotalBytes caps the bytes of all copies not yet expired
	// (DefaultMaxTotalBytes).
	MaxTotalBytes int64
	// MaxExpiry is the longest link Publish makes (DefaultMaxExpiry).
	MaxExpiry time.Duration
	// SweepEvery is how often expired copies are deleted between
	// publishes (DefaultSweepEvery).
	SweepEvery time.Duration
	// Now is the clock links expire by; time.Now when nil.
	Now func() time.Time
}

// minKeyBytes is the shortest Options.Key: HMAC-SHA256's output size.
const minKeyBytes = sha256.Size

// Publisher copies published files into its directory and serves them
// (see the package comment). It implements publish.Publisher and
// http.Handler; it is safe for concurrent use. Close stops its sweeps.
type Publisher struct {
	opts     Options
	base     *url.URL
	key      []byte
	dir      string
	ownsDir  bool
	stop     chan struct{}
	stopOnce sync.Once
	swept    sync.WaitGroup

	mu     sync.Mutex
	copies map[string]copyInfo // by file name in dir
	used   int64               // bytes of copies, reserved ones included
}

// copyInfo is one copy in the directory.
type copyInfo struct {
	size    int64
	expires time.Time
}

var _ publish.Publisher = (*Publisher)(nil)
var _ http.Handler = (*Publisher)(nil)

// New returns a Publisher, making its directory and starting its sweep.
// It fails on a BaseURL that is not an absolute http or https URL, a
// Key shorter than 32 bytes, negative caps, or a Dir it cannot make or
// read.
func New(opts Options) (*Publisher, error) {
	base, err := url.Parse(opts.BaseURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" || base.RawQuery != "" || base.Fragment != "" || base.User != nil {
		return nil, fmt.Errorf("local publisher: BaseURL %q is not an http or https URL without a query", opts.BaseURL)
	}
	base.Path, base.RawPath = strings.TrimSuffix(base.Path, "/"), ""
	if opts.MaxFileBytes < 0 || opts.MaxTotalBytes < 0 || opts.MaxExpiry < 0 || opts.SweepEvery < 0 {
		return nil, errors.New("local publisher: a negative cap or interval")
	}
	opts.MaxFileBytes = cmpOr(opts.MaxFileBytes, DefaultMaxFileBytes)
	opts.MaxTotalBytes = cmpOr(opts.MaxTotalBytes, DefaultMaxTotalBytes)
	opts.MaxExpiry = cmpOr(opts.MaxExpiry, DefaultMaxExpiry)
	opts.SweepEvery = cmpOr(opts.SweepEvery, DefaultSweepEvery)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	p := &Publisher{opts: opts, base: base, stop: make(chan struct{}), copies: map[string]copyInfo{}}
	switch {
	case opts.Key == nil:
		p.key = make([]byte, minKeyBytes)
		rand.Read(p.key)
	case len(opts.Key) < minKeyBytes:
		return nil, fmt.Errorf("local publisher: Key has %d bytes, want at least %d", len(opts.Key), minKeyBytes)
	default:
		p.key = append([]byte(nil), opts.Key...)
	}
	if opts.Dir == "" {
		if p.dir, err = os.MkdirTemp("", "agenttools-publish-"); err != nil {
			return nil, fmt.Errorf("local publisher: %w", err)
		}
		p.ownsDir = true
	} else {
		if p.dir, err = filepath.Abs(opts.Dir); err != nil {
			return nil, fmt.Errorf("local publisher: %w", err)
		}
		if err := os.MkdirAll(p.dir, 0o700); err != nil {
			return nil, fmt.Errorf("local publisher: %w", err)
		}
		if err := p.adopt(); err != nil {
			return nil, err
		}
	}
	p.sweep()
	p.swept.Add(1)
	go p.sweepEvery(opts.SweepEvery)
	return p, nil
}

// cmpOr is v, or def when v is zero.
func cmpOr[T int64 | time.Duration](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// copyName matches the name of a copy: its id, a dot, its expiry in
// Unix milliseconds.
var copyName = regexp.MustCompile(`^([A-Za-z0-9_-]{22})\.([0-9]{1,19})$`)

// adopt counts the copies a previous Publisher left in the directory.
func (p *Publisher) adopt() error {
	entries, err := os.ReadDir(p.dir)
	if err != nil {
		return fmt.Errorf("local publisher: %w", err)
	}
	for _, e := range entries {
		m := copyName.FindStringSubmatch(e.Name())
		if m == nil || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		exp, _ := strconv.ParseInt(m[2], 10, 64)
		p.copies[e.Name()] = copyInfo{size: info.Size(), expires: time.UnixMilli(exp)}
		p.used += info.Size()
	}
	return nil
}

// Close stops the sweep and, when New made the directory, removes it
// with every copy: the links stop working. It returns the error of that
// removal.
func (p *Publisher) Close() error {
	p.stopOnce.Do(func() { close(p.stop) })
	p.swept.Wait()
	if !p.ownsDir {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.copies, p.used = map[string]copyInfo{}, 0
	return os.RemoveAll(p.dir)
}

// sweepEvery deletes expired copies every interval until Close.
func (p *Publisher) sweepEvery(interval time.Duration) {
	defer p.swept.Done()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.sweep()
		}
	}
}

// sweep deletes the copies whose links have expired and frees their
// bytes. A copy that cannot be deleted yet (open for a download, on
// Windows) is tried again by the next sweep.
func (p *Publisher) sweep() {
	now := p.opts.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	for name, c := range p.copies {
		if now.Before(c.expires) {
			continue
		}
		if err := os.Remove(filepath.Join(p.dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		delete(p.copies, name)
		p.used -= c.size
	}
}

// Live returns how many copies are kept and their bytes: those not yet
// swept, expired or not.
func (p *Publisher) Live() (copies int, bytes int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.copies), p.used
}

// Publish copies the file f names and returns its signed link, which
// works until opts.ExpiresAfter from now. A failure the model should
// see is an *errno.Error: f.Open's (ENOENT, EISDIR, EACCES, ...),
// EFBIG for a file over MaxFileBytes (publish's localTooLarge), ENOSPC when
// the copy would take the live copies past MaxTotalBytes
// (localFull), EINVAL for an expiry past MaxExpiry
// (localExpiryTooLong), or an EIO reading the file or writing the
// copy. A cancelled ctx returns ctx's error. Nothing is kept after a
// failure.
func (p *Publisher) Publish(ctx context.Context, f publish.File, opts publish.Options) (string, error) {
	if opts.ExpiresAfter > p.opts.MaxExpiry {
		return "", errno.New(errno.EINVAL, toolspec.MsgPublishLocalExpiryTooLong(opts.Milliseconds(), p.opts.MaxExpiry.Milliseconds()), f.Path)
	}
	if opts.ExpiresAfter <= 0 {
		opts.ExpiresAfter = publish.DefaultExpiry
	}
	p.sweep()
	r, info, err := f.Open(ctx)
	if err != nil {
		return "", err
	}
	defer r.Close()
	if info.Size > p.opts.MaxFileBytes {
		return "", errno.New(errno.EFBIG, toolspec.MsgPublishLocalTooLarge(info.Size, p.opts.MaxFileBytes, info.Path), info.Path)
	}
	if err := p.reserve(info.Size, info.Path); err != nil {
		return "", err
	}
	reserved := info.Size
	id := newID()
	expires := p.opts.Now().Add(opts.ExpiresAfter)
	name := id + "." + strconv.FormatInt(expires.UnixMilli(), 10)
	file := filepath.Join(p.dir, name)
	n, err := p.copyTo(ctx, file, r, info)
	if err == nil && n != reserved {
		// The file changed size after it was opened: account for what was
		// copied.
		err = p.reserve(n-reserved, info.Path)
		if err == nil {
			reserved = n
		}
	}
	if err != nil {
		os.Remove(file)
		p.release(reserved)
		return "", err
	}
	p.mu.Lock()
	p.copies[name] = copyInfo{size: n, expires: expires}
	p.mu.Unlock()
	return p.link(id, publishedName(opts.Prefix, info.Path), expires.UnixMilli()), nil
}

// reserve counts n more bytes of copies (n may be negative), or fails
// with localFull when that would pass MaxTotalBytes.
func (p *Publisher) reserve(n int64, name string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n > 0 && p.used+n > p.opts.MaxTotalBytes {
		return errno.New(errno.ENOSPC, toolspec.MsgPublishLocalFull(name, n, p.opts.MaxTotalBytes), name)
	}
	p.used += n
	return nil
}

// release gives back n reserved bytes.
func (p *Publisher) release(n int64) {
	p.mu.Lock()
	p.used -= n
	p.mu.Unlock()
}

// copyTo writes what r holds to the new file name (0600), at most
// MaxFileBytes, and returns how many bytes it wrote. A cancelled ctx
// fails it once the copy is done: File.Open's reader stops early if it
// watches ctx itself.
func (p *Publisher) copyTo(ctx context.Context, name string, r io.Reader, info publish.Info) (int64, error) {
	out, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, hostError(toolspec.MsgOpCreate, info.Path, err)
	}
	n, err := io.Copy(out, io.LimitReader(r, p.opts.MaxFileBytes+1))
	if cerr := out.Close(); err == nil && cerr != nil {
		err = hostError(toolspec.MsgOpWrite, info.Path, cerr)
	}
	switch {
	case ctx.Err() != nil:
		return n, ctx.Err()
	case err != nil:
		var e *errno.Error
		if errors.As(err, &e) {
			return n, err
		}
		return n, hostError(toolspec.MsgOpRead, info.Path, err)
	case n > p.opts.MaxFileBytes:
		return n, errno.New(errno.EFBIG, toolspec.MsgPublishLocalTooLarge(n, p.opts.MaxFileBytes, info.Path), info.Path)
	}
	return n, nil
}

// hostError is an EIO in the words of the spec's hostIO message.
func hostError(op, path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &errno.Error{Code: errno.EIO, Message: toolspec.MsgHostIO(op, path, err.Error()), Path: path, Err: err}
}

// newID is a random copy id: 16 bytes, base64url (22 characters).
func newID() string {
	var b [16]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// publishedName is the name a link shows: the prefix, when set, and
// the workspace path without its leading slash.
func publishedName(prefix, workspacePath string) string {
	name := strings.TrimPrefix(path.Clean("/"+workspacePath), "/")
	if prefix != "" {
		name = prefix + "/" + name
	}
	return name
}

// link is the signed URL of the copy id under name, expiring at exp
// (Unix milliseconds).
func (p *Publisher) link(id, name string, exp int64) string {
	u := *p.base
	u.Path = p.base.Path + "/" + name
	q := url.Values{"id": {id}, "exp": {strconv.FormatInt(exp, 10)}, "sig": {p.sign(id, name, exp)}}
	u.RawQuery = q.Encode()
	return u.String()
}

// sign is the base64url HMAC-SHA256 of id, name and exp. NUL separates
// them: none of them holds one.
func (p *Publisher) sign(id, name string, exp int64) string {
	mac := hmac.New(sha256.New, p.key)
	fmt.Fprintf(mac, "%s\x00%s\x00%d", id, name, exp)
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// ServeHTTP serves GET and HEAD of a link Publish returned (405 for
// other methods). The request's path is the link's, or the part after
// BaseURL's path when a proxy in front strips it. Status: 403 for a
// missing or wrong signature (any part of the link changed), 410 Gone
// for a link past its expiry (signature checked first, so a changed
// expiry is 403), 404 for a signed link whose copy is gone (swept, or
// another Publisher's directory). A copy is served with
// http.ServeContent (Range and conditional requests; Content-Length),
// its Content-Type from the name's extension or, without one it knows,
// sniffed from the bytes; Content-Disposition inline with the file's
// name; Cache-Control private with max-age the seconds left before
// expiry; Content-Security-Policy sandbox (no scripts, an opaque
// origin) on all but PDFs.
func (p *Publisher) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, http.StatusText(http.StatusMethodNotAllowed), http.StatusMethodNotAllowed)
		return
	}
	name := r.URL.Path
	if rest, ok := strings.CutPrefix(name, p.base.Path+"/"); ok && p.base.Path != "" {
		name = rest
	} else {
		name = strings.TrimPrefix(name, "/")
	}
	q := r.URL.Query()
	id, expText, sig := q.Get("id"), q.Get("exp"), q.Get("sig")
	exp, err := strconv.ParseInt(expText, 10, 64)
	if err != nil || !copyName.MatchString(id+"."+expText) || !hmac.Equal([]byte(sig), []byte(p.sign(id, name, exp))) {
		http.Error(w, http.StatusText(http.StatusForbidden), http.StatusForbidden)
		return
	}
	left := time.UnixMilli(exp).Sub(p.opts.Now())
	if left <= 0 {
		http.Error(w, http.StatusText(http.StatusGone), http.StatusGone)
		return
	}
	f, err := os.Open(filepath.Join(p.dir, id+"."+expText))
	if err != nil {
		http.Error(w, http.StatusText(http.StatusNotFound), http.StatusNotFound)
		return
	}
	defer f.Close()
	h := w.Header()
	ct := mime.TypeByExtension(path.Ext(name))
	if ct != "" {
		h.Set("Content-Type", ct)
	}
	if mt, _, _ := mime.ParseMediaType(ct); mt != "application/pdf" {
		// A published page (HTML, SVG, or bytes sniffed as HTML) is the
		// model's: served inline on the BaseURL's origin, its scripts
		// would run there, with that origin's cookies and storage (a
		// BaseURL under a site's own origin). Sandboxed, the page renders
		// in an opaque origin without scripts. PDFs are left out: browsers'
		// PDF viewers refuse to show a sandboxed document.
		h.Set("Content-Security-Policy", "sandbox")
	}
	disposition := mime.FormatMediaType("inline", map[string]string{"filename": path.Base(name)})
	if disposition == "" {
		// A name mime cannot quote (a control character): inline all the
		// same.
		disposition = "inline"
	}
	h.Set("Content-Disposition", disposition)
	h.Set("Cache-Control", "private, max-age="+strconv.FormatInt(int64(left/time.Second), 10))
	h.Set("X-Content-Type-Options", "nosniff")
	// The copy never changes: its id is its version.
	h.Set("Etag", `"`+id+`"`)
	http.ServeContent(w, r, "", time.Time{}, f)
}

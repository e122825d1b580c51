package publish

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
)

// Scripted is a Publisher that looks at no file, for replay and tests: it
// answers as the oracle's scripted assets publisher does (the case key
// "assets" of the reference's harness). The URL is
//
//	BaseURL + Prefix + "/" + path without its leading slashes + "?expiresAfter=" + milliseconds
//
// ("/" only with a prefix), or, for a path listed in Fail, an error with
// the listed text. The path is the one the model wrote (File.Path), so a
// missing file or a relative path gets a URL too, as in the reference.
// Every call is recorded (Shares). A Scripted is safe for concurrent use;
// its fields must not change once it is in use.
type Scripted struct {
	// BaseURL starts every URL; "" means https://assets.example/.
	BaseURL string
	// Fail maps a path, as the model writes it, to the error text a call
	// for it fails with.
	Fail map[string]string

	mu     sync.Mutex
	shares []Share
}

// Share is one call a Scripted publisher answered.
type Share struct {
	Path string  // File.Path
	Opts Options // as the call gave them
}

// DefaultScriptedBaseURL is the BaseURL of a Scripted that sets none, the
// oracle's.
const DefaultScriptedBaseURL = "https://assets.example/"

// Publish records the call and answers its URL or its scripted error; a
// cancelled ctx is its error.
func (s *Scripted) Publish(ctx context.Context, f File, opts Options) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s.mu.Lock()
	s.shares = append(s.shares, Share{Path: f.Path, Opts: opts})
	s.mu.Unlock()
	if text, ok := s.Fail[f.Path]; ok {
		return "", errors.New(text)
	}
	base := s.BaseURL
	if base == "" {
		base = DefaultScriptedBaseURL
	}
	prefix := ""
	if opts.Prefix != "" {
		prefix = opts.Prefix + "/"
	}
	return base + prefix + strings.TrimLeft(f.Path, "/") + "?expiresAfter=" + strconv.FormatInt(opts.Milliseconds(), 10), nil
}

// Shares lists the calls answered so far, in order.
func (s *Scripted) Shares() []Share {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Share(nil), s.shares...)
}

package core

import (
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"
)

// walkGlobs are the automata of one walk: its include (nil for all) and
// its exclusions (see exclusions; nil for none).
type walkGlobs struct {
	inc, ex, exDirs *globDFA
}

// compileWalkGlobs builds the automata of a walk's include and exclude
// patterns. Errors: the include's first, then exclusions'.
func compileWalkGlobs(include string, exclude []string) (walkGlobs, error) {
	var g walkGlobs
	if include != "" {
		re, err := parseGlob(include)
		if err != nil {
			return walkGlobs{}, err
		}
		if g.inc, err = globMatcher([]*syntax.Regexp{re}); err != nil {
			return walkGlobs{}, err
		}
	}
	var err error
	if g.ex, g.exDirs, err = exclusions(exclude); err != nil {
		return walkGlobs{}, err
	}
	return g, nil
}

// size is about the memory the automata hold, in bytes.
func (g walkGlobs) size() int {
	n := 0
	for _, d := range []*globDFA{g.inc, g.ex, g.exDirs} {
		if d != nil {
			n += d.size()
		}
	}
	return n
}

// size is about the memory d holds, in bytes: its program and the
// states it keeps.
func (d *globDFA) size() int {
	return 64*len(d.prog.Inst) + 8*len(d.bounds) + globDFABudget - d.budget
}

// The most automata sets a globCache keeps, and the most memory, in
// bytes, they may hold together: a few agents' patterns, a few of their
// automata grown to their budget.
const (
	globCacheEntries = 16
	globCacheBytes   = 4 * globDFABudget
)

// globCache keeps the automata of recent walks, so that a call with the
// patterns of an earlier one (the next page of a find, say) skips
// parsing and compiling them, and finds the states the earlier walks
// reached already built. An automaton serves one call at a time: a call
// takes a set out of the cache and puts it back when done, and calls
// with the same patterns at once each build their own. Safe for
// concurrent use; the zero value is empty.
type globCache struct {
	mu    sync.Mutex
	sets  []cachedGlobs // least recently put first
	bytes int           // the sizes of sets, summed
}

type cachedGlobs struct {
	key  string
	g    walkGlobs
	size int
}

// globKey is the cache key of a walk's patterns: each with its length,
// so that no two lists share a key.
func globKey(include string, exclude []string) string {
	var b strings.Builder
	for _, p := range append([]string{include}, exclude...) {
		b.WriteString(strconv.Itoa(len(p)))
		b.WriteByte(':')
		b.WriteString(p)
	}
	return b.String()
}

// take returns the automata of a walk's patterns, out of the cache or
// newly built, and the key to put them back under. Errors as
// compileWalkGlobs's.
func (c *globCache) take(include string, exclude []string) (walkGlobs, string, error) {
	key := globKey(include, exclude)
	c.mu.Lock()
	for i := len(c.sets) - 1; i >= 0; i-- {
		if s := c.sets[i]; s.key == key {
			c.sets = append(c.sets[:i], c.sets[i+1:]...)
			c.bytes -= s.size
			c.mu.Unlock()
			return s.g, key, nil
		}
	}
	c.mu.Unlock()
	g, err := compileWalkGlobs(include, exclude)
	return g, key, err
}

// put gives back the automata take returned, once the call is done with
// them; the least recently put sets go while the cache holds too many
// or too much.
func (c *globCache) put(key string, g walkGlobs) {
	size := len(key) + g.size()
	if size > globCacheBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sets = append(c.sets, cachedGlobs{key, g, size})
	c.bytes += size
	for len(c.sets) > globCacheEntries || c.bytes > globCacheBytes {
		c.bytes -= c.sets[0].size
		c.sets[0] = cachedGlobs{}
		c.sets = c.sets[1:]
	}
}

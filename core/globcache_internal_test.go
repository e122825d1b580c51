package core

import (
	"fmt"
	"testing"
)

// TestGlobCacheKeepsAutomata checks that a walk's automata are kept
// between calls under their patterns, and only under theirs: a second
// take of the same include and exclusions gets the automata the first
// put back (with the states it built), other patterns get their own,
// and a take of patterns already taken builds a second set, so no two
// calls share an automaton.
func TestGlobCacheKeepsAutomata(t *testing.T) {
	var c globCache
	g, key, err := c.take("**/*.go", []string{"vendor/**"})
	if err != nil {
		t.Fatal(err)
	}
	if g.inc == nil || g.ex == nil || g.exDirs == nil {
		t.Fatalf("automata %+v: want include, exclusions and excluded directories", g)
	}
	if !g.inc.feed(g.inc.start, "a/b.go").match {
		t.Fatal("**/*.go does not match a/b.go")
	}
	again, _, _ := c.take("**/*.go", []string{"vendor/**"})
	if again.inc == g.inc {
		t.Fatal("a set taken twice at once: the second take got the first's automaton")
	}
	c.put(key, g)
	kept, _, _ := c.take("**/*.go", []string{"vendor/**"})
	if kept.inc != g.inc || kept.ex != g.ex || kept.exDirs != g.exDirs {
		t.Fatal("the automata put back were not taken again")
	}
	c.put(key, kept)
	for _, other := range []struct {
		include string
		exclude []string
	}{
		{"**/*.go", nil},
		{"**/*.go", []string{"vendor/**", "x"}},
		{"**/*.go", []string{"vendor/", "**"}},
		{"", []string{"**/*.go", "vendor/**"}},
		{"**/*.go vendor/**", nil},
	} {
		if g, _, _ := c.take(other.include, other.exclude); g.inc == kept.inc || g.ex == kept.ex && g.ex != nil {
			t.Errorf("include %q, exclude %q: got the automata of **/*.go excluding vendor/**", other.include, other.exclude)
		}
	}
	if _, _, err := c.take("{a,b", []string{"x"}); err != nil {
		t.Fatalf("a brace left open is literal: %v", err)
	}
}

// TestGlobCacheBounded checks that the cache holds globCacheEntries sets
// at most, the most recently put, and globCacheBytes of them at most.
func TestGlobCacheBounded(t *testing.T) {
	var c globCache
	for i := range 3 * globCacheEntries {
		g, key, err := c.take(fmt.Sprintf("**/*.%d", i), nil)
		if err != nil {
			t.Fatal(err)
		}
		c.put(key, g)
	}
	if len(c.sets) != globCacheEntries {
		t.Fatalf("%d sets kept, want %d", len(c.sets), globCacheEntries)
	}
	if got, want := c.sets[0].key, globKey(fmt.Sprintf("**/*.%d", 2*globCacheEntries), nil); got != want {
		t.Fatalf("oldest set kept %q, want %q", got, want)
	}
	// Sets grown to their budget: only as many as globCacheBytes holds.
	for i := range globCacheEntries {
		g, key, _ := c.take(fmt.Sprintf("big%d/**", i), nil)
		g.inc.budget = 0
		c.put(key, g)
	}
	if c.bytes > globCacheBytes || len(c.sets) > globCacheBytes/globDFABudget {
		t.Fatalf("%d sets of %d bytes kept, want %d bytes at most", len(c.sets), c.bytes, globCacheBytes)
	}
	total := 0
	for _, s := range c.sets {
		total += s.size
	}
	if total != c.bytes {
		t.Fatalf("sizes sum to %d, cache counts %d", total, c.bytes)
	}
}

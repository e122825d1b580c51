package core

import (
	"errors"
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"
)

// globDFA matches names against the RE2 translation of one glob or of
// several (a name matches when any of them matches it), with a
// deterministic automaton built lazily from the program regexp would
// run: each state is the set of the program's instructions a matcher
// can be at, so a name is matched in one table lookup per character,
// with no backtracking, and the states after a directory's path are
// kept by the walk, so a name below it is matched from there, not from
// the start of its path. The answers are regexp's own (the differential
// tests in glob_dfa_test.go hold them together): the same program, the
// same decoding of a name (a byte that is not UTF-8 is U+FFFD).
//
// The automaton keeps at most globDFABudget bytes of states; past that,
// a step's state is computed and not kept, which costs per character
// what regexp's own automaton costs. A globDFA serves one call at a time.
type globDFA struct {
	prog   *syntax.Prog
	bounds []rune             // class k is the runes from bounds[k] up to bounds[k+1]-1
	ascii  [utf8.RuneSelf]int // the class of each ASCII character
	states map[string]*globState
	budget int // bytes of states it may still keep
	start  *globState
	dead   *globState // no instruction left: nothing more matches

	// Scratch space of step.
	mark  []uint32 // mark[pc] == gen: pc is in the set being built
	gen   uint32
	stack []uint32
	pcs   []uint32
	key   []byte
}

// globState is a state of a globDFA: the consuming instructions (sorted)
// a matcher can be at, and whether the text read so far matches. next
// holds the state after each class once computed; it is nil for a state
// the automaton could not keep.
type globState struct {
	pcs   []uint32
	match bool
	next  []*globState
}

// globDFABudget is the memory, in bytes, a globDFA keeps states in.
const globDFABudget = 1 << 20

// errGlobProgram is the failure of newGlobDFA on a program it cannot
// run: one with case folding or with empty-width assertions other than
// "^" and "$" (begin and end of text), which no glob's translation has.
var errGlobProgram = errors.New("glob: the program has an instruction the automaton does not run")

// newGlobDFA builds the automaton that matches a name against any of
// globs, parsed translations (parseGlob). Errors: errGlobProgram.
func newGlobDFA(globs []*syntax.Regexp) (*globDFA, error) {
	re := globs[0]
	if len(globs) > 1 {
		re = &syntax.Regexp{Op: syntax.OpAlternate, Sub: globs}
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, err
	}
	d := &globDFA{prog: prog, states: map[string]*globState{}, budget: globDFABudget, mark: make([]uint32, len(prog.Inst))}
	// The classes: runes that every instruction tells apart are in one.
	bounds := []rune{0}
	for i := range prog.Inst {
		in := &prog.Inst[i]
		switch in.Op {
		case syntax.InstEmptyWidth:
			if op := syntax.EmptyOp(in.Arg); op != syntax.EmptyBeginText && op != syntax.EmptyEndText {
				return nil, errGlobProgram
			}
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			if syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
				return nil, errGlobProgram
			}
			for j := 0; j+1 < len(in.Rune); j += 2 {
				bounds = append(bounds, in.Rune[j], in.Rune[j+1]+1)
			}
			if len(in.Rune) == 1 {
				bounds = append(bounds, in.Rune[0], in.Rune[0]+1)
			}
			if in.Op == syntax.InstRuneAnyNotNL {
				bounds = append(bounds, '\n', '\n'+1)
			}
		}
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	for len(bounds) > 0 && bounds[len(bounds)-1] > unicode.MaxRune {
		bounds = bounds[:len(bounds)-1]
	}
	d.bounds = bounds
	for c := range d.ascii {
		d.ascii[c] = d.classOf(rune(c))
	}
	d.dead = &globState{}
	d.stack = append(d.stack, uint32(prog.Start))
	d.start = d.closure(true, true)
	return d, nil
}

// classOf is the class of rune r.
func (d *globDFA) classOf(r rune) int {
	i, found := slices.BinarySearch(d.bounds, r)
	if !found {
		i--
	}
	return i
}

// matches reports whether name matches from the start.
func (d *globDFA) matches(name string) bool {
	return d.feed(d.start, name).match
}

// feed returns the state after reading text from state s.
func (d *globDFA) feed(s *globState, text string) *globState {
	for i := 0; i < len(text); {
		if len(s.pcs) == 0 {
			return d.dead
		}
		var class int
		if c := text[i]; c < utf8.RuneSelf {
			class = d.ascii[c]
			i++
		} else {
			r, size := utf8.DecodeRuneInString(text[i:])
			class = d.classOf(r)
			i += size
		}
		if s.next != nil && s.next[class] != nil {
			s = s.next[class]
			continue
		}
		s = d.step(s, class)
	}
	return s
}

// step computes the state after a character of the class from s, and
// keeps it while the budget allows.
func (d *globDFA) step(s *globState, class int) *globState {
	r := d.bounds[class]
	d.stack = d.stack[:0]
	for _, pc := range s.pcs {
		if in := &d.prog.Inst[pc]; in.MatchRune(r) {
			d.stack = append(d.stack, in.Out)
		}
	}
	t := d.closure(false, s.next != nil)
	if s.next != nil && t.next != nil {
		s.next[class] = t
	}
	return t
}

// closure is the state of the consuming instructions reached from the
// instructions on d.stack without reading a character, at the start of
// the text when begin is set ("^" holds there only); a kept one when
// keep is set and the budget allows. The state matches when the text
// may end there: Match is reached, through "$" too.
func (d *globDFA) closure(begin, keep bool) *globState {
	d.newGen()
	d.pcs = d.pcs[:0]
	match := false
	var ends []uint32 // the instructions after a "$" reached
	for len(d.stack) > 0 {
		pc := d.stack[len(d.stack)-1]
		d.stack = d.stack[:len(d.stack)-1]
		if d.mark[pc] == d.gen {
			continue
		}
		d.mark[pc] = d.gen
		switch in := &d.prog.Inst[pc]; in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			d.stack = append(d.stack, in.Arg, in.Out)
		case syntax.InstNop, syntax.InstCapture:
			d.stack = append(d.stack, in.Out)
		case syntax.InstEmptyWidth:
			switch syntax.EmptyOp(in.Arg) {
			case syntax.EmptyBeginText:
				if begin {
					d.stack = append(d.stack, in.Out)
				}
			case syntax.EmptyEndText:
				ends = append(ends, in.Out)
			}
		case syntax.InstMatch:
			match = true
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			d.pcs = append(d.pcs, pc)
		}
	}
	if len(ends) > 0 && !match {
		match = d.endsInMatch(ends, begin)
	}
	if len(d.pcs) == 0 && !match {
		return d.dead
	}
	slices.Sort(d.pcs)
	d.key = d.key[:0]
	for _, pc := range d.pcs {
		d.key = append(d.key, byte(pc), byte(pc>>8), byte(pc>>16), byte(pc>>24))
	}
	if match {
		d.key = append(d.key, 1)
	}
	if s, ok := d.states[string(d.key)]; ok {
		return s
	}
	s := &globState{pcs: slices.Clone(d.pcs), match: match}
	if cost := 64 + 4*len(s.pcs) + 8*len(d.bounds) + len(d.key); keep && cost <= d.budget {
		d.budget -= cost
		s.next = make([]*globState, len(d.bounds))
		d.states[string(d.key)] = s
	}
	return s
}

// endsInMatch reports whether Match is reached from the instructions
// from when the text ends there: with no character read, "$" holding
// (and "^" when begin is set).
func (d *globDFA) endsInMatch(from []uint32, begin bool) bool {
	d.newGen()
	stack := from
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if d.mark[pc] == d.gen {
			continue
		}
		d.mark[pc] = d.gen
		switch in := &d.prog.Inst[pc]; in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, in.Arg, in.Out)
		case syntax.InstNop, syntax.InstCapture:
			stack = append(stack, in.Out)
		case syntax.InstEmptyWidth:
			if op := syntax.EmptyOp(in.Arg); op == syntax.EmptyEndText || begin && op == syntax.EmptyBeginText {
				stack = append(stack, in.Out)
			}
		case syntax.InstMatch:
			return true
		}
	}
	return false
}

// newGen starts a new set of marks.
func (d *globDFA) newGen() {
	if d.gen++; d.gen == 0 {
		clear(d.mark)
		d.gen = 1
	}
}

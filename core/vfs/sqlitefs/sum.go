package sqlitefs

import (
	"database/sql"
	"database/sql/driver"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"sync"

	"modernc.org/sqlite"

	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

// The checksum of a node row (layout 3): the CRC-32C of its 11 columns
// in this order, path, parent, name, type, mode, mtime, size, target,
// rev, cid, entries, each encoded by its SQLite type (sumNull and so on):
// NULL as the tag alone, an integer as the tag and 8 bytes big-endian, a
// text or blob as the tag, its length (uvarint) and its bytes, a real as
// the tag and the 8 bytes of its IEEE 754 bits. The statements that write
// a node compute it in SQL with sumFunc, from the values they store;
// every read computes it in Go from the values it got (nodeSum) and
// compares.
const (
	sumNull = iota
	sumInt
	sumText
	sumReal
	sumBlob
)

// sumFunc is the SQL function, registered with the driver for every
// connection, that computes a node row's checksum from its 11 values.
// It is deterministic and reads nothing but its arguments.
const sumFunc = "agenttools_node_sum"

// nodeSumArgs are the arguments of sumFunc that recompute a stored row's
// checksum from its columns.
const nodeSumArgs = `path, parent, name, type, mode, mtime, size, target, rev, cid, entries`

func init() {
	sqlite.MustRegisterFunction(sumFunc, &sqlite.FunctionImpl{
		NArgs:         11,
		Deterministic: true,
		// The arguments are only read, never kept.
		VolatileArgs: true,
		Scalar:       sqlNodeSum,
	})
}

// sqlNodeSum is sumFunc.
func sqlNodeSum(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	var buf [256]byte
	b := buf[:0]
	for _, a := range args {
		switch v := a.(type) {
		case nil:
			b = append(b, sumNull)
		case int64:
			b = appendSumInt(b, v)
		case string:
			b = appendSumText(b, v)
		case float64:
			b = binary.BigEndian.AppendUint64(append(b, sumReal), math.Float64bits(v))
		case []byte:
			b = binary.AppendUvarint(append(b, sumBlob), uint64(len(v)))
			b = append(b, v...)
		default:
			return nil, fmt.Errorf("%s: an argument of type %T", sumFunc, a)
		}
	}
	return checksum(b), nil
}

func appendSumInt(b []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(append(b, sumInt), uint64(v))
}

func appendSumText(b []byte, s string) []byte {
	b = binary.AppendUvarint(append(b, sumText), uint64(len(s)))
	return append(b, s...)
}

// appendSumPath appends the text dir+"/"+base (base alone when dir is
// the root, ""), without making the string.
func appendSumPath(b []byte, dir, base string) []byte {
	if dir == "" {
		return appendSumText(b, base)
	}
	b = binary.AppendUvarint(append(b, sumText), uint64(len(dir)+1+len(base)))
	b = append(b, dir...)
	b = append(b, '/')
	return append(b, base...)
}

// checksum is the CRC-32C of b, as stored: 0 to 1<<32-1.
func checksum(b []byte) int64 { return int64(crc32.Checksum(b, castagnoli)) }

// sum is the checksum of the node row n at base in directory dir (the
// root: both "", root true), computed into buf, which it returns for the
// next row.
func (n *node) sum(buf []byte, dir, base string, root bool) ([]byte, int64) {
	b := buf[:0]
	if root {
		b = append(appendSumText(b, ""), sumNull)
	} else {
		b = appendSumText(appendSumPath(b, dir, base), dir)
	}
	b = appendSumText(b, base)
	b = appendSumInt(b, int64(n.typ))
	b = appendSumInt(b, int64(n.mode))
	b = appendSumInt(b, n.mtime)
	b = appendSumInt(b, n.size)
	b = appendSumText(b, n.target)
	b = appendSumInt(b, n.rev)
	if n.cid.Valid {
		b = appendSumInt(b, n.cid.Int64)
	} else {
		b = append(b, sumNull)
	}
	b = appendSumInt(b, n.entries)
	return b, checksum(b)
}

// The damage a node row can show.
var (
	errNodeChecksum = &damage{reason: toolspec.MsgDatabaseNodeChecksum}
	errNodeInvalid  = &damage{reason: toolspec.MsgDatabaseNodeInvalid}
	errEntryCount   = &damage{reason: toolspec.MsgDatabaseEntryCount}
	errCounter      = &damage{reason: toolspec.MsgDatabaseCounter}
)

// nodeCols are the columns of a node row the store reads (after the
// name, in a listing): nodeColumns, then entries and sum (both NULL from
// a database of layout 1 or 2, which has neither).
const nodeCols = 9

// rowScanner scans node rows without converting their values, so a value
// of the wrong type is found (damage) rather than failing as a
// conversion; one scanner serves every row of a listing.
type rowScanner struct {
	vals [nodeCols + 1]any
	dest [nodeCols + 1]any
	// kind and kdest scan a listing's rows, which start with their kind
	// (0 the directory, 1 an entry) before the name (see scanListing).
	kind  int64
	kdest [nodeCols + 2]any
	buf   []byte    // for the checksums
	arr   [256]byte // buf's first array: a node's encoding is most often shorter
}

// scanners keeps rowScanners for reuse: a lookup needs one.
var scanners = sync.Pool{New: func() any {
	s := &rowScanner{}
	for i := range s.vals {
		s.dest[i] = &s.vals[i]
		s.kdest[i+1] = &s.vals[i]
	}
	s.kdest[0] = &s.kind
	s.buf = s.arr[:0]
	return s
}}

func newRowScanner() *rowScanner { return scanners.Get().(*rowScanner) }

// free returns s for reuse; s must not be used after.
func (s *rowScanner) free() {
	clear(s.vals[:])
	if cap(s.buf) > 4<<10 {
		s.buf = s.arr[:0]
	}
	scanners.Put(s)
}

// node scans a row of nodeColumns from src, preceded by the entry's
// name when named is true, and checks it: its values must be of the
// right types and possible (see node.problem), and, unless unsummed (a
// layout without checksums, read-only), match its checksum computed for
// the node at base in dir (root: the root). It returns the name.
func (s *rowScanner) node(src interface{ Scan(...any) error }, named bool, dir, base string, root, unsummed bool) (n node, name string, err error) {
	if err := s.scan(src, named); err != nil {
		return n, "", err
	}
	return s.check(named, dir, base, root, unsummed)
}

// scan scans a row of nodeColumns from src, preceded by the entry's
// name when named is true, into s.
func (s *rowScanner) scan(src interface{ Scan(...any) error }, named bool) error {
	if named {
		return src.Scan(s.dest[:]...)
	}
	return src.Scan(s.dest[:nodeCols]...)
}

// scanListing scans a row of a listing (qDirPage, qDirAfter) into s: its
// kind, 0 for the directory and 1 for an entry, then as scan does a
// named row.
func (s *rowScanner) scanListing(src interface{ Scan(...any) error }) (kind int64, err error) {
	err = src.Scan(s.kdest[:]...)
	return s.kind, err
}

// check checks the row scan scanned, as node does.
func (s *rowScanner) check(named bool, dir, base string, root, unsummed bool) (n node, name string, err error) {
	vals := s.vals[:nodeCols]
	if named {
		vals = s.vals[:]
	}
	if named {
		var ok bool
		if name, ok = vals[0].(string); !ok {
			return n, "", errNodeInvalid
		}
		base = name
		vals = vals[1:]
	}
	n, stored, ok := decodeNode(vals, unsummed)
	if !ok {
		return n, "", errNodeInvalid
	}
	if !unsummed {
		var sum int64
		s.buf, sum = n.sum(s.buf, dir, base, root)
		if sum != stored {
			return n, "", errNodeChecksum
		}
	}
	if n.problem(root) != "" {
		return n, "", errNodeInvalid
	}
	return n, name, nil
}

// decodeNode makes a node of the values of nodeColumns, and returns its
// stored checksum too (unless unsummed); ok is false when a value is not
// of its column's type.
func decodeNode(vals []any, unsummed bool) (n node, stored int64, ok bool) {
	typ, ok1 := vals[0].(int64)
	mode, ok2 := vals[1].(int64)
	mtime, ok3 := vals[2].(int64)
	size, ok4 := vals[3].(int64)
	target, ok5 := vals[4].(string)
	rev, ok6 := vals[5].(int64)
	cid, ok7 := vals[6].(int64)
	ok7 = ok7 || vals[6] == nil
	entries, ok8 := vals[7].(int64)
	stored, ok9 := vals[8].(int64)
	if unsummed {
		entries, ok8, ok9 = 0, true, true
	}
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7 && ok8 && ok9) {
		return n, 0, false
	}
	// Values out of range (never written: see problem) become values
	// still out of range.
	if mode < 0 || mode > math.MaxUint32 {
		mode = math.MaxUint32
	}
	return node{typ: int(min(max(typ, -1), 1<<16)), mode: uint32(mode), mtime: mtime, size: size, target: target, rev: rev,
		cid: sql.NullInt64{Int64: cid, Valid: vals[6] != nil}, entries: entries}, stored, true
}

// problem says what makes n a node the store could not have written, ""
// when nothing does: it is of a known type (the root a directory), its
// mode permission bits only, its size a file's length (a link's target
// length in UTF-16 code units, 0 for a directory), content only on a
// file with bytes, a target only on a link, entries counted only in a
// directory.
func (n *node) problem(root bool) string {
	switch {
	case n.typ < dbFile || n.typ > dbSymlink:
		return fmt.Sprintf("type %d is none the workspace writes", n.typ)
	case root && n.typ != dbDir:
		return "the root is not a directory"
	case n.mode > 0o7777:
		return fmt.Sprintf("mode %#o has bits other than the permission bits", n.mode)
	case n.size < 0:
		return fmt.Sprintf("size %d is negative", n.size)
	case n.rev < 0:
		return fmt.Sprintf("revision %d is negative", n.rev)
	case n.entries < 0:
		return fmt.Sprintf("it counts %d entries", n.entries)
	case n.typ != dbDir && n.entries != 0:
		return fmt.Sprintf("it counts %d entries and is no directory", n.entries)
	case n.typ != dbSymlink && n.target != "":
		return "it has a link target and is no link"
	case n.typ == dbDir && n.size != 0:
		return fmt.Sprintf("a directory of size %d", n.size)
	case n.typ != dbFile && n.cid.Valid:
		return "it has content and is no file"
	case n.typ == dbFile && n.cid.Valid && n.cid.Int64 <= 0:
		return fmt.Sprintf("content id %d", n.cid.Int64)
	case n.typ == dbFile && n.cid.Valid && n.size == 0:
		return fmt.Sprintf("a file of 0 bytes with content %d", n.cid.Int64)
	case n.typ == dbFile && !n.cid.Valid && n.size > 0:
		return fmt.Sprintf("a file of %d bytes without content", n.size)
	case n.typ == dbSymlink && n.size != vfs.UTF16Len(n.target):
		return fmt.Sprintf("a link of size %d whose target is %d long", n.size, vfs.UTF16Len(n.target))
	}
	return ""
}

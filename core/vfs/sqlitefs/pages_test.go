package sqlitefs_test

import (
	"encoding/binary"
	"testing"
)

// column is a value of a record found in a database file: its serial
// type, where its bytes are in the file and how many, and its text (for
// a text value).
type column struct {
	serial int64
	off, n int
	text   string
}

// records returns the records of the cells of the b-tree leaf pages
// (index and table) and interior index pages of the database file b,
// (of the page size its header gives), one []column each. Records that
// overflow their page are left out (the tests' records are small).
func records(t *testing.T, b []byte) [][]column {
	t.Helper()
	pageSize := int(binary.BigEndian.Uint16(b[16:]))
	if pageSize == 1 {
		pageSize = 1 << 16
	}
	var out [][]column
	for p := 0; (p+1)*pageSize <= len(b); p++ {
		base, hdr := p*pageSize, p*pageSize
		if p == 0 {
			hdr += 100
		}
		kind := b[hdr]
		var ptrs int
		switch kind {
		case 0x0a, 0x0d: // index leaf, table leaf
			ptrs = hdr + 8
		case 0x02: // index interior
			ptrs = hdr + 12
		default:
			continue
		}
		cells := int(binary.BigEndian.Uint16(b[hdr+3:]))
		for c := range cells {
			i := base + int(binary.BigEndian.Uint16(b[ptrs+2*c:]))
			if kind == 0x02 {
				i += 4 // the left child's page number
			}
			size, n := varint(b[i:])
			i += n
			if kind == 0x0d {
				_, n = varint(b[i:]) // the rowid
				i += n
			}
			if size > 1000 {
				continue
			}
			if rec, ok := record(b, i, int(size)); ok {
				out = append(out, rec)
			}
		}
	}
	return out
}

// record parses the record of size bytes at b[i:].
func record(b []byte, i, size int) ([]column, bool) {
	hsize, n := varint(b[i:])
	if hsize <= 0 || int(hsize) > size {
		return nil, false
	}
	var cols []column
	data := i + int(hsize)
	for j := i + n; j < i+int(hsize); {
		serial, n := varint(b[j:])
		j += n
		l := serialLen(serial)
		if data+l > i+size {
			return nil, false
		}
		c := column{serial: serial, off: data, n: l}
		if serial >= 13 && serial%2 == 1 {
			c.text = string(b[data : data+l])
		}
		cols = append(cols, c)
		data += l
	}
	return cols, true
}

// varint decodes SQLite's big-endian varint.
func varint(b []byte) (int64, int) {
	var v int64
	for k := range 9 {
		if k == 8 {
			return v<<8 | int64(b[k]), 9
		}
		v = v<<7 | int64(b[k]&0x7f)
		if b[k] < 0x80 {
			return v, k + 1
		}
	}
	panic("unreachable")
}

// serialLen is the length of a value of serial type s.
func serialLen(s int64) int {
	switch {
	case s >= 12:
		return int(s-12) / 2
	case s == 5:
		return 6
	case s == 6 || s == 7:
		return 8
	case s >= 1 && s <= 4:
		return int(s)
	}
	return 0
}

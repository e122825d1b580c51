package sqlitefs

import (
	"bytes"
	"database/sql/driver"
	"testing"
)

// TestChunkInto checks the SQL function that copies chunks into a
// reader's buffer: a chunk lands at its place from the sink's first
// chunk, and one that does not fit there (before the first, past the
// buffer's end, longer than a chunk) or has no sink is not copied and
// reports -1, which no chunk's length is; NULL stays NULL.
func TestChunkInto(t *testing.T) {
	buf := make([]byte, 2*chunkSize+10)
	id, done := sinkTo(buf, 5)
	defer done()
	full := bytes.Repeat([]byte{'a'}, chunkSize)
	tests := []struct {
		name string
		args []driver.Value
		want driver.Value
		at   int // where the bytes land, -1 nowhere
	}{
		{"first", []driver.Value{id, int64(5), full}, int64(chunkSize), 0},
		{"second as text", []driver.Value{id, int64(6), string(full[:7])}, int64(7), chunkSize},
		{"the last, short", []driver.Value{id, int64(7), full[:10]}, int64(10), 2 * chunkSize},
		{"past the end", []driver.Value{id, int64(7), full[:11]}, int64(-1), -1},
		{"after the buffer", []driver.Value{id, int64(8), full[:1]}, int64(-1), -1},
		{"before the first", []driver.Value{id, int64(4), full[:1]}, int64(-1), -1},
		{"longer than a chunk", []driver.Value{id, int64(5), append(full, 'x')}, int64(-1), -1},
		{"no such sink", []driver.Value{id + 1, int64(5), full[:1]}, int64(-1), -1},
		{"an integer", []driver.Value{id, int64(5), int64(3)}, int64(-1), -1},
		{"an index not integer", []driver.Value{id, "5", full[:1]}, int64(-1), -1},
		{"NULL", []driver.Value{id, nil, nil}, nil, -1},
	}
	for _, tt := range tests {
		clear(buf)
		got, err := sqlChunkInto(nil, tt.args)
		if err != nil || got != tt.want {
			t.Errorf("%s: %v, %v; want %v", tt.name, got, err, tt.want)
		}
		want := make([]byte, len(buf))
		if tt.at >= 0 {
			copy(want[tt.at:], bytes.Repeat([]byte{'a'}, int(tt.want.(int64))))
		}
		if !bytes.Equal(buf, want) {
			t.Errorf("%s: the buffer holds other bytes than the chunk at %d", tt.name, tt.at)
		}
	}
	done()
	if _, ok := sinks.Load(id); ok {
		t.Error("a sink is kept after its statement")
	}
}

package sqlitefs

import (
	"time"

	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// ChunkReads is how many chunks the readers of f fetched.
func (f *FS) ChunkReads() int64 { return f.chunkReads.Load() }

// WithGCAge sets how old unreferenced content must be before Open
// collects it.
func WithGCAge(d time.Duration) Option { return withGCAge(d) }

// ChunkSize is the length of a content chunk in bytes.
const ChunkSize = chunkSize

// Unprepared is how many statements f ran unprepared: 0 unless a
// statement is missing from queries.
func (f *FS) Unprepared() int64 { return f.w.unprepared.Load() + f.r.unprepared.Load() }

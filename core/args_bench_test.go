package core

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agenttools/agenttools/toolspec"
)

// writeArgs1MiB is a write call's arguments as the bench case write-1mib
// sends them: 1 MiB of lines, each ending in an escaped newline.
func writeArgs1MiB() []byte {
	var content strings.Builder
	content.WriteString("iteration 1\n")
	for n := 1; n <= 15130; n++ {
		fmt.Fprintf(&content, "%d lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do\n", n)
	}
	text, _ := json.Marshal(map[string]string{"path": "/workspace/out/w.txt", "content": content.String()})
	return text
}

func writeDecoder() argDecoder {
	return argDecoder{tool: toolspec.ToolWrite, params: toolspec.WriteParams}
}

// BenchmarkArgDecode1MiB: decoding a 1 MiB write argument, with the
// one-pass decoder (new) and the reference it replaced (old).
func BenchmarkArgDecode1MiB(b *testing.B) {
	text := writeArgs1MiB()
	d := writeDecoder()
	b.Run("new", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			var args toolspec.WriteArgs
			if err := d.decode(text, &args); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("old", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			var args toolspec.WriteArgs
			if err := oldArgDecoder(d).oldDecode(text, &args); err != nil {
				b.Fatal(err)
			}
		}
	})
}

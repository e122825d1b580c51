package adapt_test

import (
	"testing"

	"github.com/agenttools/agenttools/internal/adapt"
	"github.com/agenttools/agenttools/internal/agentcase"
	"github.com/agenttools/agenttools/toolspec"
)

// TestSendableMedia: an image goes as the type its bytes show, a PDF as
// a PDF; bytes that are no file of the kind read named are not sent.
func TestSendableMedia(t *testing.T) {
	pdf := []byte("%PDF-1.4\n%%EOF\n")
	for _, tc := range []struct {
		name, mediaType string
		data            []byte
		want            string
		ok              bool
	}{
		{"png", toolspec.MsgReadMediaPNG, agentcase.Pixel, toolspec.MsgReadMediaPNG, true},
		{"png named .jpg", toolspec.MsgReadMediaJPEG, agentcase.Pixel, toolspec.MsgReadMediaPNG, true},
		{"gif", toolspec.MsgReadMediaPNG, []byte("GIF89a\x01\x00\x01\x00"), toolspec.MsgReadMediaGIF, true},
		{"pdf", toolspec.MsgReadMediaPDF, pdf, toolspec.MsgReadMediaPDF, true},
		{"text named .png", toolspec.MsgReadMediaPNG, []byte("version https://git-lfs.github.com/spec/v1\n"), "", false},
		{"text named .pdf", toolspec.MsgReadMediaPDF, []byte("not a pdf"), "", false},
		{"pdf named .png", toolspec.MsgReadMediaPNG, pdf, "", false},
		{"png named .pdf", toolspec.MsgReadMediaPDF, agentcase.Pixel, "", false},
	} {
		got, ok := adapt.SendableMedia(&toolspec.Media{MediaType: tc.mediaType, Data: tc.data})
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("%s: SendableMedia = %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

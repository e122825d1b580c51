package adapt

import (
	"net/http"

	"github.com/agenttools/agenttools/toolspec"
)

// SendableMedia returns the media type under which an API that decodes
// the files it is given (OpenAI's, Anthropic's) takes read's image or
// PDF m, and false when m's bytes are no file of a kind it takes, such as
// a Git LFS pointer saved as .png: read names a file by its extension
// first, as the reference does, and such an API refuses the whole
// request, every later one of the conversation too, for a file part it
// cannot decode or whose bytes are another type than it says (deviation
// unreadableMedia). An image goes as the type its bytes show (PNG, JPEG,
// GIF or WebP, as http.DetectContentType sniffs them), a PDF only when
// its bytes start as one.
func SendableMedia(m *toolspec.Media) (string, bool) {
	switch sniffed := http.DetectContentType(m.Data); sniffed {
	case toolspec.MsgReadMediaPNG, toolspec.MsgReadMediaJPEG, toolspec.MsgReadMediaGIF, toolspec.MsgReadMediaWebP:
		return sniffed, m.IsImage()
	case toolspec.MsgReadMediaPDF:
		return sniffed, !m.IsImage()
	}
	return "", false
}

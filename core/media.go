package core

import (
	"bytes"
	"context"
	"io"
	"strings"

	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/toolspec"
)

// mediaKind is how read treats a file, as the reference decides it: the
// kind of its ReadMediaResult, or kindText for a file read as text.
type mediaKind string

const (
	kindText   mediaKind = "" // never shown: a text read has no kind
	kindImage  mediaKind = toolspec.MsgReadKindImage
	kindFile   mediaKind = toolspec.MsgReadKindFile // a PDF
	kindBinary mediaKind = toolspec.MsgReadKindBinary
)

type media struct {
	kind      mediaKind
	mediaType string // "" for kindText, which never shows it
}

// Media types, and the extensions that decide a file without looking at
// it, as in the reference.
var (
	mediaByExtension = map[string]media{
		".png":  {kindImage, toolspec.MsgReadMediaPNG},
		".jpg":  {kindImage, toolspec.MsgReadMediaJPEG},
		".jpeg": {kindImage, toolspec.MsgReadMediaJPEG},
		".gif":  {kindImage, toolspec.MsgReadMediaGIF},
		".webp": {kindImage, toolspec.MsgReadMediaWebP},
		".pdf":  {kindFile, toolspec.MsgReadMediaPDF},
	}
	textExtensions = set(".c", ".cc", ".cpp", ".conf", ".css", ".csv", ".env", ".go", ".h", ".html",
		".ini", ".java", ".js", ".json", ".jsonc", ".jsx", ".lock", ".log", ".md", ".mjs", ".php",
		".py", ".rb", ".rs", ".sh", ".sql", ".svg", ".toml", ".ts", ".tsx", ".txt", ".xml", ".yaml",
		".yml", ".zig")
	textFilenames = set(".dockerignore", ".editorconfig", ".env", ".gitattributes", ".gitignore",
		".npmrc", "dockerfile", "makefile")
	plainText = media{kind: kindText}
)

func set(items ...string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, it := range items {
		m[it] = true
	}
	return m
}

// extension is the lower-cased extension of the last path component; a
// name that starts with its only dot has none.
func extension(p string) string {
	name := strings.ToLower(baseName(p))
	dot := strings.LastIndexByte(name, '.')
	if dot <= 0 {
		return ""
	}
	return name[dot:]
}

// baseName is what follows the last "/" of a path as given.
func baseName(p string) string {
	return p[strings.LastIndexByte(p, '/')+1:]
}

// detectMedia classifies a file: by its extension first, then by its
// first sniff bytes (magic numbers, SVG markup, a text heuristic).
func (e *Executor) detectMedia(ctx context.Context, given, path string) (media, error) {
	ext := extension(given)
	if m, ok := mediaByExtension[ext]; ok {
		return m, nil
	}
	if textExtensions[ext] || textFilenames[strings.ToLower(baseName(given))] {
		return plainText, nil
	}
	r, _, err := e.ws.Open(ctx, path, 0)
	if err != nil {
		return media{}, err
	}
	defer r.Close()
	prefix, err := io.ReadAll(io.LimitReader(r, e.s.mediaSniffBytes))
	if err != nil {
		return media{}, err
	}
	return sniff(prefix), nil
}

func sniff(prefix []byte) media {
	switch {
	case bytes.HasPrefix(prefix, []byte{0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}):
		return media{kindImage, toolspec.MsgReadMediaPNG}
	case bytes.HasPrefix(prefix, []byte{0xFF, 0xD8, 0xFF}):
		return media{kindImage, toolspec.MsgReadMediaJPEG}
	case bytes.HasPrefix(prefix, []byte("GIF87a")), bytes.HasPrefix(prefix, []byte("GIF89a")):
		return media{kindImage, toolspec.MsgReadMediaGIF}
	case bytes.HasPrefix(prefix, []byte("RIFF")) && len(prefix) >= 12 && string(prefix[8:12]) == "WEBP":
		return media{kindImage, toolspec.MsgReadMediaWebP}
	case bytes.HasPrefix(prefix, []byte("%PDF-")):
		return media{kindFile, toolspec.MsgReadMediaPDF}
	case looksLikeSVG(prefix), looksLikeText(prefix):
		// SVG is markup: read as text, as the reference does.
		return plainText
	}
	return media{kindBinary, toolspec.MsgReadMediaBinary}
}

// isJSWhitespace is JavaScript's \s.
func isJSWhitespace(r rune) bool { return isJSSpace(r) }

func skipSpace(s string, i int) int {
	for i < len(s) {
		r, size := decodeRune(s[i:])
		if !isJSWhitespace(r) {
			break
		}
		i += size
	}
	return i
}

func decodeRune(s string) (rune, int) {
	for i, r := range s {
		if i == 0 {
			return r, len(string(r))
		}
	}
	return 0, 0
}

// hasPrefixFold reports whether s[i:] starts with the ASCII word w in any
// letter case.
func hasPrefixFold(s string, i int, w string) bool {
	return len(s)-i >= len(w) && strings.EqualFold(s[i:i+len(w)], w)
}

// looksLikeSVG reports whether the sniffed bytes start, after whitespace,
// comments, processing instructions and an SVG doctype, with an <svg tag.
func looksLikeSVG(prefix []byte) bool {
	s := DecodeText(prefix, true)
	i := skipSpace(s, 0)
	for i < len(s) {
		switch {
		case strings.HasPrefix(s[i:], "<!--"):
			end := strings.Index(s[i+4:], "-->")
			if end < 0 {
				return false
			}
			i = skipSpace(s, i+4+end+3)
			continue
		case strings.HasPrefix(s[i:], "<?"):
			end := strings.Index(s[i+2:], "?>")
			if end < 0 {
				return false
			}
			i = skipSpace(s, i+2+end+2)
			continue
		}
		if end, ok := svgDoctype(s, i); ok {
			i = skipSpace(s, end)
			continue
		}
		break
	}
	if !hasPrefixFold(s, i, "<svg") {
		return false
	}
	rest := s[i+4:]
	if strings.HasPrefix(rest, ">") || strings.HasPrefix(rest, "/>") {
		return true
	}
	r, size := decodeRune(rest)
	return size > 0 && isJSWhitespace(r)
}

// svgDoctype reads "<!doctype svg ...>" at i and returns where it ends.
func svgDoctype(s string, i int) (int, bool) {
	if !hasPrefixFold(s, i, "<!doctype") {
		return 0, false
	}
	i += len("<!doctype")
	r, size := decodeRune(s[i:])
	if size == 0 || !isJSWhitespace(r) {
		return 0, false
	}
	i = skipSpace(s, i)
	if !hasPrefixFold(s, i, "svg") {
		return 0, false
	}
	i += 3
	r, size = decodeRune(s[i:])
	if size == 0 || !isJSWhitespace(r) && r != '[' && r != '>' {
		return 0, false
	}
	var quote byte
	depth := 0
	for i < len(s) {
		c := s[i]
		if quote != 0 {
			if c == quote {
				quote = 0
			}
			i++
			continue
		}
		switch {
		case c == '"' || c == '\'':
			quote = c
		case strings.HasPrefix(s[i:], "<!--"):
			end := strings.Index(s[i+4:], "-->")
			if end < 0 {
				return 0, false
			}
			i += 4 + end + 3
			continue
		case c == '[':
			depth++
		case c == ']' && depth > 0:
			depth--
		case c == '>' && depth == 0:
			return i + 1, true
		}
		i++
	}
	return 0, false
}

// looksLikeText is the reference's heuristic: no NUL byte, and either
// fewer than 1% replacement characters after decoding, or at most two
// and some printable character.
func looksLikeText(prefix []byte) bool {
	if len(prefix) == 0 {
		return true
	}
	if bytes.IndexByte(prefix, 0) >= 0 {
		return false
	}
	text := DecodeText(prefix, true)
	units := vfs.UTF16Len(text)
	if units == 0 {
		return true
	}
	replacements := int64(strings.Count(text, "\uFFFD"))
	if float64(replacements)/float64(units) < 0.01 {
		return true
	}
	if replacements > 2 {
		return false
	}
	for _, r := range text {
		if r != '\uFFFD' && (r >= ' ' || r == '\n' || r == '\r' || r == '\t') {
			return true
		}
	}
	return false
}

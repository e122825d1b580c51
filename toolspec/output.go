package toolspec

import (
	"encoding/json"
	"strings"
)

// OutputKind says how a tool's result reaches the model. The kinds are
// declared in the spec (OutputText, OutputJSON, OutputErrorText,
// OutputContent).
type OutputKind string

// Output is what the model receives from one tool call. Adapters translate
// it for their framework; they never re-word it.
type Output struct {
	Kind OutputKind
	// Text is the whole text of a text or error-text output, and the text
	// part of a content output.
	Text string
	// JSON is the value of a json output, serialized like JavaScript's
	// JSON.stringify.
	JSON []byte
	// Media is the file part of a content output.
	Media *Media
}

// Media is the file part of a content output (a read of an image or PDF):
// its bytes, media type and name, as the reference gives them.
type Media struct {
	MediaType string
	Filename  string
	// Path is the workspace path the file was read at (not shown to the
	// model by the reference; an adapter may name the file with it).
	Path string
	Data []byte
}

// IsImage reports whether the file is an image (a media type image/*),
// which frameworks give the model as an image part; any other file (a
// PDF) is a file part.
func (m *Media) IsImage() bool { return strings.HasPrefix(m.MediaType, "image/") }

// IsError reports whether the model sees the output as a failure: error
// text, or a json object with an error key (a tool's {error} object,
// exec's {command, cwd, backend, error}).
func (o Output) IsError() bool {
	switch o.Kind {
	case OutputErrorText:
		return true
	case OutputJSON:
		var fields map[string]json.RawMessage
		if json.Unmarshal(o.JSON, &fields) != nil {
			return false
		}
		_, failed := fields["error"]
		return failed
	}
	return false
}

// AsText is the output as one string, as a framework whose tools answer
// text gives it to the model: the text of a text or error-text output,
// the JSON text of a json output, the text part of a content output
// (its file part is left out).
func (o Output) AsText() string {
	if o.Kind == OutputJSON {
		return string(o.JSON)
	}
	return o.Text
}

// HasMedia reports whether the output carries a file part (a content
// output with Media set), which a framework that takes media gives the
// model after the text part.
func (o Output) HasMedia() bool { return o.Kind == OutputContent && o.Media != nil }

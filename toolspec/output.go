package toolspec

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
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

	// model is the reference's model output object ResultOutput wrote,
	// the JSON a part of it (see FromResult), and failed whether the
	// JSON has an error key.
	model  []byte
	failed bool
}

// Result is a result object of the tool set (LsResult, ErrorResult, ...):
// a struct of this package whose generated AppendJSON writes it as
// JSON.stringify does. Only this package's types implement it.
type Result interface {
	AppendJSON(b []byte) []byte
	failed() bool
}

// ResultOutput is the json output of r, its JSON written by r.AppendJSON
// (one compact JSON object, as JSON.stringify writes it). The output
// records that it was so made (see FromResult): adapters pass its JSON on
// without checking it again, IsError answers from r's type and fields
// instead of decoding the JSON, and ModelOutput has the model output
// object ready. r must not be a nil pointer.
func ResultOutput(r Result) Output {
	// Written into a reused buffer, inside the model output object,
	// then copied once at its size: appending to a new slice would grow
	// it many times, and the object would be a second copy.
	bp := resultBuffers.Get().(*[]byte)
	b := append((*bp)[:0], jsonModelPrefix...)
	b = append(r.AppendJSON(b), '}')
	model := bytes.Clone(b)
	if cap(b) <= maxPooledResult {
		*bp = b
		resultBuffers.Put(bp)
	}
	end := len(model) - 1
	return Output{Kind: OutputJSON, JSON: model[len(jsonModelPrefix):end:end], model: model, failed: r.failed()}
}

// jsonModelPrefix opens a json output's model output object.
var jsonModelPrefix = `{"type":` + QuoteJSON(string(OutputJSON)) + `,"value":`

// resultBuffers holds ResultOutput's buffers (*[]byte) up to
// maxPooledResult bytes of capacity.
var resultBuffers = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledResult = 1 << 20

// FromResult reports whether o is a json output made by ResultOutput
// whose JSON field still holds the slice it wrote: its JSON is then
// compact JSON as JSON.stringify writes it, which needs no check. It is
// false for an Output built any other way (a literal, say) and once JSON is
// set to other bytes, so that such JSON is checked as before. Bytes changed
// in place are not noticed: ResultOutput's JSON is not to be changed.
func (o Output) FromResult() bool {
	return o.Kind == OutputJSON && len(o.model) > len(jsonModelPrefix)+1 &&
		len(o.JSON) == len(o.model)-len(jsonModelPrefix)-1 && &o.JSON[0] == &o.model[len(jsonModelPrefix)]
}

// ModelOutput is o as the reference's model output object,
// {"type":"json","value":<JSON>}, when o is FromResult: ResultOutput wrote
// it around the JSON, which shares its memory (neither is to be changed).
// ok is false for any other output, whose object the adapter makes.
func (o Output) ModelOutput() (object []byte, ok bool) {
	if !o.FromResult() {
		return nil, false
	}
	return o.model, true
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
// exec's {command, cwd, backend, error}). The JSON of a json output is
// decoded to find the key, unless ResultOutput made it (FromResult).
func (o Output) IsError() bool {
	switch o.Kind {
	case OutputErrorText:
		return true
	case OutputJSON:
		if o.FromResult() {
			return o.failed
		}
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

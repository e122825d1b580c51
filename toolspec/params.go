package toolspec

import "strconv"

// ParamKind is the JSON shape a parameter accepts.
type ParamKind string

// The parameter kinds the spec may declare; each has its JSON Schema form
// (internal/toolgen) and its Go type in the argument structs.
const (
	KindString  ParamKind = "string"
	KindInteger ParamKind = "integer"
	KindBoolean ParamKind = "boolean"
	// KindStringOrList accepts a string or an array of strings.
	KindStringOrList ParamKind = "stringOrList"
	// KindArray accepts an array of strict objects (Param.Items).
	KindArray ParamKind = "array"
	// KindStringRecord accepts an object whose values are strings.
	KindStringRecord ParamKind = "stringRecord"
	// KindEnum accepts one of a list of strings fixed when the tool set is built.
	KindEnum ParamKind = "enum"
	// KindJSONRecord accepts an object whose values are any JSON.
	KindJSONRecord ParamKind = "jsonRecord"
)

// ParamWhen says when a parameter is offered.
type ParamWhen string

// When a parameter is offered.
const (
	WhenAlways ParamWhen = "always"
	// WhenMultipleBackends: exec with more than one backend.
	WhenMultipleBackends ParamWhen = "multipleBackends"
	// WhenCallableBackend: exec with at least one callable backend.
	WhenCallableBackend ParamWhen = "callableBackend"
)

// Param is one parameter of a tool, as its input schema declares it.
// Integer bounds are inclusive, except Minimum when ExclusiveMinimum is
// set.
type Param struct {
	Name string
	Kind ParamKind
	// Optional parameters may be left out; so may those with a default.
	Optional   bool
	HasDefault bool
	Default    string
	Minimum    int64
	Maximum    int64
	// ExclusiveMinimum makes Minimum exclusive: a value must be greater
	// (JSON Schema's exclusiveMinimum).
	ExclusiveMinimum bool
	// MinLength, when not 0, is the shortest string accepted, in
	// characters (Unicode code points; JSON Schema's minLength).
	MinLength int64
	// MaxBytes, when not 0, is the longest string accepted (each string of
	// a KindStringOrList), in UTF-8 bytes; the input schema does not carry
	// it.
	MaxBytes int64
	// MaxTotalBytes, when not 0, is the most bytes all the strings of a
	// KindStringOrList may hold together (UTF-8); the input schema does not
	// carry it.
	MaxTotalBytes int64
	// MaxItems, when not 0, is the most strings a list of a
	// KindStringOrList may hold (JSON Schema's maxItems); the input schema
	// does not carry it.
	MaxItems int64
	When     ParamWhen
	// Items are the properties of each element of a KindArray parameter.
	Items []Param
}

// Rule is an argument rule JSON Schema cannot express: when Param is
// present and greater than GreaterThan, Requires must be present too;
// otherwise the call is refused with Message.
type Rule struct {
	Param       string
	GreaterThan int64
	Requires    string
	Message     string
}

// ToolInfo describes one tool of the spec (see Tools). Available is false
// for a tool the core executor does not implement yet; no tool set offers
// it. Mutates is true for a tool a read-only tool set leaves out. Media is
// true for a tool whose call can answer a content output (an image or
// PDF); Streams for one that reports running snapshots before its result.
// OutputSchema is the JSON Schema (text) of the tool's results, as the
// reference declares it (WriteOutputSchema, ...), empty for a tool the
// reference gives none (read, ls, find, grep, exec). ConstrainedSampling
// is true for a tool that an SDK adapter's Strict option, naming no tools,
// declares for the provider's strict mode with its schema closed
// (adapt.StrictSchema): read, write and edit, the tools the reference's pi
// adapter declares with strictArguments.
type ToolInfo struct {
	Name         string
	Available    bool
	Mutates      bool
	Media        bool
	Streams      bool
	Params       []Param
	Rules        []Rule
	OutputSchema string

	ConstrainedSampling bool
}

// Info returns the ToolInfo of the tool called name, and false when the
// spec has no such tool.
func Info(name string) (ToolInfo, bool) {
	for _, t := range Tools {
		if t.Name == name {
			return t, true
		}
	}
	return ToolInfo{}, false
}

// UnknownToolError is a call of a tool Handler does not have (Invoke's
// error).
type UnknownToolError struct {
	Tool string
}

func (e *UnknownToolError) Error() string {
	return "toolspec: no tool named " + strconv.Quote(e.Tool)
}

// CatalogEntry is one message of the spec (see Catalog): its Go name, its
// template, and what it renders for sample arguments (strings "<name>",
// integers 12345). A message that names other tools has a second sample,
// Prefixed: what it renders in a tool set whose prefix is "ws_".
type CatalogEntry struct {
	Name     string
	Template string
	Sample   string
	Prefixed string
}

// ToolPrefix is what a tool set puts before the name of each of its tools
// (core.Options.Prefix): the tool the spec calls read is offered as
// prefix+"read", and every text that names another tool (exec's
// description, edit's fileTooLarge, ...) names it so. The empty prefix
// offers the spec's names, the reference's.
type ToolPrefix string

// Name is the name under which a tool set with prefix p offers the spec's
// tool (ToolRead, ...).
func (p ToolPrefix) Name(tool string) string { return string(p) + tool }

// Deviation is a declared difference from the reference (see Deviations).
type Deviation struct {
	Name      string
	Reference string
	Ours      string
}

// ExecBackend is one backend the exec tool runs on, as its description
// and schema present it (ExecDescription, ExecInputSchema). Text is what
// the model is told about it; empty means the default text for its kind.
type ExecBackend struct {
	ID       string
	Text     string
	Callable bool
}

// DescribedText is what the model is told about b: its Text, or the
// default for its kind (ExecDefaultCallableText, ExecDefaultShellText).
func (b ExecBackend) DescribedText() string {
	switch {
	case b.Text != "":
		return b.Text
	case b.Callable:
		return ExecDefaultCallableText
	}
	return ExecDefaultShellText
}

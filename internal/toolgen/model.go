// Package toolgen turns spec/tools.cue into the generated files of package
// toolspec, each adapter's tools_gen.go and docs/deviations.md.
//
// Load reads the CUE once into plain structs (Model and its parts); the
// emitters work on those structs only and never see a cue.Value. Generate
// is a pure function from a Model to file contents; Diff compares them
// with the tree and Apply writes what differs, for cmd/toolgen.
//
// This package is used at generation time only: nothing that runs in an
// agent imports it (a repository test enforces that), and it never imports
// toolspec, core or the adapters.
package toolgen

// Model is everything the spec declares, in the spec's order.
type Model struct {
	WorkspaceRoot string
	OutputDir     string
	SchemaDialect string
	// OutputInteger bounds an int field in an output schema.
	OutputInteger struct{ Minimum, Maximum int64 }
	Arguments     Arguments
	ArgumentList  ArgumentList
	Messages      []Template // shared by every tool
	Approval      []Template // the approval of calls: refusal, question
	Limits        []Limit    // of the workspace, shared by every tool
	Tools         []Tool     // in toolOrder
	ErrorResult   Result
	OutputKinds   []OutputKind
	ContentParts  ContentParts
	Deviations    []Deviation
}

// OutputKind is one way a result reaches the model.
type OutputKind struct {
	Key  string // spec key, the Go name's base
	Name string // as the model output spells it
	Doc  string
}

// ContentParts names the parts of a content output.
type ContentParts struct {
	TextType, TextDoc           string
	FileType, DataType, FileDoc string
}

// Arguments holds the texts of the model's argument errors.
type Arguments struct {
	Invalid          Template
	ProblemSeparator string
	MaxProblems      int64
	Problems         []Template // missing, wrongType, ...
	TypeNames        []NamedText
}

// ArgumentList holds the texts of the opt-in listing of a tool's
// arguments after its description.
type ArgumentList struct {
	Templates []Template // list, argument, ...
	TypeNames []NamedText
}

// NamedText is a fixed text with a name.
type NamedText struct {
	Name string
	Text string
}

// Tool is one tool of the spec.
type Tool struct {
	Name        string
	Available   bool
	Mutates     bool
	Media       bool // a call can answer a content output (image or PDF)
	Streams     bool // a call reports running snapshots
	Annotations Annotations
	Description Description
	Params      []Param
	Rules       []Rule
	Limits      []Limit
	Messages    []Template
	Results     []Result
	// OutputSchema are the results the tool's output schema is the union
	// of, in the spec's order (one of them may be the model's
	// ErrorResult); none when the tool has no output schema.
	OutputSchema []Result

	// ConstrainedSampling: an SDK adapter's Strict option, naming no
	// tools, closes the tool's schema for the provider's strict mode.
	ConstrainedSampling bool
}

// Annotations are a tool's MCP annotations: its title and the hints it
// declares, nil for a hint it leaves to MCP's default.
type Annotations struct {
	Title                                   string
	ReadOnly, Destructive, Idempotent, Open *bool
}

// Description is a tool's description: a fixed text, a template over the
// tool's options, or the exec rule.
type Description struct {
	Text     string
	Template *Template
	Exec     *ExecParts
}

// ExecParts are the pieces the exec rule assembles.
type ExecParts struct {
	SingleShell     []string
	SingleCallable  []string
	Multiple        []string
	BackendItem     Template
	CallableMark    string
	CallableSection []string
	DefaultShell    string
	DefaultCallable string
	Hints           []Template // fixed texts, or texts that name other tools
	OutputHint      Template
}

// Param is one parameter of a tool's input schema.
type Param struct {
	Name         string
	Kind         string
	Description  string
	Descriptions []NamedText
	Optional     bool
	Default      *string
	Minimum      *int64
	ExclMinimum  *int64 // exclusiveMinimum, in place of Minimum
	Maximum      *int64
	MinLength    *int64
	MaxBytes     *int64
	MaxTotal     *int64
	MaxItems     *int64
	When         string
	ItemsGoName  string
	Items        []Param
}

// Rule is a cross-field argument rule.
type Rule struct {
	Param       string
	GreaterThan int64
	Requires    string
	Message     Template
}

// Limit is a numeric limit with its unit and default. Settable marks the
// default of a core option, which an overlay may change. StatedIn are the
// parameters whose description states the default without a placeholder,
// which an overlay that changes the limit must replace.
type Limit struct {
	Name     string
	Default  int64
	Unit     string
	Doc      string
	Min      *int64
	Max      *int64
	Settable bool
	StatedIn []string
}

// Template is a text with typed {name} placeholders.
type Template struct {
	Name string
	Text string
	Args []Arg
	Doc  string
	Pos  string // where the spec declares it, for error messages
}

// Arg is a placeholder of a template.
type Arg struct {
	Name string
	Type string // "string", "int" or "tool" (Name is a tool's; see namesTools)
}

// Result is an object shape a tool returns, fields in serialization order.
type Result struct {
	Name   string
	Doc    string
	Fields []Field
}

// Field is one key of a result object. A Type of "true" or "false" that
// is not Optional is a constant: the key is always written with that
// value and the Go struct has no field for it (constant).
type Field struct {
	Name     string
	Type     string
	Optional bool
	Nullable bool
	Doc      string
}

// Deviation is a declared difference from the reference.
type Deviation struct {
	Name      string
	Reference string
	Ours      string
}

// constant reports whether fd always holds the same value, which the
// result's AppendJSON writes without a Go field.
func (fd Field) constant() bool {
	return !fd.Optional && (fd.Type == "true" || fd.Type == "false")
}

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/agenttools/agenttools"
	"github.com/agenttools/agenttools/adapters/raw"
	"github.com/agenttools/agenttools/core/execbackend"
	"github.com/agenttools/agenttools/core/vfs"
	"github.com/agenttools/agenttools/core/vfs/memfs"
	"github.com/agenttools/agenttools/toolspec"
)

// usageError is a mistake of the caller (exit status 2): run prints what
// is wrong and how to get help, and nothing else.
type usageError struct {
	command string // "call", or "" for agenttools itself
	msg     string
}

func (e *usageError) Error() string { return e.msg }

// usagef is the usage error of command with a message.
func usagef(command, format string, args ...any) error {
	return &usageError{command: command, msg: fmt.Sprintf(format, args...)}
}

// report prints e: what is wrong, then where the usage is.
func (e *usageError) report(stderr io.Writer) {
	if e.command == "" {
		fmt.Fprintf(stderr, "agenttools: %s\nRun 'agenttools help' for usage.\n", e.msg)
		return
	}
	fmt.Fprintf(stderr, "agenttools %s: %s\nRun 'agenttools %s --help' for usage.\n", e.command, e.msg, e.command)
}

// cmdFlags is a command's flag set and its usage.
type cmdFlags struct {
	*flag.FlagSet
	synopsis, about string
	// more, when set, is more of the usage, after about.
	more   func() string
	stdout io.Writer
}

// flags makes a command's flag set. Its usage (synopsis, about, the
// flags) goes to stdout when asked for with --help; a mistake in the
// flags is parse's usage error.
func flags(name, synopsis, about string, stdout io.Writer) *cmdFlags {
	fl := flag.NewFlagSet(name, flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	fl.Usage = func() {}
	return &cmdFlags{FlagSet: fl, synopsis: synopsis, about: about, stdout: stdout}
}

// parse parses the command's flags: flag.ErrHelp after printing the
// usage when asked for it, a usage error saying which flag is wrong.
func (fl *cmdFlags) parse(args []string) error {
	err := fl.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintf(fl.stdout, "usage: agenttools %s %s\n\n%s\n\n", fl.Name(), fl.synopsis, fl.about)
		if fl.more != nil {
			fmt.Fprintf(fl.stdout, "%s\n\n", fl.more())
		}
		fmt.Fprintln(fl.stdout, "Flags:")
		// The flag package spells a flag -name; the usage, --name.
		var b strings.Builder
		fl.SetOutput(&b)
		fl.PrintDefaults()
		fmt.Fprint(fl.stdout, strings.ReplaceAll("\n"+b.String(), "\n  -", "\n  --")[1:])
		return err
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg = "unknown flag " + asGiven(args, name)
	} else if bad, ok := badValue(fl.FlagSet, msg); ok {
		msg = bad
	} else {
		// The flag package names a flag -name; the usage spells it --name.
		msg = strings.Replace(msg, "flag -", "flag --", 1)
		msg = strings.Replace(msg, "argument: -", "argument: --", 1)
	}
	return usagef(fl.Name(), "%s", msg)
}

// flagNumbers says what a numeric flag's value is, where "a number"
// says too little.
var flagNumbers = map[string]string{"exec-timeout": "a number of milliseconds"}

// badValue rewords the flag package's error for a value a flag cannot
// take ("invalid value "abc" for flag -n: parse error") to name the flag
// and the value and say what is wanted: --n: "abc" is not a number.
func badValue(fs *flag.FlagSet, msg string) (string, bool) {
	rest, ok := strings.CutPrefix(msg, "invalid value ")
	if !ok {
		rest, ok = strings.CutPrefix(msg, "invalid boolean value ")
	}
	if !ok {
		return "", false
	}
	value, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return "", false
	}
	rest = strings.TrimPrefix(strings.TrimPrefix(rest[len(value):], " for"), " flag")
	name, reason, ok := strings.Cut(strings.TrimPrefix(rest, " -"), ": ")
	f := fs.Lookup(name)
	if !ok || f == nil {
		return "", false
	}
	what := "a valid value"
	if g, ok := f.Value.(flag.Getter); ok {
		switch g.Get().(type) {
		case bool:
			what = "true or false"
		case int, int64, uint, uint64, float64:
			what = "a number"
		}
	}
	if w, ok := flagNumbers[name]; ok {
		what = w
	}
	switch reason {
	case "parse error":
		return fmt.Sprintf("--%s: %s is not %s", name, value, what), true
	case "value out of range":
		return fmt.Sprintf("--%s: %s is out of range", name, value), true
	}
	return fmt.Sprintf("--%s: %s: %s", name, value, reason), true
}

// asGiven is the flag name as args spells it (-x or --x), or --name.
func asGiven(args []string, name string) string {
	for _, a := range args {
		if a == "--" {
			break
		}
		flagName, _, _ := strings.Cut(a, "=")
		if strings.TrimLeft(flagName, "-") == name && strings.HasPrefix(flagName, "-") {
			return flagName
		}
	}
	return "--" + name
}

// toolSummary lists the tools call runs: each one's arguments (optional
// ones in brackets) and the first sentence of its description, as the
// model is sent them.
func toolSummary() string {
	ws := vfs.New(memfs.New())
	host, err := execbackend.NewHost(ws, execbackend.HostOptions{})
	if err != nil {
		return ""
	}
	tools, err := raw.New(ws, agenttools.Options{Backends: []execbackend.Backend{host}})
	if err != nil {
		return ""
	}
	about := map[string]string{}
	for _, d := range tools.Definitions() {
		first, _, _ := strings.Cut(d.Description, ". ")
		first, _, _ = strings.Cut(first, "\n")
		about[d.Name] = strings.TrimSuffix(first, ".") + "."
	}
	var b strings.Builder
	b.WriteString("Tools (ARGS_JSON's fields; 'agenttools tools' prints their definitions):\n")
	for _, t := range toolspec.Tools {
		if _, offered := about[t.Name]; !offered {
			continue // publish: call has no publisher
		}
		var args []string
		for _, p := range t.Params {
			if p.When != toolspec.WhenAlways {
				continue
			}
			if p.Optional || p.HasDefault {
				args = append(args, "["+p.Name+"]")
			} else {
				args = append(args, p.Name)
			}
		}
		fmt.Fprintf(&b, "  %-7s %s\n          %s\n", t.Name, strings.Join(args, " "), about[t.Name])
	}
	b.WriteString("--readonly offers read, ls, find and grep; --exec none leaves exec out.")
	return b.String()
}

// version is the version the program was built from: the module's
// version from the build information (a release, or, built from a Git
// checkout, a pseudo-version naming the commit and its time, "+dirty"
// when the checkout had changes), else "(devel)" with the commit, its
// time and "modified" when the build recorded them, else "(devel)".
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	return versionOf(info)
}

// versionOf is version from the build information info.
func versionOf(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	out := "(devel)"
	vcs := map[string]string{}
	for _, s := range info.Settings {
		vcs[s.Key] = s.Value
	}
	for _, key := range []string{"vcs.revision", "vcs.time"} {
		if vcs[key] != "" {
			out += " " + vcs[key]
		}
	}
	if vcs["vcs.modified"] == "true" {
		out += " modified"
	}
	return out
}

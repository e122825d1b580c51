// Package goldentest holds the module's one -update switch, so that
// `go test ./... -update` works in every package: each test package
// imports this one (a repository test checks that), which registers the
// flag with the test binary.
package goldentest

import "flag"

// Update asks golden tests to rewrite their expected output instead of
// comparing with it. A test rewrites only its own golden files, and only
// when its other assertions passed.
var Update = flag.Bool("update", false, "rewrite golden files instead of comparing with them")

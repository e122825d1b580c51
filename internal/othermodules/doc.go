// Package othermodules holds the test that checks this repository's
// other Go modules from the main one: the modules whose requirements
// cannot share the main module's build list (adapters/anthropic, whose
// SDK needs a github.com/invopop/jsonschema that Genkit's dotprompt does
// not build with) and the examples written against them. `go test ./...`
// at the root does not enter a directory with its own go.mod; this test
// runs go vet and go test there, so that the one test command still
// tests the whole repository.
package othermodules

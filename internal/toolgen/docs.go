package toolgen

// The documents generated for readers (docs/deviations.md).

import "strings"

// DeviationsDoc is the generated list of declared deviations, for readers.
const DeviationsDoc = "docs/deviations.md"

// deviationsDoc renders the spec's deviations as a Markdown table.
func deviationsDoc(m *Model) []byte {
	var b strings.Builder
	b.WriteString("<!-- " + Header + " -->\n\n")
	b.WriteString("# Where agenttools differs from the reference on purpose\n\n")
	b.WriteString("The reference is @cloudflare/computer 0.8.0. Everything else a model sees is byte-identical;\n")
	b.WriteString("these differences are declared in spec/tools.cue, tested, and listed call by call in\n")
	b.WriteString("golden/testdata/deviations.json where the oracle's cases show them.\n\n")
	b.WriteString("| name | reference | agenttools |\n| --- | --- | --- |\n")
	for _, d := range m.Deviations {
		b.WriteString("| " + d.Name + " | " + strings.ReplaceAll(d.Reference, "|", "\\|") + " | " + strings.ReplaceAll(d.Ours, "|", "\\|") + " |\n")
	}
	return []byte(b.String())
}

package spec

import (
	"os"
	"strings"
	"testing"
)

// The example at the top of docs/spec.md must stay a valid spec with the
// run count the page states.
func TestDocExample(t *testing.T) {
	doc, err := os.ReadFile("../../docs/spec.md")
	if err != nil {
		t.Skip("docs/spec.md not found:", err)
	}
	_, rest, ok := strings.Cut(string(doc), "```yaml\n")
	example, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("no yaml example in docs/spec.md")
	}
	p := mustExpand(t, example)
	if len(p.Runs) != 36 || !strings.Contains(string(doc), "= 36 runs") {
		t.Errorf("the example has %d runs; docs/spec.md should say so", len(p.Runs))
	}
}

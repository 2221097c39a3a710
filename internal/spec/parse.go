package spec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// MaxFileSize bounds what Load reads: a spec is a page of YAML, and a huge
// file is a mistake (a results file passed by accident), not an experiment.
const MaxFileSize = 1 << 20

// Load reads and parses the spec file at path. A missing name defaults to
// the file's base name without its extension. Every problem of the file is
// returned at once, validation included (see Parse).
func Load(path string) (*Spec, []Problem) {
	s, _, problems := LoadPlaced(path)
	return s, problems
}

// LoadPlaced is Load, with the Placer that puts a later layer's problems
// on the lines of the file.
func LoadPlaced(path string) (*Spec, Placer, []Problem) {
	f, err := os.Open(path)
	if err != nil {
		return nil, Placer{}, []Problem{{Path: path, Allowed: "cannot read the spec file: " + unwrapPathError(err)}}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, Placer{}, []Problem{{Path: path, Allowed: "cannot read the spec file: " + unwrapPathError(err)}}
	}
	if len(data) > MaxFileSize {
		return nil, Placer{}, []Problem{{Path: path, Allowed: fmt.Sprintf("the spec file is larger than %d bytes; is it the right file?", MaxFileSize)}}
	}
	base := filepath.Base(path)
	return parse(data, strings.TrimSuffix(base, filepath.Ext(base)))
}

// unwrapPathError drops the file name that *os.PathError repeats, since the
// Problem's path already names the file.
func unwrapPathError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Parse decodes a spec strictly, fills the defaults and validates it.
// Unknown keys, values of the wrong type and every rule of Validate are
// reported together, each with its YAML path and line, in the order of the
// file. name is required (Load can take it from the file name).
//
// The returned Spec is nil only when data is not YAML; otherwise it holds
// what could be read, with defaults where nothing valid was written, and
// must not be used when there are problems.
func Parse(data []byte) (*Spec, []Problem) {
	s, _, problems := parse(data, "")
	return s, problems
}

// ParsePlaced is Parse, with the Placer that puts a later layer's
// problems on the lines of the file.
func ParsePlaced(data []byte) (*Spec, Placer, []Problem) { return parse(data, "") }

func parse(data []byte, defaultName string) (*Spec, Placer, []Problem) {
	root, problem := document(data)
	if problem != nil {
		return nil, Placer{}, []Problem{*problem}
	}
	d := NewDecoder()
	s := defaults()
	d.spec(root, s)
	d.engineOptions(s)
	named := !d.present["name"] && !d.failed["name"] && defaultName != ""
	if named {
		s.Name = defaultName
	}
	if !d.present["workload.duration"] && !d.failed["workload.duration"] {
		// A schedule or pattern of slots or stages sets how long the
		// workload phase lasts, unless the spec says so itself.
		s.durationFromSchedule()
	}
	problems := d.problems
	if d.failed["(root)"] {
		// Not a mapping: every other problem would be noise.
		return s, Placer{d}, problems
	}
	for _, p := range Validate(s) {
		p = d.place(p)
		if d.failed[p.Path] {
			// A value that could not be read was reported once already;
			// the default standing in for it should not draw a second,
			// confusing problem.
			continue
		}
		if p.Path == "name" && named {
			p.Allowed += " (the name was taken from the file name; write name: in the spec)"
		}
		problems = append(problems, p)
	}
	SortProblems(problems)
	return s, Placer{d}, problems
}

// SortProblems puts problems in the order that reads best: file order;
// problems about missing keys (line 0) first, and those of one line by
// path, list indexes in numeric order.
func SortProblems(problems []Problem) {
	sort.SliceStable(problems, func(i, j int) bool {
		if problems[i].Line != problems[j].Line {
			return problems[i].Line < problems[j].Line
		}
		return naturalLess(problems[i].Path, problems[j].Path)
	})
}

// document parses data as exactly one YAML document and returns its root
// (nil for an empty document).
func document(data []byte) (root *yaml.Node, problem *Problem) {
	// yaml.v3 is not ours; should it panic on some input, the user still
	// gets a problem rather than a crash.
	defer func() {
		if r := recover(); r != nil {
			root, problem = nil, &Problem{Path: "(root)", Allowed: fmt.Sprint("not valid YAML: ", r)}
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, syntaxProblem(data, err)
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, syntaxProblem(data, err)
		}
		return nil, &Problem{Path: "(root)", Line: next.Line, Allowed: "a spec file holds one YAML document; remove the second '---'"}
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	return doc.Content[0], nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

func syntaxProblem(data []byte, err error) *Problem {
	msg := err.Error()
	line := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	}
	msg = "not valid YAML: " + strings.TrimPrefix(msg, "yaml: ")
	// The parser says neither where nor why for a tab in the indentation,
	// the most common slip in hand-written YAML.
	for i, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " "), "\t") {
			if line == 0 || line == i+1 {
				line, msg = i+1, msg+" (YAML is indented with spaces, not tabs)"
			}
			break
		}
	}
	return &Problem{Path: "(root)", Line: line, Allowed: msg}
}

// naturalLess orders paths as text, but runs of digits by their number, so
// that "clients[2]" comes before "clients[10]".
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, _ := strconv.Atoi(a[:da])
			nb, _ := strconv.Atoi(b[:db])
			if na != nb {
				return na < nb
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digitRun(s string) int {
	n := 0
	for n < len(s) && n < 9 && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

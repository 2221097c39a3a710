package spec

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"
)

// This file reads single YAML values and lists of them. The same readers
// serve the path-aware walker of Parse and the UnmarshalYAML methods, so a
// value means the same whichever way a spec is decoded.

// Reader reads one scalar node; it returns the value or, when the node
// cannot be read, what is allowed ("must be a whole number"). The Read
// functions below are the readers of the spec's own types.
type Reader[T any] func(n *yaml.Node) (T, string)

// Where narrows read to the values ok accepts: a value read cannot read,
// or that ok refuses, is refused with allowed ("must be a whole number
// from 0 to 100"). The unquoting hint of read is kept. A nil ok accepts
// every value read reads: only the message is the caller's.
func Where[T any](read Reader[T], ok func(T) bool, allowed string) Reader[T] {
	return func(n *yaml.Node) (T, string) {
		v, msg := read(n)
		if msg == "" && (ok == nil || ok(v)) {
			return v, ""
		}
		var zero T
		if strings.HasSuffix(msg, quotedHint) {
			return zero, allowed + quotedHint
		}
		return zero, allowed
	}
}

// Within is the rule of a value from lo to hi, both included, for Where.
func Within[T cmp.Ordered](lo, hi T) func(T) bool {
	return func(v T) bool { return v >= lo && v <= hi }
}

// resolve follows an alias to the node it names, and takes a document's
// value out of it (a node of yaml.Unmarshal into a yaml.Node). An alias
// names an anchored node, never another alias, so one step is enough.
func resolve(n *yaml.Node) *yaml.Node {
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

// IsNull says whether n is absent or null ("key:", "key: ~"): no value.
func IsNull(n *yaml.Node) bool {
	n = resolve(n)
	return n == nil || n.Kind == 0 || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

// kindWord names what a node is, for messages ("a list").
func kindWord(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" {
			return "empty"
		}
		return "a single value"
	}
	return "not a value"
}

// shown writes a value for a message: as written, or quoted when it is
// empty or holds blanks at its ends or invisible characters, so that the
// message shows exactly what is wrong.
func shown(s string) string {
	if s == "" || strings.TrimSpace(s) != s || strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return strconv.Quote(s)
	}
	return s
}

// valueOf is the written text of a scalar for a Problem, "" otherwise.
func valueOf(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return shown(n.Value)
	}
	return ""
}

// ReadText reads any scalar as text.
func ReadText(n *yaml.Node) (string, string) {
	// Any scalar is text: "version: 16" is written unquoted and means "16".
	return n.Value, ""
}

// ReadOneOf reads a scalar that must be one of names, refusing another
// with the names and the nearest of them ("did you mean serializable?").
func ReadOneOf(names ...string) Reader[string] {
	return func(n *yaml.Node) (string, string) {
		for _, name := range names {
			if n.Value == name {
				return n.Value, ""
			}
		}
		return "", OneOf(n.Value, names)
	}
}

// quotedHint is unquoted's hint.
const quotedHint = ", written without quotes"

// unquoted hints at the likely slip when a number or boolean was quoted.
func unquoted(n *yaml.Node) string {
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		return quotedHint
	}
	return ""
}

// ReadInt64 reads a YAML integer (not 1.5, not "3").
func ReadInt64(n *yaml.Node) (int64, string) {
	// Only YAML integers: yaml.v3 would truncate 1.5 to 1 for an int field.
	if n.ShortTag() != "!!int" {
		return 0, "must be a whole number" + unquoted(n)
	}
	var v int64
	if err := n.Decode(&v); err != nil {
		return 0, "must be a whole number that fits in 64 bits"
	}
	return v, ""
}

// ReadInt reads a YAML integer that fits in an int.
func ReadInt(n *yaml.Node) (int, string) {
	v, msg := ReadInt64(n)
	if msg != "" {
		return 0, msg
	}
	if int64(int(v)) != v {
		return 0, "is too large"
	}
	return int(v), ""
}

// ReadFloat reads a YAML integer or float (.inf and .nan included).
func ReadFloat(n *yaml.Node) (float64, string) {
	if tag := n.ShortTag(); tag != "!!int" && tag != "!!float" {
		return 0, "must be a number" + unquoted(n)
	}
	var v float64
	if err := n.Decode(&v); err != nil {
		return 0, "must be a number"
	}
	return v, ""
}

// ReadBool reads a YAML boolean.
func ReadBool(n *yaml.Node) (bool, string) {
	if n.ShortTag() != "!!bool" {
		return false, "must be true or false" + unquoted(n)
	}
	var v bool
	if err := n.Decode(&v); err != nil {
		return false, "must be true or false"
	}
	return v, ""
}

// ReadDuration reads a duration as ParseDuration does ("30s", "5m").
func ReadDuration(n *yaml.Node) (Duration, string) {
	d, err := ParseDuration(n.Value)
	if err != nil {
		return 0, err.Error()
	}
	return d, ""
}

// ReadByteSize reads a size as ParseByteSize does ("512MiB").
func ReadByteSize(n *yaml.Node) (ByteSize, string) {
	b, err := ParseByteSize(n.Value)
	if err != nil {
		return 0, err.Error()
	}
	return b, ""
}

// readScalar reads one non-null scalar with read; null counts as missing
// (ok false, no problem) so that "key:" with no value keeps the default.
func readScalar[T any](n *yaml.Node, path string, read Reader[T]) (v T, ok bool, problems []Problem) {
	n = resolve(n)
	if IsNull(n) {
		return v, false, nil
	}
	if n.Kind != yaml.ScalarNode {
		return v, false, []Problem{{Path: path, Line: n.Line, Allowed: "must be a single value, not " + kindWord(n)}}
	}
	v, msg := read(n)
	if msg != "" {
		return v, false, []Problem{{Path: path, Value: valueOf(n), Line: n.Line, Allowed: msg}}
	}
	return v, true, nil
}

// list is a list read from YAML: its values, which of them could not be
// read, and whether it was written as a single value.
type list[T any] struct {
	vals   []T
	bad    []bool
	single bool
	lines  []int
}

// readList reads a scalar or a sequence of scalars. Every element that
// cannot be read is a problem at path[i].
func readList[T any](n *yaml.Node, path string, read Reader[T]) (l list[T], problems []Problem) {
	n = resolve(n)
	switch {
	case n.Kind == yaml.ScalarNode:
		v, ok, p := readScalar(n, path, read)
		if !ok && p == nil {
			// "clients: ~" inside a list position: empty is not a value.
			p = []Problem{{Path: path, Line: n.Line, Allowed: "must have a value"}}
		}
		l = list[T]{vals: []T{v}, bad: []bool{!ok}, single: true, lines: []int{n.Line}}
		return l, p
	case n.Kind == yaml.SequenceNode:
		for i, e := range n.Content {
			e = resolve(e)
			ep := fmt.Sprintf("%s[%d]", path, i)
			v, ok, p := readScalar(e, ep, read)
			if !ok && p == nil {
				p = []Problem{{Path: ep, Line: e.Line, Allowed: "must have a value"}}
			}
			l.vals = append(l.vals, v)
			l.bad = append(l.bad, !ok)
			l.lines = append(l.lines, e.Line)
			problems = append(problems, p...)
		}
		return l, problems
	}
	return l, []Problem{{Path: path, Line: n.Line, Allowed: "must be a value or a list of values, not " + kindWord(n)}}
}

// asError turns problems found by an UnmarshalYAML method (which has no
// path) into one error.
func asError(problems []Problem) error {
	var errs []error
	for _, p := range problems {
		msg := p.Allowed
		if p.Value != "" {
			msg = p.Value + ": " + msg
		}
		errs = append(errs, fmt.Errorf("line %d: %s", p.Line, msg))
	}
	return errors.Join(errs...)
}

func unmarshalList[T any](n *yaml.Node, read Reader[T]) ([]T, error) {
	l, problems := readList(n, "", read)
	if len(problems) > 0 {
		return nil, asError(problems)
	}
	if l.vals == nil {
		l.vals = []T{}
	}
	return l.vals, nil
}

// UnmarshalYAML reads a string or a list of strings.
func (v *Strings) UnmarshalYAML(n *yaml.Node) error {
	l, err := unmarshalList(n, ReadText)
	if err == nil {
		*v = l
	}
	return err
}

// UnmarshalYAML reads a whole number or a list of them.
func (v *Ints) UnmarshalYAML(n *yaml.Node) error {
	l, err := unmarshalList(n, ReadInt)
	if err == nil {
		*v = l
	}
	return err
}

// UnmarshalYAML reads a number or a list of numbers.
func (v *Floats) UnmarshalYAML(n *yaml.Node) error {
	l, err := unmarshalList(n, ReadFloat)
	if err == nil {
		*v = l
	}
	return err
}

// UnmarshalYAML reads a setting value or a list of them, each as written
// ("on", "128MB", "0.9").
func (v *Values) UnmarshalYAML(n *yaml.Node) error {
	l, err := unmarshalList(n, ReadText)
	if err == nil {
		*v = l
	}
	return err
}

// UnmarshalYAML reads a duration such as "30s".
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, ok, problems := readScalar(n, "", ReadDuration)
	if len(problems) > 0 {
		return asError(problems)
	}
	if ok {
		*d = v
	}
	return nil
}

// UnmarshalYAML reads a size such as "512MiB" or a number of bytes.
func (b *ByteSize) UnmarshalYAML(n *yaml.Node) error {
	v, ok, problems := readScalar(n, "", ReadByteSize)
	if len(problems) > 0 {
		return asError(problems)
	}
	if ok {
		*b = v
	}
	return nil
}

// MarshalYAML writes one value as a scalar and several as a flow list
// ("[2, 4, 8]"), the way a person would write them.
func (v Strings) MarshalYAML() (any, error) { return oneOrList([]string(v)) }

// MarshalYAML: see Strings.MarshalYAML.
func (v Ints) MarshalYAML() (any, error) { return oneOrList([]int(v)) }

// MarshalYAML: see Strings.MarshalYAML.
func (v Floats) MarshalYAML() (any, error) { return oneOrList([]float64(v)) }

// MarshalYAML: see Strings.MarshalYAML. Values are written unquoted where
// YAML allows ("max_connections: 50", not "50"): they are read back as
// text whatever YAML type they look like, so nothing is lost.
func (v Values) MarshalYAML() (any, error) {
	n, err := oneOrList([]string(v))
	if err != nil {
		return nil, err
	}
	plain := func(x *yaml.Node) {
		// Only a value that would read as null must stay quoted.
		if x.Kind == yaml.ScalarNode && x.Value != "" {
			if y := (&yaml.Node{Kind: yaml.ScalarNode, Value: x.Value}); y.ShortTag() != "!!null" {
				x.Tag, x.Style = "", 0
			}
		}
	}
	plain(n)
	for _, e := range n.Content {
		plain(e)
	}
	return n, nil
}

func oneOrList[T any](v []T) (*yaml.Node, error) {
	n := &yaml.Node{}
	var err error
	if len(v) == 1 {
		err = n.Encode(v[0])
	} else {
		if v == nil {
			v = []T{}
		}
		err = n.Encode(v)
		n.Style = yaml.FlowStyle
	}
	return n, err
}

// MarshalYAML writes the duration as String does.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// MarshalYAML writes the size as String does; 0 as a number, since
// "memory: 0" (unlimited) reads better unquoted.
func (b ByteSize) MarshalYAML() (any, error) {
	if b == 0 {
		return 0, nil
	}
	return b.String(), nil
}

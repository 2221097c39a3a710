package spec

import (
	"strings"

	"github.com/tenantbench/tenantbench/internal/suggest"
)

// nearest is the word of words s was probably meant to be, "" for none
// (suggest.Nearest).
func nearest(s string, words []string) string { return suggest.Nearest(s, words) }

// Suggest is "; did you mean NAME?" when value looks like a typo of one of
// names ("shema" for "schema"), else "". Messages that list the allowed
// names append it, so that a slip is named, not only refused.
func Suggest(value string, names []string) string {
	if near := nearest(value, names); near != "" && near != value {
		return "; did you mean " + near + "?"
	}
	return ""
}

// OneOf is the rule of a value that must be one of names, with the
// nearest name when value looks like a typo of it.
func OneOf(value string, names []string) string {
	return "must be one of " + strings.Join(names, ", ") + Suggest(value, names)
}

package tpch

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The 22 queries in MariaDB's dialect are the PostgreSQL text of
// queries_*.go, rewritten by MariaDBQuery: the parameters written in as
// literals (qgen's own form of a query: MariaDB's ? placeholders cannot
// name one parameter twice, as Q2, Q11, Q19 and Q22 do), string
// concatenations of literals folded (|| is OR in MariaDB), and the few
// edits of mariaEdits.

// mariaEdits are the per-query changes beyond the parameters'.
var mariaEdits = map[int][2]string{
	// PostgreSQL subtracts an integer from a date as days; MariaDB would
	// take the date as a number. The template's own interval form.
	1: {"date '1998-12-01' - $1::integer", "date '1998-12-01' - interval $1::integer day"},
}

// mariaDivScale is the digits MariaDB's division adds to the dividend's
// scale (div_precision_increment) for the queries: its default, 4,
// rounds Q8's market shares to 1e-8 (near 1e-7 of a share of 0.04), where
// PostgreSQL's numeric division keeps at least 16 significant digits.
const mariaDivScale = 12

var (
	// paramRef is a parameter, with PostgreSQL's cast when it has one.
	paramRef = regexp.MustCompile(`\$([0-9]+)(::(date|integer|numeric))?`)
	// literalConcat is two string literals joined by ||.
	literalConcat = regexp.MustCompile(`'((?:[^'\\]|''|\\.)*)'\s*\|\|\s*'((?:[^'\\]|''|\\.)*)'`)
)

// MariaDBQuery is query q (1..22) with params (the stream's, as qgen
// prints them) in MariaDB's dialect, ready to send as text. timeout, when
// positive, bounds its run (max_statement_time); the statement carries
// it and the division's scale itself (SET STATEMENT ... FOR), so no
// session state is needed.
func MariaDBQuery(q int, params []string, timeoutSeconds float64) string {
	text := QueryText(q)
	if e, ok := mariaEdits[q]; ok {
		if !strings.Contains(text, e[0]) {
			panic(fmt.Sprintf("tpch: q%02d's MariaDB edit finds no %q", q, e[0]))
		}
		text = strings.Replace(text, e[0], e[1], 1)
	}
	text = paramRef.ReplaceAllStringFunc(text, func(ref string) string {
		m := paramRef.FindStringSubmatch(ref)
		i, _ := strconv.Atoi(m[1])
		if i < 1 || i > len(params) {
			panic(fmt.Sprintf("tpch: q%02d names $%d of %d parameters", q, i, len(params)))
		}
		return mariaLiteral(params[i-1], m[3])
	})
	for {
		folded := literalConcat.ReplaceAllString(text, "'$1$2'")
		if folded == text {
			break
		}
		text = folded
	}
	if strings.Contains(text, "||") {
		panic(fmt.Sprintf("tpch: q%02d concatenates more than literals: no MariaDB form", q))
	}
	set := fmt.Sprintf("set statement div_precision_increment = %d", mariaDivScale)
	if timeoutSeconds > 0 {
		set += ", max_statement_time = " + strconv.FormatFloat(timeoutSeconds, 'f', -1, 64)
	}
	return set + " for " + text
}

// mariaLiteral is parameter value v as a literal of type cast
// (PostgreSQL's: date, integer, numeric, or "" for text).
func mariaLiteral(v, cast string) string {
	switch cast {
	case "date":
		return "date " + quote(v)
	case "integer", "numeric":
		if _, err := strconv.ParseFloat(v, 64); err == nil && !strings.ContainsAny(v, "eEnN") {
			return v
		}
	}
	return quote(v)
}

// quote is v as a MariaDB string literal (backslash and quote escaped).
func quote(v string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(v) + "'"
}

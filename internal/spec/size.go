package spec

import (
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"time"
)

type byteUnit struct {
	name string
	size int64
}

// byteUnits are the units a ByteSize may be written with. The SI units are
// powers of 1000 and the IEC units powers of 1024, as in Kubernetes and the
// IEC standard, so "1GB" and "1GiB" mean what they say. Note that PostgreSQL's
// own settings (sut.settings) read "MB" as 1024 KiB; those values are passed
// to the server as written and never go through ByteSize.
func byteUnits() []byteUnit {
	return []byteUnit{
		{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10},
		{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3},
		{"B", 1},
	}
}

const byteSizeHelp = "must be a size like 512MiB, 2GiB, 1GB or a whole number of bytes " +
	"(units: B; kB, MB, GB, TB = powers of 1000; KiB, MiB, GiB, TiB = powers of 1024)"

// sizeSyntax is a decimal number, optional blanks and an optional unit.
// Exponents and other number forms are left out on purpose: a size is
// written by hand and should read plainly.
var sizeSyntax = regexp.MustCompile(`^([+-]?[0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)$`)

// ParseByteSize reads a size such as "512MiB", "1.5GiB", "800MB", "64kB" or
// "1048576" (bytes). Units are case-sensitive (see byteUnits); the result
// must be a whole number of bytes.
func ParseByteSize(s string) (ByteSize, error) {
	m := sizeSyntax.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, errors.New(byteSizeHelp)
	}
	mult := int64(0)
	if m[2] == "" {
		mult = 1
	}
	for _, u := range byteUnits() {
		if u.name == m[2] {
			mult = u.size
		}
	}
	if mult == 0 {
		return 0, fmt.Errorf("unknown unit %q: %s", m[2], byteSizeHelp)
	}
	// big.Rat keeps "1.5GiB" exact and catches overflow, which float64
	// would hide.
	r, ok := new(big.Rat).SetString(m[1])
	if !ok {
		return 0, errors.New(byteSizeHelp)
	}
	r.Mul(r, new(big.Rat).SetInt64(mult))
	if !r.IsInt() {
		return 0, fmt.Errorf("%s is not a whole number of bytes", s)
	}
	if !r.Num().IsInt64() {
		return 0, fmt.Errorf("%s is too large", s)
	}
	return ByteSize(r.Num().Int64()), nil
}

// String writes the size with the largest unit that divides it exactly,
// binary or decimal ("2GiB", "800MB", "123B"); ParseByteSize reads it back.
func (b ByteSize) String() string {
	if b == 0 {
		return "0"
	}
	best := byteUnits()[len(byteUnits())-1] // B divides everything
	for _, u := range byteUnits() {
		if int64(b)%u.size == 0 && u.size > best.size {
			best = u
		}
	}
	return fmt.Sprintf("%d%s", int64(b)/best.size, best.name)
}

// MaxDuration is the longest duration a spec may write. No benchmark runs
// for eleven years; the bound keeps sums of a spec's durations (warmup +
// duration, a schedule's stages) far from the 292 years where Go's
// durations overflow.
const MaxDuration = Duration(100_000 * time.Hour)

const durationHelp = "must be a duration like 30s, 2m or 1h30m (units: ns, us, ms, s, m, h)"

// durationSyntax is what time.ParseDuration reads, whatever the size: a
// value of this form that it refuses is too large, not misspelt.
var durationSyntax = regexp.MustCompile(`^[-+]?(0|([0-9]*\.?[0-9]+(ns|us|µs|μs|ms|s|m|h))+)$`)

// ParseDuration reads a Go duration ("30s", "2m", "1h30m", "500ms"), at
// most MaxDuration either way.
func ParseDuration(s string) (Duration, error) {
	s = strings.TrimSpace(s)
	d, err := time.ParseDuration(s)
	if err != nil && !durationSyntax.MatchString(s) {
		return 0, errors.New(durationHelp)
	}
	if err != nil || d > MaxDuration.D() || d < -MaxDuration.D() {
		return 0, fmt.Errorf("is out of range: at most %s", MaxDuration)
	}
	return Duration(d), nil
}

// String writes the duration as Go does but without zero trailing units
// ("1m" rather than "1m0s"), so that the resolved spec reads like a
// hand-written one. ParseDuration reads it back.
func (d Duration) String() string {
	s := time.Duration(d).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// D returns the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

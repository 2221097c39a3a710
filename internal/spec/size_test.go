package spec

import (
	"strings"
	"testing"
	"time"
)

func TestParseByteSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want ByteSize
	}{
		{"0", 0},
		{"1048576", 1 << 20},
		{"512MiB", 512 << 20},
		{"2GiB", 2 << 30},
		{"1.5GiB", 3 << 29},
		{"1GB", 1e9},
		{"800MB", 800e6},
		{"64kB", 64000},
		{"4KiB", 4096},
		{"1TiB", 1 << 40},
		{"2TB", 2e12},
		{"100B", 100},
		{" 512 MiB ", 512 << 20},
		{"0.5kB", 500},
		{"-1GiB", -(1 << 30)}, // read here, refused by Validate with its rule
	} {
		got, err := ParseByteSize(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "MiB", "1mb", "1 gb", "1KB", "1.5B", "0.1B", "1e9", "0x10", "1GiB2", "99999999TiB", "1,5GB"} {
		if got, err := ParseByteSize(in); err == nil {
			t.Errorf("ParseByteSize(%q) = %d, want an error", in, got)
		}
	}
}

func TestByteSizeString(t *testing.T) {
	for _, c := range []struct {
		in   ByteSize
		want string
	}{
		{0, "0"},
		{1 << 30, "1GiB"},
		{3 << 29, "1536MiB"},
		{1e9, "1GB"},
		{800e6, "800MB"},
		{64000, "64kB"},
		{4096, "4KiB"},
		{1001, "1001B"},
		{-(2 << 20), "-2MiB"},
	} {
		if got := c.in.String(); got != c.want {
			t.Errorf("ByteSize(%d).String() = %q, want %q", int64(c.in), got, c.want)
		}
		if back, err := ParseByteSize(c.in.String()); err != nil || back != c.in {
			t.Errorf("ParseByteSize(%q) = %d, %v; want %d", c.in.String(), back, err, int64(c.in))
		}
	}
}

func TestDuration(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		text string
	}{
		{"30s", 30 * time.Second, "30s"},
		{"2m", 2 * time.Minute, "2m"},
		{"90s", 90 * time.Second, "1m30s"},
		{"1h", time.Hour, "1h"},
		{"1h30m", 90 * time.Minute, "1h30m"},
		{"1h0m5s", time.Hour + 5*time.Second, "1h0m5s"},
		{"500ms", 500 * time.Millisecond, "500ms"},
		{"0", 0, "0s"},
	} {
		d, err := ParseDuration(c.in)
		if err != nil || d.D() != c.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", c.in, d.D(), err, c.want)
		}
		if d.String() != c.text {
			t.Errorf("Duration(%v).String() = %q, want %q", c.want, d.String(), c.text)
		}
		if back, err := ParseDuration(d.String()); err != nil || back != d {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", d.String(), back, err, d)
		}
	}
	for _, in := range []string{"", "30", "1d", "soon", "5 minutes"} {
		if _, err := ParseDuration(in); err == nil || !strings.Contains(err.Error(), "like 30s") {
			t.Errorf("ParseDuration(%q) = %v: want a format error", in, err)
		}
	}
	// Too long is out of range, with the most allowed, not a bad format.
	for _, in := range []string{"100000000h", "100001h", "-100001h", "99999999999999999999s"} {
		_, err := ParseDuration(in)
		if err == nil || err.Error() != "is out of range: at most 100000h" {
			t.Errorf("ParseDuration(%q) = %v: want out of range, at most 100000h", in, err)
		}
	}
	if d, err := ParseDuration("100000h"); err != nil || d != MaxDuration {
		t.Errorf("ParseDuration(100000h) = %v, %v: the most allowed must be accepted", d, err)
	}
}

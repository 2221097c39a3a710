package workload

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestAppendLoadText: two rows of every kind in one buffer become two
// lines of LOAD DATA's text; a row that does not fit its kinds is an
// error.
func TestAppendLoadText(t *testing.T) {
	row := func(id int64, date time.Time, text string) []byte {
		var b []byte
		b = AppendFieldCount(b, 6)
		b = AppendInt4(b, id)
		b = AppendInt8(b, id<<33)
		b = AppendNumericField(b, -id*101, 2)
		b = AppendDate(b, int64(date.Sub(pgEpoch)/(24*time.Hour)))
		b = AppendTimestamp(b, PGMicros(date.Add(1500*time.Microsecond)))
		return AppendText(b, text)
	}
	rows := append(row(1, time.Date(1992, 1, 2, 0, 0, 0, 0, time.UTC), "a\tb\\c\nd"),
		row(2, time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC), "")...)
	got, err := AppendLoadText(nil, rows, "iindTt")
	want := "1\t8589934592\t-1.01\t1992-01-02\t1992-01-02 00:00:00.001500\ta\\\tb\\\\c\\\nd\n" +
		"2\t17179869184\t-2.02\t2026-11-24\t2026-11-24 00:00:00.001500\t\n"
	if err != nil || string(got) != want {
		t.Errorf("AppendLoadText =\n%q, %v; want\n%q", got, err, want)
	}
	var null []byte
	null = AppendFieldCount(null, 2)
	null = AppendInt4(null, 7)
	null = AppendNull(null)
	if got, err := AppendLoadText(nil, null, "it"); err != nil || string(got) != "7\t\\N\n" {
		t.Errorf("a NULL: %q, %v", got, err)
	}
	if _, err := AppendLoadText(nil, null, "iit"); err == nil || !strings.Contains(err.Error(), "2 fields") {
		t.Errorf("a row of 2 fields for 3 columns: %v", err)
	}
	var buf bytes.Buffer
	var reported int64
	tab := CopyTable{Name: "t", First: 1, Last: 3, MaxRow: 64, Encode: func(b []byte, id int64) []byte {
		return AppendInt4(AppendFieldCount(b, 1), id)
	}}
	if err := WriteLoadText(&buf, tab.Source(), tab.MaxRow, "i", func(n int64) { reported += n }); err != nil ||
		buf.String() != "1\n2\n3\n" || reported != 3 {
		t.Errorf("WriteLoadText: %q, %d rows reported, %v", buf.String(), reported, err)
	}
}

// TestLoadKinds: each column's kind from its PostgreSQL type, as the
// workloads write their CREATE TABLE statements; an unknown type panics.
func TestLoadKinds(t *testing.T) {
	got := LoadKinds([]string{"create table t (\n\ta int,\n\tb bigint,\n\tc numeric(12,2),\n\td date,\n\te timestamptz,\n\tf varchar(10),\n\tg char(2),\n\th timestamp\n)"})
	if want := "iindTttT"; got["t"] != want {
		t.Errorf("kinds %q, want %q", got["t"], want)
	}
	defer func() {
		if recover() == nil {
			t.Error("a jsonb column got a kind")
		}
	}()
	LoadKinds([]string{"create table u (\n\tx jsonb\n)"})
}

// TestAppendDaysMicros: the calendar arithmetic of appendDays and
// appendMicros against time.Time's formatting, over years 1 to 9999 and
// times of day across a day's edges.
func TestAppendDaysMicros(t *testing.T) {
	first := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	for day := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC); day.Year() < 10000; day = day.AddDate(0, 0, 7) {
		days := (day.Unix() - pgEpoch.Unix()) / 86400
		if got, want := string(appendDays(nil, days)), day.Format(time.DateOnly); got != want {
			t.Fatalf("appendDays(%d) = %s, want %s", days, got, want)
		}
	}
	for _, us := range []int64{0, 1, -1, 86399999999, 86400000000, -86400000001, 123456789012345, -2*86400000000 - 3723000004,
		PGMicros(first), PGMicros(time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC))} {
		if got, want := string(appendMicros(nil, us)), time.UnixMicro(pgEpoch.UnixMicro()+us).UTC().Format("2006-01-02 15:04:05.000000"); got != want {
			t.Errorf("appendMicros(%d) = %s, want %s", us, got, want)
		}
	}
	cases := []string{"", "abc", "\\", "a\tb\nc\\", "abcdefgh\t"}
	for i := range 20 {
		for _, c := range []byte("\t\n\\\x00\x80\xff[]") {
			v := []byte("abcdefghijklmnopqrst")
			v[i] = c
			cases = append(cases, string(v))
		}
	}
	for _, v := range cases {
		var want []byte
		for _, c := range []byte(v) {
			if c == '\\' || c == '\t' || c == '\n' {
				want = append(want, '\\')
			}
			want = append(want, c)
		}
		if got := appendEscaped([]byte("x"), []byte(v)); string(got) != "x"+string(want) {
			t.Errorf("appendEscaped(%q) = %q, want x%q", v, got, want)
		}
	}
}

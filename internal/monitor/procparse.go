package monitor

import "bytes"

// Parsers of the /proc files a round reads, over the reader's buffer: they
// take what the monitor uses and allocate nothing. (prometheus/procfs
// parses every field into new strings and structs: 47 us and about 70
// allocations per /proc/<pid>/stat, against 7 us for the read itself.)

// procStat is what a round uses of /proc/<pid>/stat (proc(5)). Times are
// in ticks of 1/userHZ s, rss in pages.
type procStat struct {
	ppid           int
	utime, stime   uint64
	cutime, cstime int64 // CPU of the children the process waited for
	starttime      uint64
	rss            int64
	threads        int64 // num_threads: schedstat speaks of one thread only
}

// parseStat parses /proc/<pid>/stat. The command name, field 2, is in
// parentheses and may hold blanks and parentheses itself: the fields that
// follow are counted from the last ')'.
func parseStat(b []byte, st *procStat) bool {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return false
	}
	b = b[i+1:]
	// Fields from 3 (state) on, separated by one blank.
	for field := 2; field < 24; {
		b = trimBlanks(b)
		if len(b) == 0 {
			return false
		}
		field++
		end := bytes.IndexByte(b, ' ')
		if end < 0 {
			end = len(b)
		}
		f := b[:end]
		b = b[end:]
		switch field {
		case 4:
			v, ok := parseInt(f)
			if !ok {
				return false
			}
			st.ppid = int(v)
		case 14, 15, 22:
			v, ok := parseUint(f)
			if !ok {
				return false
			}
			switch field {
			case 14:
				st.utime = v
			case 15:
				st.stime = v
			default:
				st.starttime = v
			}
		case 16, 17, 20, 24:
			v, ok := parseInt(f)
			if !ok {
				return false
			}
			switch field {
			case 16:
				st.cutime = v
			case 17:
				st.cstime = v
			case 20:
				st.threads = v
			default:
				st.rss = v
			}
		}
	}
	return true
}

// schedRuntime parses the first field of /proc/<pid>/schedstat: the
// nanoseconds the process's (main) thread has run on a CPU. Unlike the
// ticks of stat it moves whenever the thread ran at all, however briefly;
// it is kept whether or not the kernel collects scheduler statistics.
func schedRuntime(b []byte) (uint64, bool) {
	v, ok := leadingUint(b)
	return v, ok && len(b) > 0 && b[0] != ' '
}

// eachColonKV calls fn for every "key: number [unit]" line
// (/proc/<pid>/status, io and smaps_rollup, /proc/meminfo) with the number;
// lines whose value does not start with a number are skipped.
func eachColonKV(b []byte, fn func(key []byte, v uint64)) { eachLineKV(b, ':', leadingUint, fn) }

// eachLineKV calls fn for every line "key<sep>value" whose value parse
// reads.
func eachLineKV(b []byte, sep byte, parse func([]byte) (uint64, bool), fn func(key []byte, v uint64)) {
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		c := bytes.IndexByte(line, sep)
		if c <= 0 {
			continue
		}
		if v, ok := parse(line[c+1:]); ok {
			fn(line[:c], v)
		}
	}
}

// ctxSwitches parses the context switches of /proc/<pid>/status.
func ctxSwitches(b []byte) (vol, invol uint64, ok bool) {
	n := 0
	eachColonKV(b, func(k []byte, v uint64) {
		switch string(k) {
		case "voluntary_ctxt_switches":
			vol = v
			n++
		case "nonvoluntary_ctxt_switches":
			invol = v
			n++
		}
	})
	return vol, invol, n == 2
}

// ioBytes parses read_bytes and write_bytes of /proc/<pid>/io.
func ioBytes(b []byte) (read, write uint64, ok bool) {
	n := 0
	eachColonKV(b, func(k []byte, v uint64) {
		switch string(k) {
		case "read_bytes":
			read = v
			n++
		case "write_bytes":
			write = v
			n++
		}
	})
	return read, write, n == 2
}

// kBField is a "key: N kB" line of /proc/<pid>/smaps_rollup or
// /proc/meminfo, in bytes.
func kBField(b []byte, key string) (uint64, bool) {
	var out uint64
	found := false
	eachColonKV(b, func(k []byte, v uint64) {
		if !found && string(k) == key {
			out, found = v*1024, true
		}
	})
	return out, found
}

// smapsRollup parses /proc/<pid>/smaps_rollup: Pss, and Pss_Anon (the
// process's share of the anonymous memory it maps: its heap and stack,
// copy-on-write pages split among the processes that share them), both
// in bytes; anon is -1 where the kernel lacks Pss_Anon (before 5.10).
func smapsRollup(b []byte) (pss uint64, anon int64, ok bool) {
	anon = -1
	eachColonKV(b, func(k []byte, v uint64) {
		switch string(k) {
		case "Pss":
			pss, ok = v*1024, true
		case "Pss_Anon":
			anon = int64(v) * 1024
		}
	})
	return pss, anon, ok
}

// cpuTimes is the "cpu" line of /proc/stat: all CPUs' time in seconds.
// Guest time is already inside user and nice.
type cpuTimes struct {
	User, Nice, System, Idle, Iowait, IRQ, SoftIRQ, Steal float64
}

// parseCPULine parses the first line of /proc/stat ("cpu  user nice system
// idle iowait irq softirq steal ..."; kernels before 2.6.11 have fewer).
func parseCPULine(b []byte, out *cpuTimes) bool {
	rest, ok := bytes.CutPrefix(b, []byte("cpu "))
	if !ok {
		return false
	}
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	dst := [...]*float64{&out.User, &out.Nice, &out.System, &out.Idle, &out.Iowait, &out.IRQ, &out.SoftIRQ, &out.Steal}
	*out = cpuTimes{}
	n := 0
	for _, p := range dst {
		rest = trimBlanks(rest)
		if len(rest) == 0 {
			break
		}
		end := bytes.IndexByte(rest, ' ')
		if end < 0 {
			end = len(rest)
		}
		v, ok := parseUint(rest[:end])
		if !ok {
			return false
		}
		*p = float64(v) / userHZ
		rest = rest[end:]
		n++
	}
	return n >= 4
}

func trimBlanks(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}

// leadingUint parses the number at the start of b, after blanks, up to
// the first character that is not a digit.
func leadingUint(b []byte) (uint64, bool) {
	b = trimBlanks(b)
	var v uint64
	n := 0
	for ; n < len(b) && b[n] >= '0' && b[n] <= '9'; n++ {
		v = v*10 + uint64(b[n]-'0')
	}
	return v, n > 0
}

// parseInt parses a decimal number with an optional minus sign.
func parseInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	v, ok := parseUint(b)
	if !ok {
		return 0, false
	}
	if neg {
		return -int64(v), true
	}
	return int64(v), true
}

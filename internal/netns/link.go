// Package netns puts a run's servers behind an emulated network link: a
// network namespace joined to the host by a veth pair, with the link's
// emulator on it (sut.network): tc netem on each end's egress, or, on a
// kernel without netem, NFQUEUE rules in the namespace served by a
// delayer process (queue.go, delayer.go) and HTB for a rate. It runs
// iproute2's ip and tc and iptables, and starts a program inside the
// namespace (Net.Start). Root only.
package netns

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Link is the emulated link, the same in each direction: netem applies
// Delay, Jitter, Loss and Rate to the packets leaving each end, so a
// round trip crosses Delay twice (Delay is one-way, as netem's own
// delay and a server on another host are).
type Link struct {
	Delay  time.Duration `json:"delay_ns"`
	Jitter time.Duration `json:"jitter_ns"`
	// Loss is the percentage of packets dropped in each direction.
	Loss float64 `json:"loss_pct"`
	// Rate is the link's bandwidth in bit/s; 0 = as fast as the veth.
	Rate int64 `json:"rate_bit_s"`
	// Emulator puts the link on the veth pair: "netem", "queue" (see
	// Emulators), Auto or "" for the first one usable here; Create
	// leaves the one it used, "" for a plain link.
	Emulator string `json:"emulator,omitempty"`
}

// Plain says the link adds nothing: no qdisc or emulator is put on it,
// and packets cross the veth pair as fast as the kernel moves them.
func (l Link) Plain() bool { return l.Delay == 0 && l.Jitter == 0 && l.Loss == 0 && l.Rate == 0 }

// netemArgs are tc's arguments for the link's netem qdisc.
func (l Link) netemArgs() []string {
	args := []string{"netem"}
	if l.Delay > 0 || l.Jitter > 0 {
		args = append(args, "delay", us(l.Delay))
		if l.Jitter > 0 {
			args = append(args, us(l.Jitter))
		}
	}
	if l.Loss > 0 {
		args = append(args, "loss", strconv.FormatFloat(l.Loss, 'f', -1, 64)+"%")
	}
	if l.Rate > 0 {
		args = append(args, "rate", strconv.FormatInt(l.Rate, 10)+"bit")
	}
	return args
}

func us(d time.Duration) string { return strconv.FormatInt(d.Microseconds(), 10) + "us" }

// String is the link as sut.network writes it.
func (l Link) String() string {
	if l.Plain() {
		return "plain (no emulator)"
	}
	var parts []string
	parts = append(parts, "delay "+l.Delay.String())
	if l.Jitter > 0 {
		parts = append(parts, "jitter "+l.Jitter.String())
	}
	if l.Loss > 0 {
		parts = append(parts, "loss "+strconv.FormatFloat(l.Loss, 'f', -1, 64)+"%")
	}
	if l.Rate > 0 {
		parts = append(parts, "rate "+FormatRate(l.Rate))
	}
	s := strings.Join(parts, ", ") + " each way"
	if l.Emulator != "" && l.Emulator != Auto {
		s += " (" + l.Emulator + ")"
	}
	return s
}

// rateUnits are tc's rate units (tc(8), "RATES"): bits and bytes per
// second, with decimal prefixes; "bps" is bytes, as in tc.
var rateUnits = []struct {
	suffix string
	bits   int64
}{
	{"tbit", 1e12}, {"gbit", 1e9}, {"mbit", 1e6}, {"kbit", 1e3}, {"bit", 1},
	{"tbps", 8e12}, {"gbps", 8e9}, {"mbps", 8e6}, {"kbps", 8e3}, {"bps", 8},
}

// RateHelp says what ParseRate reads.
const RateHelp = "must be a positive number with one of tc's units: bit, kbit, mbit, gbit, tbit (bits per second) or bps, kbps, mbps, gbps, tbps (bytes per second), e.g. 1gbit"

// ParseRate reads a bandwidth as tc writes it ("1gbit", "100mbit",
// "10mbps") into bits per second.
func ParseRate(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for _, u := range rateUnits {
		num, ok := strings.CutSuffix(t, u.suffix)
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || v <= 0 || v*float64(u.bits) > 1e15 {
			break
		}
		bits := int64(v * float64(u.bits))
		if bits < 8 {
			break
		}
		return bits, nil
	}
	return 0, fmt.Errorf("%s", RateHelp)
}

// FormatRate writes bits per second in the largest unit that keeps it
// whole ("1gbit").
func FormatRate(bits int64) string {
	for _, u := range rateUnits[:5] {
		if bits >= u.bits && bits%u.bits == 0 {
			return strconv.FormatInt(bits/u.bits, 10) + u.suffix
		}
	}
	return strconv.FormatInt(bits, 10) + "bit"
}

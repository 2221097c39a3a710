package monitor

// Sessions lists the processes under root that a round counts as client
// backends (a client's title, or none: just forked or exiting), read as a
// round reads them (childrenOf, classOfTitle). For the external tests.
func Sessions(root int) ([]int, error) {
	var r reader
	kids, err := childrenOf(&r, root, nil)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, pid := range kids {
		b, err := r.readProc(pid, "cmdline")
		if gone(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if c := classOfTitle(b); c == classClient || c == classUnknown {
			out = append(out, pid)
		}
	}
	return out, nil
}

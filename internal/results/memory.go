package results

// MemoryKill is one instance's server processes killed for memory during
// a run: by the instance's cgroup (its memory limit) or
// by the host's OOM killer.
type MemoryKill struct {
	Instance string  `json:"instance"`
	Source   string  `json:"source"` // "cgroup" or "host"
	AtS      float64 `json:"at_s"`   // first seen, since the run started (as phases.csv)
	Phase    string  `json:"phase"`  // the phase under way then
	Kills    int64   `json:"kills"`  // processes killed
	// Lost are the queries of the instance's tenants that failed from then
	// on: "t01 stream 1 q18 at 12.3 s: <error>".
	Lost []string `json:"lost,omitempty"`
}

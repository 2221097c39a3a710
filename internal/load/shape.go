package load

import (
	"sort"
	"sync"
	"time"
)

// Shape is a load shape: what a tenant's target means and how the driver
// turns it into transactions. Each shape is one type in one file
// (closed.go, open.go) that registers itself by name; nothing outside this
// package tests a shape's name: spec, the driver, the run and the report
// ask the shape.
//
// A registered shape is the zero value; Configure gives the value a spec's
// workload.load describes, which is what a Plan carries.
type Shape interface {
	// Name is the value of workload.load.shape.
	Name() string
	// Keys are the keys of workload.load the shape reads, besides shape.
	// A key given for a shape that does not read it is refused.
	Keys() []string
	// Defaults fills the shape's keys that s leaves out, so that the
	// resolved spec shows them.
	Defaults(s *Settings)
	// Check says what is wrong with s under this shape: one Issue per
	// problem, with what is allowed. It sees only the shape's own keys;
	// spec refuses the others and adds the path and the line.
	Check(s *Settings, c Context) []Issue
	// Configure is the shape as s describes it (defaults filled).
	Configure(s *Settings) Shape
	// Target says what a target is under this shape.
	Target() Target
	// CheckTarget says what is wrong with one target value x >= 0 of a
	// schedule (a slot, a stage, a sinusoid's peak), "" when allowed.
	CheckTarget(x float64, c Context) string
	// Conns is how many connections a tenant opens when its target peaks
	// at peak; clients is workload.clients, the expected concurrency.
	Conns(peak float64, clients int) int
	// Resolve is the shape of a run whose tenants open conns connections
	// at most (Conns' answer for the run).
	Resolve(conns int) Shape
	// Describe says in a line what the load is, "" when there is nothing
	// to say; scheduled is true under a schedule or pattern.
	Describe(scheduled bool) string
	// Loop is how the driver runs the shape.
	Loop() Loop
}

// Settings is workload.load as a spec writes it: the shape's name and the
// keys of every shape; each shape reads its own (Keys).
type Settings struct {
	Shape    string
	Think    time.Duration
	Rate     []float64
	Arrivals string
	Pool     int
	OnFull   string
}

// SettingKeys are the keys of workload.load besides shape, in the order
// spec reports them.
var SettingKeys = []string{"think", "rate", "arrivals", "pool", "on_full"}

// Given reports whether key (one of SettingKeys) is written in s.
func (s *Settings) Given(key string) bool {
	switch key {
	case "think":
		return s.Think != 0
	case "rate":
		return s.Rate != nil
	case "arrivals":
		return s.Arrivals != ""
	case "pool":
		return s.Pool != 0
	case "on_full":
		return s.OnFull != ""
	}
	return false
}

// Context is what a shape's checks need to know of the rest of the spec.
type Context struct {
	// SetsTarget is true when workload.schedule or workload.pattern gives
	// the target, so neither workload.clients nor a shape's own key does.
	SetsTarget bool
	// Clients is true when workload.clients is written (not its default 1).
	Clients bool
	// MaxClients bounds connections per tenant.
	MaxClients int
}

// Issue is one problem a shape finds. Key is below workload ("load.pool",
// "clients"); spec turns it into a spec.Problem with path, value and line.
type Issue struct {
	Key     string
	Allowed string
	// Value is true when the value written at Key is the problem (spec
	// shows it); false when the key is wrong as a whole.
	Value bool
	// Each, when set, checks every element of a list at Key (a dimension
	// of the plan), and Allowed is unused.
	Each func(float64) string
}

// Target says what a shape's target (workload.clients, a rate, a
// schedule's values) is.
type Target struct {
	// Unit names it in messages and the plan: "clients", "arrivals per
	// second".
	Unit string
	// Clients is true when the target is a number of clients running
	// back to back: rounded to whole clients, at most Context.MaxClients,
	// and tau is a concurrency. Otherwise it is a rate of arrivals.
	Clients bool
	// Tau says what workload.pattern.tau is under the shape.
	Tau string
}

// Runner names a loop of the driver.
type Runner int

// The driver's loops.
const (
	// ClientLoop runs each client's transactions back to back, pausing
	// Think after each.
	ClientLoop Runner = iota
	// ArrivalLoop starts transactions at arrival times, on a pool of
	// connections.
	ArrivalLoop
)

// Loop is what the driver needs to run a shape.
type Loop struct {
	Runner   Runner
	Think    time.Duration // ClientLoop: pause after each transaction
	Arrivals string        // ArrivalLoop: ArrivalsPoisson or ArrivalsUniform
	OnFull   string        // ArrivalLoop: OnFullQueue or OnFullDrop
}

var (
	mu       sync.RWMutex
	registry = map[string]Shape{}
)

// register adds a shape; each shape's file calls it once from init.
func register(s Shape) {
	if _, dup := registry[s.Name()]; dup {
		panic("load: shape " + s.Name() + " registered twice")
	}
	registry[s.Name()] = s
}

// Register adds a shape from outside the package, and returns the
// function that removes it again: tests use it to show that a new shape
// needs nothing but its own type.
func Register(s Shape) (undo func()) {
	mu.Lock()
	defer mu.Unlock()
	register(s)
	return func() {
		mu.Lock()
		defer mu.Unlock()
		delete(registry, s.Name())
	}
}

// Shapes are the registered shapes, by name.
func Shapes() []Shape {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]Shape, 0, len(registry))
	for _, s := range registry {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// ShapeOf is the registered shape called name; "" is the default shape.
func ShapeOf(name string) (Shape, bool) {
	if name == "" {
		return DefaultShape(), true
	}
	mu.RLock()
	defer mu.RUnlock()
	s, ok := registry[name]
	return s, ok
}

// DefaultShape is the shape of a spec that names none.
func DefaultShape() Shape { return Closed{} }

// Owners are the names of the shapes that read key.
func Owners(key string) []string {
	var out []string
	for _, s := range Shapes() {
		for _, k := range s.Keys() {
			if k == key {
				out = append(out, s.Name())
			}
		}
	}
	return out
}

// roundClients rounds a target to whole clients, as the driver runs them:
// client k runs while the target is at least k + 0.5.
func roundClients(v float64) int {
	if v < 0.5 {
		return 0
	}
	return int(v + 0.5)
}

// durationText writes d as spec files do: "1m", not "1m0s".
func durationText(d time.Duration) string {
	s := d.String()
	if len(s) > 3 && s[len(s)-3:] == "m0s" {
		s = s[:len(s)-2]
	}
	if len(s) > 3 && s[len(s)-3:] == "h0m" {
		s = s[:len(s)-2]
	}
	return s
}

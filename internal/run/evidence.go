package run

import (
	"fmt"

	"github.com/tenantbench/tenantbench/internal/provider"
)

// keepLog copies inst's server log into the run's results directory
// (results.Dir.KeepServerLog) once, before teardown removes the work
// directory it is in, and returns a phrase naming the copy for an error:
// "its log: <path>", or why there is none.
func (e *execution) keepLog(inst *provider.Instance) string {
	return e.keepLogOf(inst.Name, inst.LogFile)
}

// keepLogOf is keepLog of the server name whose log is logFile; a
// provider calls it (InstanceSpec.KeepLog) for a server that failed to
// start, from the goroutine that started it.
func (e *execution) keepLogOf(name, logFile string) string {
	e.logMu.Lock()
	defer e.logMu.Unlock()
	if path, ok := e.keptLogs[name]; ok {
		return "its log: " + path
	}
	if logFile == "" {
		return "its provider keeps no log"
	}
	if e.opts.Out == nil {
		return "no results directory to keep its log in"
	}
	path, err := e.opts.Out.KeepServerLog(e.run.ID, name, logFile)
	if err != nil {
		e.logf("keeping the log of instance %s: %v", name, err)
		return fmt.Sprintf("its log could not be kept: %v", err)
	}
	if e.keptLogs == nil {
		e.keptLogs = map[string]string{}
	}
	e.keptLogs[name] = path
	return "its log: " + path
}

// exitedErrors name every instance that exited during the run and was not
// reported yet (by healthAfterWorkload), each with the copy of its log:
// a server that died in loading fails the phase with a connection error
// that does not say which server went or why.
func (e *execution) exitedErrors() []error {
	var errs []error
	for _, inst := range e.instances {
		if inst == nil || inst.Exited == nil {
			continue
		}
		if err := e.exited(inst); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// exited says that inst exited during the run, naming the copy of its
// log, once per instance; nil when it is still up or was named already.
func (e *execution) exited(inst *provider.Instance) error {
	if e.exitNamed[inst.Name] || e.failedOver(inst) {
		return nil
	}
	select {
	case <-inst.Exited:
	default:
		return nil
	}
	if e.exitNamed == nil {
		e.exitNamed = map[string]bool{}
	}
	e.exitNamed[inst.Name] = true
	return fmt.Errorf("instance %s exited during the run (%s)", inst.Name, e.keepLog(inst))
}

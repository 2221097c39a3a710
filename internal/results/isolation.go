package results

// IsolationFile is the isolation audit's file in a run's directory
// (runs/<id>/isolation.csv), written when the run asked for the audit
// (tenancy.isolation: audit) or by `tenantbench audit`: one row per probe,
// with IsolationHeader's columns.
const IsolationFile = "isolation.csv"

// IsolationHeader: the run's tenancy model, the probe's name, its outcome
// (denied, visible or possible) and the evidence (a SQLSTATE and the
// server's message, or what was seen).
var IsolationHeader = []string{"model", "probe", "outcome", "evidence"}

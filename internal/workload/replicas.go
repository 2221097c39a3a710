package workload

// Reads on replicas (sut.replicas, workload.reads: replicas). A client is
// given a connection to each replica of its tenant's server
// (ClientInfo.Replicas) when its reads go there or when its workload
// reads from the replicas by design (ReplicaUser); it sends its
// read-only transactions to them round-robin, from the replica its
// index names, and everything else to its own connection, the primary.

// ReadOnly is implemented by workloads some of whose transactions only
// read: with workload.reads: replicas the plan accepts them, and their
// clients send those transactions to the replicas.
type ReadOnly interface {
	// ReadOnly says whether the transaction type named txn (one of
	// TxnNames) only reads.
	ReadOnly(txn string) bool
}

// ReplicaUser is implemented by workloads whose clients read from the
// replicas whatever workload.reads says (lag: it reads its own writes
// back there): the plan refuses a run of one without replicas.
type ReplicaUser interface {
	UsesReplicas() bool
}

// ReadOnlyTxns are the names of w's read-only transactions, none for a
// workload that is not ReadOnly.
func ReadOnlyTxns(w Workload) []string {
	ro, ok := w.(ReadOnly)
	if !ok {
		return nil
	}
	var out []string
	for _, n := range w.TxnNames() {
		if ro.ReadOnly(n) {
			out = append(out, n)
		}
	}
	return out
}

// UsesReplicas says whether w's clients need the replicas whatever
// workload.reads says.
func UsesReplicas(w Workload) bool {
	u, ok := w.(ReplicaUser)
	return ok && u.UsesReplicas()
}

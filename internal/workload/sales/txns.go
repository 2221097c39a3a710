package sales

// The transactions of Table II ("CloudyBench's OLTP workload"), one file
// each. Their names are the transaction types in results.
const (
	NewOrderline      = "new_orderline"      // T1, write-only
	OrderPayment      = "order_payment"      // T2, read-write
	OrderStatus       = "order_status"       // T3, read-only
	OrderlineDeletion = "orderline_deletion" // T4, deletion
)

// txn is one of the four transactions, T1 to T4 in Table II's order.
type txn int

const (
	txnNewOrderline txn = iota
	txnOrderPayment
	txnOrderStatus
	txnOrderlineDeletion
	numTxns
)

func (t txn) String() string {
	switch t {
	case txnNewOrderline:
		return NewOrderline
	case txnOrderPayment:
		return OrderPayment
	case txnOrderStatus:
		return OrderStatus
	case txnOrderlineDeletion:
		return OrderlineDeletion
	}
	return "unknown"
}

// allTxns are T1 to T4.
func allTxns() []txn {
	return []txn{txnNewOrderline, txnOrderPayment, txnOrderStatus, txnOrderlineDeletion}
}

// txnNames are the names of T1 to T4.
func txnNames() []string {
	return []string{NewOrderline, OrderPayment, OrderStatus, OrderlineDeletion}
}

// txnIndex is the transaction called name, or -1.
func txnIndex(name string) txn {
	for _, t := range allTxns() {
		if t.String() == name {
			return t
		}
	}
	return -1
}

package tpch

import (
	"strconv"
	"testing"
)

func mustFloat(t testing.TB, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// tblTables generates every table of z in dbgen's text format.
func tblTables(z sizes) map[string][]byte {
	out := map[string][]byte{}
	var part, ps, supp, cust, ord, line, nat, reg []byte
	pg := newPartGen(z)
	for p := int64(1); p <= z.parts; p++ {
		part, ps = tblPart(part, ps, pg.gen(p))
	}
	sg := newSupplierGen()
	for k := int64(1); k <= z.suppliers; k++ {
		supp = tblSupplier(supp, sg.gen(k))
	}
	cg := newCustomerGen()
	for k := int64(1); k <= z.customers; k++ {
		cust = tblCustomer(cust, cg.gen(k))
	}
	og := newOrderGen(z)
	for i := int64(1); i <= z.orders; i++ {
		ord, line = tblOrder(ord, line, og.gen(i))
	}
	ng := newNationGen()
	for n := int64(0); n < numNations; n++ {
		nat = tblNation(nat, ng, n)
	}
	for r := int64(0); r < numRegions; r++ {
		reg = tblRegion(reg, ng, r)
	}
	out["part"], out["partsupp"], out["supplier"], out["customer"] = part, ps, supp, cust
	out["orders"], out["lineitem"], out["nation"], out["region"] = ord, line, nat, reg
	return out
}

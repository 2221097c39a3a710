package suggest

import "testing"

func TestNearest(t *testing.T) {
	words := []string{"clients", "scale", "shared_buffers", "fillfactor"}
	for _, c := range []struct{ s, want string }{
		{"client", "clients"}, {"sclae", "scale"}, {"fillfactr", "fillfactor"},
		{"shared_bufers", "shared_buffers"}, {"duration", ""}, {"", ""},
	} {
		if got := Nearest(c.s, words); got != c.want {
			t.Errorf("Nearest(%q) = %q, want %q", c.s, got, c.want)
		}
	}
}

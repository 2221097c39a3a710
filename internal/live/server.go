package live

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Server serves Metrics at /metrics on one address, from Listen to Close.
type Server struct {
	m    *Metrics
	ln   net.Listener
	srv  *http.Server
	done chan struct{}
	once sync.Once
	err  error
}

// CheckAddr checks a --metrics-addr before anything binds it: a host and
// a port. The host must be written out: a bare ":9464" would listen on
// every interface, which the user must ask for ("0.0.0.0:9464"), since
// the metrics name the run's tenants to whoever reaches the port (they
// hold no password).
func CheckAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port (e.g. 127.0.0.1:9464): %v", addr, err)
	}
	if host == "" {
		return fmt.Errorf("%q names no host: write 127.0.0.1%s for this machine only, or 0.0.0.0%s for every interface", addr, addr, addr)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 1 || p > 65535 {
		return fmt.Errorf("%q: port %q is not a number from 1 to 65535", addr, port)
	}
	return nil
}

// Listen checks addr and binds it, so that a bad or busy address is
// refused before a run starts, and serves m's metrics there (with the
// Go runtime's and this process's: the driver's own CPU and memory).
func Listen(addr string, m *Metrics) (*Server, error) {
	if err := CheckAddr(addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%q: %v", addr, err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(m, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "tenantbench: live metrics at /metrics")
	})
	s := &Server{m: m, ln: ln, done: make(chan struct{}),
		srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln) // http.ErrServerClosed after Close
	}()
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Metrics are the figures the server shows; nil for a nil server.
func (s *Server) Metrics() *Metrics {
	if s == nil {
		return nil
	}
	return s.m
}

// Close stops the server: a scrape in flight gets a second to finish,
// then every connection is closed, and the port is free when Close
// returns. A nil server does nothing; a second Close returns the first's
// error.
func (s *Server) Close() error {
	if s == nil {
		return nil
	}
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		s.err = s.srv.Shutdown(ctx)
		if errors.Is(s.err, context.DeadlineExceeded) {
			s.err = s.srv.Close()
		}
		<-s.done
	})
	return s.err
}

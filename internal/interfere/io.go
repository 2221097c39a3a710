package interfere

import (
	"context"
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/spec"
)

// io writes synchronously (stress-ng --hdd with O_SYNC) on the
// filesystem of the run's data directories: a neighbour competing for the
// disk the servers' WAL and checkpoints need.
type ioNoise struct{ noise }

func init() { register(ioNoise{}) }

type ioParams struct {
	shareable
	Workers int
	Bytes   spec.ByteSize // per worker
}

func (p ioParams) String() string {
	return fmt.Sprintf("workers=%d;bytes=%d;share=%v", p.Workers, p.Bytes, p.Share)
}

func (ioNoise) Name() string   { return "io" }
func (ioNoise) Keys() []string { return []string{"workers", "bytes", "share"} }

func (ioNoise) Parse(d *spec.Decoder, n *yaml.Node, path string) Params {
	p := ioParams{Workers: 1, Bytes: 64 << 20}
	workers := spec.Where(spec.ReadInt, func(i int) bool { return i >= 1 && i <= 64 }, "must be an integer from 1 to 64")
	size := spec.Where(spec.ReadByteSize, func(b spec.ByteSize) bool { return b >= 1<<20 }, "must be a size of at least 1MiB")
	d.Mapping(n, path, []spec.Field{
		{Key: "workers", Read: func(n *yaml.Node, p2 string) { spec.Scalar(d, n, p2, workers, &p.Workers) }},
		{Key: "bytes", Read: func(n *yaml.Node, p2 string) { spec.Scalar(d, n, p2, size, &p.Bytes) }},
		{Key: "share", Read: func(n *yaml.Node, p2 string) { spec.Scalar(d, n, p2, spec.ReadBool, &p.Share) }},
	})
	return p
}

func (ioNoise) Inject(ctx context.Context, o *Occurrence) (Observed, error) {
	p := o.Event.Params.(ioParams)
	run, err := runStress(ctx, o, p.Share, []string{"--hdd", fmt.Sprint(p.Workers), "--hdd-bytes", fmt.Sprint(int64(p.Bytes)),
		"--hdd-opts", "sync", "--temp-path", o.env.WorkDir})
	return Observed{Note: fmt.Sprintf("%d workers writing %d bytes each (O_SYNC) in %s; %.2f CPU s in %.2f s",
		p.Workers, p.Bytes, run.where, run.cpuS, run.wall.Seconds())}, err
}

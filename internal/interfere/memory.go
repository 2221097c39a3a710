package interfere

import (
	"context"
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/tenantbench/tenantbench/internal/spec"
)

// memory allocates bytes and keeps touching them (stress-ng --vm): a
// neighbour that takes the page cache's room, or, shared, the target's
// memory limit.
type memory struct{ noise }

func init() { register(memory{}) }

type memoryParams struct {
	shareable
	Bytes spec.ByteSize
}

func (p memoryParams) String() string {
	return fmt.Sprintf("bytes=%d;share=%v", p.Bytes, p.Share)
}

func (memory) Name() string   { return "memory" }
func (memory) Keys() []string { return []string{"bytes", "share"} }

func (memory) Parse(d *spec.Decoder, n *yaml.Node, path string) Params {
	p := memoryParams{}
	size := spec.Where(spec.ReadByteSize, func(b spec.ByteSize) bool { return b >= 1<<20 },
		"must be a size of at least 1MiB (e.g. 512MiB)")
	d.Mapping(n, path, []spec.Field{
		{Key: "bytes", Read: func(n *yaml.Node, p2 string) { spec.Scalar(d, n, p2, size, &p.Bytes) }},
		{Key: "share", Read: func(n *yaml.Node, p2 string) { spec.Scalar(d, n, p2, spec.ReadBool, &p.Share) }},
	})
	if p.Bytes == 0 {
		d.Report(spec.Problem{Path: path + ".bytes", Allowed: "is needed: how much memory the noise allocates and touches (e.g. 512MiB)"})
	}
	return p
}

func (memory) Inject(ctx context.Context, o *Occurrence) (Observed, error) {
	p := o.Event.Params.(memoryParams)
	run, err := runStress(ctx, o, p.Share, []string{"--vm", "1", "--vm-bytes", fmt.Sprintf("%d", p.Bytes), "--vm-keep"})
	return Observed{Note: fmt.Sprintf("%d bytes in %s; %.2f CPU s in %.2f s", p.Bytes, run.where, run.cpuS, run.wall.Seconds())}, err
}

package kubernetes

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
)

// jobManifest is the Job of docs/kubernetes.md.
var jobManifest = filepath.Join("..", "..", "..", "docs", "kubernetes-job.yaml")

// manifestObjects decodes every document of the manifest with client-go's
// scheme, as kubectl apply would take it.
func manifestObjects(t *testing.T) []runtime.Object {
	t.Helper()
	b, err := os.ReadFile(jobManifest)
	if err != nil {
		t.Fatal(err)
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	var out []runtime.Object
	for {
		doc, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		obj, gvk, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
		if err != nil {
			t.Fatalf("a document of %s does not decode: %v\n%s", jobManifest, err, doc)
		}
		t.Logf("%s", gvk.Kind)
		out = append(out, obj)
	}
	return out
}

// TestJobManifest: the documented Job manifest decodes, its Job runs
// tenantbench as the ServiceAccount the Role is bound to, and its Role
// grants exactly the verbs the plan's check asks the cluster for in the
// namespace, with every storage and access (no more, no fewer).
func TestJobManifest(t *testing.T) {
	objs := manifestObjects(t)
	var (
		role    *rbacv1.Role
		binding *rbacv1.RoleBinding
		job     *batchv1.Job
		cluster *rbacv1.ClusterRole
	)
	for _, o := range objs {
		switch v := o.(type) {
		case *rbacv1.Role:
			role = v
		case *rbacv1.RoleBinding:
			binding = v
		case *rbacv1.ClusterRole:
			cluster = v
		case *batchv1.Job:
			job = v
		}
	}
	if role == nil || binding == nil || job == nil || cluster == nil {
		t.Fatalf("the manifest lacks a Role, RoleBinding, ClusterRole or Job: %d objects", len(objs))
	}
	sa := job.Spec.Template.Spec.ServiceAccountName
	if binding.RoleRef.Name != role.Name || len(binding.Subjects) != 1 || binding.Subjects[0].Name != sa || sa == "" {
		t.Errorf("the RoleBinding %+v does not bind Role %s to the Job's ServiceAccount %q", binding, role.Name, sa)
	}
	if c := job.Spec.Template.Spec.Containers; len(c) != 1 || len(c[0].Args) == 0 || c[0].Args[0] != "run" ||
		job.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("the Job's container %+v: want tenantbench run, never restarted", c)
	}
	granted := map[string]bool{}
	for _, r := range role.Rules {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					granted[g+" "+res+" "+v] = true
				}
			}
		}
	}
	asked := map[string]bool{}
	for _, claims := range []bool{false, true} {
		for _, acc := range accesses {
			for _, r := range rightsFor(claims, acc) {
				res := r.Resource
				if r.Subresource != "" {
					res += "/" + r.Subresource
				}
				asked[r.Group+" "+res+" "+r.Verb] = true
			}
		}
	}
	for k := range asked {
		if !granted[k] {
			t.Errorf("the Role does not grant %q, which the plan's check asks for", k)
		}
	}
	for k := range granted {
		if !asked[k] {
			t.Errorf("the Role grants %q, which no run needs", k)
		}
	}
	// The cluster-wide reads: the namespace (plan), nodes (node_selector,
	// spread), the kubelet's statistics (monitor), storage classes.
	var reads []string
	for _, r := range cluster.Rules {
		for _, res := range r.Resources {
			for _, v := range r.Verbs {
				reads = append(reads, res+" "+v)
			}
		}
	}
	for _, want := range []string{"namespaces get", "nodes list", "nodes/proxy get", "storageclasses get", "storageclasses list"} {
		if !slices.Contains(reads, want) {
			t.Errorf("the ClusterRole lacks %q", want)
		}
	}
}

package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	authv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"github.com/tenantbench/tenantbench/internal/provider"
	"github.com/tenantbench/tenantbench/internal/suggest"
)

// goneTimeout bounds the wait for a deleted pod to be gone.
const goneTimeout = 2 * time.Minute

// Stop deletes the instance's objects (by its labels) and waits until
// its pod is gone.
func (Provider) Stop(ctx context.Context, inst *provider.Instance) error {
	ki, ok := inst.Control.(*instance)
	if !ok {
		return fmt.Errorf("instance %s is not a pod of provider kubernetes", inst.Name)
	}
	ki.once.Do(func() { close(ki.stop) })
	ki.ended()
	if err := deleteLabelled(ctx, ki.cs, ki.ns, ki.labels, claims(*ki.spec.Cluster)); err != nil {
		return fmt.Errorf("instance %s: %w", inst.Name, err)
	}
	if ki.spec.Ledger != nil {
		ki.spec.Ledger.Gone(inst.Record())
	}
	return nil
}

// StopRecord deletes what a run's ledger lists in a cluster (`tenantbench
// down`), by its labels: the kubeconfig's variable must be set again in
// this process.
func StopRecord(ctx context.Context, r provider.Record) error {
	if r.Cluster == nil || len(r.Labels) == 0 {
		return fmt.Errorf("record %s names no cluster or labels", r.Name)
	}
	cs, err := client(*r.Cluster)
	if err != nil {
		return fmt.Errorf("%w (to delete what the run created there)", err)
	}
	return deleteLabelled(ctx, cs, r.Cluster.Namespace, r.Labels, claims(*r.Cluster))
}

// claims says the cluster's servers have PersistentVolumeClaims, which
// are then deleted with them (and which a run without them needs no
// right to list).
func claims(c provider.Cluster) bool { return c.StorageClass != "" }

// deleteLabelled deletes the StatefulSets, pods, Secrets, ConfigMaps and
// Services in ns that carry every one of lbls (and the PersistentVolumeClaims, with claims),
// and waits for them to be gone.
func deleteLabelled(ctx context.Context, cs *kubernetes.Clientset, ns string, lbls map[string]string, claims bool) error {
	sel := labels.SelectorFromSet(lbls).String()
	list := metav1.ListOptions{LabelSelector: sel}
	fg := metav1.DeletePropagationForeground
	del := metav1.DeleteOptions{PropagationPolicy: &fg}
	var errs []error
	if err := cs.AppsV1().StatefulSets(ns).DeleteCollection(ctx, del, list); err != nil {
		errs = append(errs, fmt.Errorf("deleting statefulsets %s: %w", sel, err))
	}
	grace := int64(5) // a fast shutdown is enough: the data goes too
	if err := cs.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &grace}, list); err != nil {
		errs = append(errs, fmt.Errorf("deleting pods %s: %w", sel, err))
	}
	if err := cs.CoreV1().Secrets(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, list); err != nil {
		errs = append(errs, fmt.Errorf("deleting secrets %s: %w", sel, err))
	}
	if err := cs.CoreV1().ConfigMaps(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, list); err != nil {
		errs = append(errs, fmt.Errorf("deleting configmaps %s: %w", sel, err))
	}
	// Services one by one: older API servers have no
	// deletecollection for them.
	if svcs, err := cs.CoreV1().Services(ns).List(ctx, list); err != nil {
		errs = append(errs, fmt.Errorf("listing services %s: %w", sel, err))
	} else {
		for _, svc := range svcs.Items {
			if err := cs.CoreV1().Services(ns).Delete(ctx, svc.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("deleting service %s: %w", svc.Name, err))
			}
		}
	}
	if claims {
		if err := cs.CoreV1().PersistentVolumeClaims(ns).DeleteCollection(ctx, metav1.DeleteOptions{}, list); err != nil {
			errs = append(errs, fmt.Errorf("deleting persistentvolumeclaims %s: %w", sel, err))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	wctx, cancel := context.WithTimeout(ctx, goneTimeout)
	defer cancel()
	for {
		n, err := countLabelled(wctx, cs, ns, list, claims)
		if err == nil && n == 0 {
			return nil
		}
		select {
		case <-wctx.Done():
			return fmt.Errorf("objects labelled %s in namespace %s still there after %s (%d left)", sel, ns, goneTimeout, n)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// countLabelled counts the StatefulSets, pods, Secrets, ConfigMaps and
// Services (and with claims the PersistentVolumeClaims) that carry the
// labels.
func countLabelled(ctx context.Context, cs *kubernetes.Clientset, ns string, list metav1.ListOptions, claims bool) (int, error) {
	sts, err := cs.AppsV1().StatefulSets(ns).List(ctx, list)
	if err != nil {
		return -1, err
	}
	pods, err := cs.CoreV1().Pods(ns).List(ctx, list)
	if err != nil {
		return -1, err
	}
	secrets, err := cs.CoreV1().Secrets(ns).List(ctx, list)
	if err != nil {
		return -1, err
	}
	cms, err := cs.CoreV1().ConfigMaps(ns).List(ctx, list)
	if err != nil {
		return -1, err
	}
	svcs, err := cs.CoreV1().Services(ns).List(ctx, list)
	if err != nil {
		return -1, err
	}
	n := len(sts.Items) + len(pods.Items) + len(secrets.Items) + len(cms.Items) + len(svcs.Items)
	if claims {
		pvcs, err := cs.CoreV1().PersistentVolumeClaims(ns).List(ctx, list)
		if err != nil {
			return -1, err
		}
		n += len(pvcs.Items)
	}
	return n, nil
}

// rights are what a run does in its namespace.
var rights = []authv1.ResourceAttributes{
	{Group: "apps", Resource: "statefulsets", Verb: "create"},
	{Group: "apps", Resource: "statefulsets", Verb: "deletecollection"},
	{Group: "apps", Resource: "statefulsets", Verb: "list"},
	{Resource: "pods", Verb: "get"},
	{Resource: "pods", Verb: "list"},
	{Resource: "pods", Verb: "deletecollection"},
	{Resource: "secrets", Verb: "create"},
	{Resource: "secrets", Verb: "deletecollection"},
	{Resource: "secrets", Verb: "list"},
	{Resource: "events", Verb: "list"},
	{Resource: "configmaps", Verb: "create"},
	{Resource: "configmaps", Verb: "deletecollection"},
	{Resource: "configmaps", Verb: "list"},
	{Resource: "services", Verb: "create"},
	{Resource: "services", Verb: "delete"},
	{Resource: "services", Verb: "list"},
}

// claimRights are what a run with PersistentVolumeClaims does with them
// (the StatefulSet's controller creates them).
var claimRights = []authv1.ResourceAttributes{
	{Resource: "persistentvolumeclaims", Verb: "deletecollection"},
	{Resource: "persistentvolumeclaims", Verb: "list"},
}

// checkStorage says what is wrong with sut.kubernetes.storage's class:
// the cluster has none of that name (naming those it has, or saying it
// has none: no provisioner to make the claims' volumes).
func checkStorage(ctx context.Context, cs *kubernetes.Clientset, c provider.Cluster) string {
	if !claims(c) {
		return ""
	}
	_, err := cs.StorageV1().StorageClasses().Get(ctx, c.StorageClass, metav1.GetOptions{})
	if err == nil {
		return ""
	}
	if !apierrors.IsNotFound(err) {
		return fmt.Sprintf("storage class %s: %v", c.StorageClass, err)
	}
	list, lerr := cs.StorageV1().StorageClasses().List(ctx, metav1.ListOptions{})
	var names []string
	if lerr == nil {
		for _, sc := range list.Items {
			names = append(names, sc.Name)
		}
	}
	if lerr == nil && len(names) == 0 {
		return fmt.Sprintf("storage class %s does not exist: the cluster has no storage class (no provisioner to make the claims' volumes); "+
			"remove sut.kubernetes.storage to keep each server's data on an emptyDir", c.StorageClass)
	}
	msg := fmt.Sprintf("storage class %s does not exist in the cluster (its classes: %s)", c.StorageClass, strings.Join(names, ", "))
	if n := suggest.Nearest(c.StorageClass, names); n != "" {
		msg += "; did you mean " + n + "?"
	}
	return msg
}

// rightsFor are what a run does in its namespace: with claims
// (sut.kubernetes.storage) and the access's own. The Role of
// docs/kubernetes-job.yaml grants them (TestJobManifest).
func rightsFor(claims bool, acc access) []authv1.ResourceAttributes {
	need := slices.Clone(rights)
	if claims {
		need = append(need, claimRights...)
	}
	return append(need, acc.rights()...)
}

// checkSpread says the cluster has fewer nodes that may run the servers
// (schedulable, matching node_selector) than the servers that spread
// puts on distinct nodes. A user who may not list nodes is not judged.
func checkSpread(ctx context.Context, cs *kubernetes.Clientset, c provider.Cluster, servers int) string {
	if !c.Spread || servers < 2 {
		return ""
	}
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(c.NodeSelector).String()})
	if err != nil {
		return ""
	}
	n := 0
	for _, node := range nodes.Items {
		if !node.Spec.Unschedulable {
			n++
		}
	}
	if n >= servers {
		return ""
	}
	return fmt.Sprintf("spread: true puts each server of a run on a node of its own: the largest run starts %d servers, which needs %d nodes, "+
		"and the cluster has %d that can run them (schedulable%s); add nodes, use fewer servers, or spread: false",
		servers, servers, n, map[bool]string{true: ", matching node_selector", false: ""}[len(c.NodeSelector) > 0])
}

// checkNodes says the node_selector matches no node: its pods would wait
// to be scheduled forever. A user who may not list nodes is not judged.
func checkNodes(ctx context.Context, cs *kubernetes.Clientset, c provider.Cluster) string {
	if len(c.NodeSelector) == 0 {
		return ""
	}
	sel := labels.SelectorFromSet(c.NodeSelector).String()
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil || len(nodes.Items) > 0 {
		return ""
	}
	return fmt.Sprintf("no node of the cluster carries the labels %s (node_selector): its pods could never be scheduled", sel)
}

// CheckCluster is the plan's check of sut.kubernetes: the variable set,
// the kubeconfig readable, the cluster answering, the namespace there,
// the rights a run needs in it (which verbs on what are missing), and
// with spread, nodes enough for the most servers a run starts.
// "" when all is well.
func CheckCluster(ctx context.Context, c provider.Cluster, servers int) string {
	cs, err := client(c)
	if err != nil {
		return err.Error()
	}
	if _, err := cs.CoreV1().Namespaces().Get(ctx, c.Namespace, metav1.GetOptions{}); err != nil {
		return fmt.Sprintf("namespace %s: %v", c.Namespace, err)
	}
	if msg := checkStorage(ctx, cs, c); msg != "" {
		return msg
	}
	if msg := checkNodes(ctx, cs, c); msg != "" {
		return msg
	}
	if msg := checkSpread(ctx, cs, c, servers); msg != "" {
		return msg
	}
	acc, err := accessOf(c.Access)
	if err != nil {
		return err.Error()
	}
	need := rightsFor(claims(c), acc)
	var missing []string
	for _, r := range need {
		r.Namespace = c.Namespace
		rv := &authv1.SelfSubjectAccessReview{Spec: authv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &r}}
		got, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, rv, metav1.CreateOptions{})
		if err != nil {
			return fmt.Sprintf("cannot ask the cluster for the rights in namespace %s: %v", c.Namespace, err)
		}
		if !got.Status.Allowed {
			res := r.Resource
			if r.Subresource != "" {
				res += "/" + r.Subresource
			}
			missing = append(missing, r.Verb+" "+res)
		}
	}
	if len(missing) > 0 {
		return fmt.Sprintf("the kubeconfig's user may not %v in namespace %s: a run creates and deletes them there", missing, c.Namespace)
	}
	return ""
}

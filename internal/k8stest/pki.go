package k8stest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki makes the cluster's certificates in dir: a CA, the API server's
// and the kubelet's serving certificates, a client certificate per
// component (its name and group are what RBAC authorizes), the service
// account key pair, and a kubeconfig per client. Valid for a day: the
// cluster lives as long as one test package.
func pki(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	caKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	now := time.Now().Add(-time.Hour)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "tenantbench-k8stest-ca"},
		NotBefore: now, NotAfter: now.Add(25 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	ca, _ := x509.ParseCertificate(caDER)
	if err := writePEM(filepath.Join(dir, "ca.crt"), "CERTIFICATE", caDER); err != nil {
		return err
	}
	serial := int64(2)
	sign := func(name, cn string, orgs []string, server bool, dns []string, ips []string) error {
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return err
		}
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn, Organization: orgs},
			NotBefore: now, NotAfter: now.Add(25 * time.Hour), BasicConstraintsValid: true,
			KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment, DNSNames: dns}
		serial++
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
		if server {
			tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		}
		for _, ip := range ips {
			tmpl.IPAddresses = append(tmpl.IPAddresses, net.ParseIP(ip))
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			return err
		}
		if err := writePEM(filepath.Join(dir, name+".crt"), "CERTIFICATE", der); err != nil {
			return err
		}
		return writePEM(filepath.Join(dir, name+".key"), "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key))
	}
	for _, c := range []struct {
		name, cn string
		orgs     []string
		server   bool
		dns, ips []string
	}{
		{"apiserver", "kube-apiserver", nil, true,
			[]string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"},
			[]string{"127.0.0.1", apiServiceIP, NodeIP}},
		{"kubelet-server", NodeName, nil, true, []string{NodeName, "localhost"}, []string{"127.0.0.1", NodeIP}},
		{"admin", "admin", []string{"system:masters"}, false, nil, nil},
		{"controller-manager", "system:kube-controller-manager", nil, false, nil, nil},
		{"scheduler", "system:kube-scheduler", nil, false, nil, nil},
		{"kubelet", "system:node:" + NodeName, []string{"system:nodes"}, false, nil, nil},
		{"apiserver-kubelet-client", "kube-apiserver-kubelet-client", []string{"system:masters"}, false, nil, nil},
	} {
		if err := sign(c.name, c.cn, c.orgs, c.server, c.dns, c.ips); err != nil {
			return fmt.Errorf("certificate %s: %w", c.name, err)
		}
	}
	sa, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	if err := writePEM(filepath.Join(dir, "sa.key"), "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(sa)); err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(&sa.PublicKey)
	if err != nil {
		return err
	}
	if err := writePEM(filepath.Join(dir, "sa.pub"), "PUBLIC KEY", pub); err != nil {
		return err
	}
	for _, u := range []string{"admin", "controller-manager", "scheduler", "kubelet"} {
		kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: k8stest
  cluster: {certificate-authority: %[1]s/ca.crt, server: "https://127.0.0.1:%[3]d"}
users:
- name: %[2]s
  user: {client-certificate: %[1]s/%[2]s.crt, client-key: %[1]s/%[2]s.key}
contexts:
- name: k8stest
  context: {cluster: k8stest, user: %[2]s}
current-context: k8stest
`, dir, u, apiPort)
		if err := os.WriteFile(filepath.Join(dir, u+".kubeconfig"), []byte(kc), 0o600); err != nil {
			return err
		}
	}
	return nil
}

func writePEM(path, kind string, der []byte) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600)
}

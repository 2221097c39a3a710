package kubernetes

import (
	"os"
	"testing"

	"github.com/tenantbench/tenantbench/internal/k8stest"
)

func TestMain(m *testing.M) { os.Exit(k8stest.Run(m)) }

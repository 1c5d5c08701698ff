//go:build tools

// One module for the Kubernetes tools that come from their own repositories: helm and kwok
// (control plane) and crictl (real node) all use k8s.io/api, apimachinery and client-go, which
// one build then compiles once instead of three times at three versions.
package kubetools

import (
	_ "helm.sh/helm/v3/cmd/helm"
	_ "sigs.k8s.io/cri-tools/cmd/crictl"
	_ "sigs.k8s.io/kwok/cmd/kwok"
)

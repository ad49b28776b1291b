//go:build tools

// Package kubecheck pins the kube-apiserver that `make kube-check` builds
// (go build k8s.io/kubernetes/cmd/kube-apiserver in this module) to check
// deploy/'s manifests against a real API server.
package kubecheck

import _ "k8s.io/kubernetes/cmd/kube-apiserver"

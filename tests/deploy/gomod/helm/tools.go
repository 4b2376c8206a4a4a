//go:build tools

// Package tools pins helm's command so `go build helm.sh/helm/v3/cmd/helm` resolves here.
package tools

import _ "helm.sh/helm/v3/cmd/helm"

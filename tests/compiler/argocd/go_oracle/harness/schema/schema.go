// Package schema stands in for k8s.io/apimachinery/pkg/runtime/schema.
package schema

type GroupKind struct {
	Group string
	Kind  string
}

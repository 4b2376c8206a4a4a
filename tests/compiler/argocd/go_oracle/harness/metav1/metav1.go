// Package metav1 stands in for k8s.io/apimachinery/pkg/apis/meta/v1: only the fields the
// extracted Argo CD code reads.
package metav1

type GroupKind struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
}

type ObjectMeta struct {
	Name string `json:"name,omitempty"`
}

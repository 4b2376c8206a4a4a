// Package resource stands in for k8s.io/apimachinery/pkg/api/resource.
package resource

type Quantity struct{ V int64 }

func (q Quantity) Value() int64 { return q.V }

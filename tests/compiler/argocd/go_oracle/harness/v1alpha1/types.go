// Minimal local definitions of the Argo CD v1alpha1 types the extracted code uses: the same
// field names and types (only the fields read), JSON names as in Argo CD.
package v1alpha1

import "harness/metav1"

type AppProject struct {
	metav1.ObjectMeta `json:"metadata"`
	Spec              AppProjectSpec `json:"spec"`
}

type AppProjectSpec struct {
	SourceRepos                     []string                         `json:"sourceRepos,omitempty"`
	Destinations                    []ApplicationDestination         `json:"destinations,omitempty"`
	ClusterResourceWhitelist        []ClusterResourceRestrictionItem `json:"clusterResourceWhitelist,omitempty"`
	NamespaceResourceBlacklist      []metav1.GroupKind               `json:"namespaceResourceBlacklist,omitempty"`
	NamespaceResourceWhitelist      []metav1.GroupKind               `json:"namespaceResourceWhitelist,omitempty"`
	ClusterResourceBlacklist        []ClusterResourceRestrictionItem `json:"clusterResourceBlacklist,omitempty"`
	PermitOnlyProjectScopedClusters bool                             `json:"permitOnlyProjectScopedClusters,omitempty"`
}

type ApplicationDestination struct {
	Server    string `json:"server,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
}

type ApplicationSource struct {
	RepoURL string `json:"repoURL"`
}

type ClusterResourceRestrictionItem struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
	Name  string `json:"name,omitempty"`
}

type Cluster struct {
	Server string `json:"server"`
	Name   string `json:"name"`
}

// Command karmada answers with Karmada's own code (github.com/karmada-io/karmada v1.18.2):
// the override manager (pkg/util/overridemanager, ApplyOverridePolicies over a fake client
// holding the policies and the member cluster, as its own tests build it), the image parser
// (pkg/util/imageparser) and cluster affinity matching (pkg/util.ClusterMatches), each
// cluster first mutated as Karmada's webhook stores it (pkg/apis/cluster/mutation).
//
// One JSON request a line on stdin, one JSON answer a line on stdout:
//
//	{"op": "override", "object": OBJ, "policies": [POLICY...], "cluster": CLUSTER}
//	  -> {"object": OBJ, "applied": [NAME...]} or {"error": "..."}
//	{"op": "image", "image": "..."}
//	  -> {"hostname", "repository", "tag", "digest", "string"} or {"error": "..."}
//	{"op": "matches", "cluster": CLUSTER, "affinity": AFFINITY} -> {"match": bool}
//	{"op": "divide", "candidates": [{"cluster": CLUSTER, "score": N, "available": N}...],
//	 "replicas": N, "placement": PLACEMENT, "previous": [{"name", "replicas"}...], "uid": "...",
//	 "requirements": bool}
//	  -> {"clusters": [{"name", "replicas"}...]} or {"error": "..."}
//
// divide is the scheduler's step after filtering and scoring, as pkg/scheduler/core runs it:
// GroupClustersWithScore (the estimators' answer is each candidate's "available"; MaxInt32,
// no estimator's bound, becomes the replicas, and 0 replicas are not estimated, as
// calAvailableReplicas makes them),
// SelectBestClusters, then AssignReplicas, over a binding with these replicas, the placement as
// Karmada's webhook and the CRD's defaults store it, the previous result as spec.clusters and
// the template UID (which breaks Webster's ties: no randomness left).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	clusterapis "github.com/karmada-io/karmada/pkg/apis/cluster"
	"github.com/karmada-io/karmada/pkg/apis/cluster/mutation"
	clusterv1alpha1 "github.com/karmada-io/karmada/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/karmada/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha2"
	"github.com/karmada-io/karmada/pkg/scheduler/core"
	"github.com/karmada-io/karmada/pkg/scheduler/core/spreadconstraint"
	"github.com/karmada-io/karmada/pkg/scheduler/framework"
	"github.com/karmada-io/karmada/pkg/util"
	"github.com/karmada-io/karmada/pkg/util/gclient"
	"github.com/karmada-io/karmada/pkg/util/helper"
	"github.com/karmada-io/karmada/pkg/util/imageparser"
	"github.com/karmada-io/karmada/pkg/util/overridemanager"
)

type request struct {
	Op       string                         `json:"op"`
	Object   json.RawMessage                `json:"object"`
	Policies []json.RawMessage              `json:"policies"`
	Cluster  clusterv1alpha1.Cluster        `json:"cluster"`
	Affinity policyv1alpha1.ClusterAffinity `json:"affinity"`
	Image    string                         `json:"image"`

	Candidates []candidate                  `json:"candidates"`
	Replicas   int32                        `json:"replicas"`
	Placement  json.RawMessage              `json:"placement"`
	Previous   []workv1alpha2.TargetCluster `json:"previous"`
	UID        types.UID                    `json:"uid"`
	// Requirements: the template's pods request resources (spec.replicaRequirements set),
	// which makes a template of 0 replicas a workload still.
	Requirements bool `json:"requirements"`
}

type candidate struct {
	Cluster   clusterv1alpha1.Cluster `json:"cluster"`
	Score     int64                   `json:"score"`
	Available int32                   `json:"available"`
}

type answer map[string]any

// asStored is a policy as the API server stores a custom resource: decoded into unstructured
// values (integers int64, other numbers float64) and encoded again.
func asStored(raw json.RawMessage) (json.RawMessage, error) {
	var generic map[string]any
	if err := utiljson.Unmarshal(raw, &generic); err != nil {
		return nil, err
	}
	return json.Marshal(generic)
}

func override(r request) answer {
	objects := []client.Object{r.Cluster.DeepCopy()}
	for _, raw := range r.Policies {
		raw, err := asStored(raw)
		if err != nil {
			return answer{"error": "bad policy: " + err.Error()}
		}
		var kind struct{ Kind string }
		if err := json.Unmarshal(raw, &kind); err != nil {
			return answer{"error": "bad policy: " + err.Error()}
		}
		var policy client.Object = &policyv1alpha1.OverridePolicy{}
		if kind.Kind == "ClusterOverridePolicy" {
			policy = &policyv1alpha1.ClusterOverridePolicy{}
		}
		if err := json.Unmarshal(raw, policy); err != nil {
			return answer{"error": "bad policy: " + err.Error()}
		}
		objects = append(objects, policy)
	}
	c := fake.NewClientBuilder().WithScheme(gclient.NewSchema()).WithObjects(objects...).Build()
	manager := overridemanager.New(c, record.NewFakeRecorder(1024))
	obj := &unstructured.Unstructured{}
	if err := utiljson.Unmarshal(r.Object, &obj.Object); err != nil {
		return answer{"error": "bad object: " + err.Error()}
	}
	clusterApplied, namespacedApplied, err := manager.ApplyOverridePolicies(obj, r.Cluster.Name)
	if err != nil {
		return answer{"error": err.Error()}
	}
	applied := []string{}
	for _, group := range []*overridemanager.AppliedOverrides{clusterApplied, namespacedApplied} {
		if group == nil {
			continue
		}
		for _, item := range group.AppliedItems {
			applied = append(applied, item.PolicyName)
		}
	}
	return answer{"object": obj.Object, "applied": applied}
}

func image(r request) answer {
	c, err := imageparser.Parse(r.Image)
	if err != nil {
		return answer{"error": err.Error()}
	}
	return answer{"hostname": c.Hostname(), "repository": c.Repository(), "tag": c.Tag(),
		"digest": c.Digest(), "string": c.String()}
}

// placement is the placement as stored: decoded as the API server keeps a custom resource, the
// CRD's default replicaSchedulingType (Divided) and the mutating webhook's defaults applied.
func placement(raw json.RawMessage) (*policyv1alpha1.Placement, error) {
	out := &policyv1alpha1.Placement{}
	if len(raw) == 0 || string(raw) == "null" {
		return out, nil
	}
	raw, err := asStored(raw)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return nil, err
	}
	if out.ReplicaScheduling != nil && out.ReplicaScheduling.ReplicaSchedulingType == "" {
		out.ReplicaScheduling.ReplicaSchedulingType = policyv1alpha1.ReplicaSchedulingTypeDivided
	}
	helper.SetDefaultSpreadConstraints(out.SpreadConstraints)
	helper.SetReplicaDivisionPreferenceWeighted(out)
	return out, nil
}

func divide(r request) answer {
	p, err := placement(r.Placement)
	if err != nil {
		return answer{"error": "bad placement: " + err.Error()}
	}
	scores := framework.ClusterScoreList{}
	available := map[string]int32{}
	for _, c := range r.Candidates {
		cluster, err := stored(c.Cluster)
		if err != nil {
			return answer{"error": "bad cluster: " + err.Error()}
		}
		scores = append(scores, framework.ClusterScore{Cluster: &cluster, Score: c.Score})
		available[cluster.Name] = c.Available
	}
	estimate := func(clusters []*clusterv1alpha1.Cluster, _ *workv1alpha2.ResourceBindingSpec) []workv1alpha2.TargetCluster {
		out := make([]workv1alpha2.TargetCluster, len(clusters))
		for i, c := range clusters { // as calAvailableReplicas makes them
			out[i] = workv1alpha2.TargetCluster{Name: c.Name, Replicas: available[c.Name]}
			if r.Replicas == 0 { // not estimated: no bound
				out[i].Replicas = math.MaxInt32
			} else if out[i].Replicas == math.MaxInt32 {
				out[i].Replicas = r.Replicas
			}
		}
		return out
	}
	spec := &workv1alpha2.ResourceBindingSpec{
		Resource:  workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "n", Name: "w", UID: r.UID},
		Replicas:  r.Replicas,
		Placement: p,
		Clusters:  r.Previous,
	}
	if r.Requirements {
		spec.ReplicaRequirements = &workv1alpha2.ReplicaRequirements{}
	}
	status := &workv1alpha2.ResourceBindingStatus{}
	groups := spreadconstraint.GroupClustersWithScore(scores, p, spec, status, estimate)
	selected, err := spreadconstraint.SelectBestClusters(p, groups, spec.Replicas)
	if err != nil {
		return answer{"error": "select: " + err.Error()}
	}
	targets, err := core.AssignReplicas(selected, spec, status)
	if err != nil {
		return answer{"error": "assign: " + err.Error()}
	}
	if targets == nil {
		targets = []workv1alpha2.TargetCluster{}
	}
	return answer{"clusters": targets}
}

// stored is the cluster as the API server keeps it: Karmada's mutating webhook has run
// (MutateCluster: a lone spec.zone moves into spec.zones).
func stored(c clusterv1alpha1.Cluster) (clusterv1alpha1.Cluster, error) {
	var internal clusterapis.Cluster
	if err := clusterv1alpha1.Convert_v1alpha1_Cluster_To_cluster_Cluster(&c, &internal, nil); err != nil {
		return c, err
	}
	mutation.MutateCluster(&internal)
	var out clusterv1alpha1.Cluster
	err := clusterv1alpha1.Convert_cluster_Cluster_To_v1alpha1_Cluster(&internal, &out, nil)
	return out, err
}

func handle(r request) (a answer) {
	defer func() {
		if p := recover(); p != nil {
			a = answer{"panic": fmt.Sprint(p)}
		}
	}()
	if r.Op == "divide" {
		return divide(r)
	}
	var err error
	if r.Cluster, err = stored(r.Cluster); err != nil {
		return answer{"error": "bad cluster: " + err.Error()}
	}
	switch r.Op {
	case "override":
		return override(r)
	case "image":
		return image(r)
	case "matches":
		return answer{"match": util.ClusterMatches(&r.Cluster, r.Affinity)}
	}
	return answer{"error": "unknown op " + r.Op}
}

func main() {
	klog.SetOutput(os.Stderr)
	klog.LogToStderr(false)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var r request
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			fmt.Fprintln(os.Stderr, "bad request:", err)
			os.Exit(2)
		}
		out.Encode(handle(r))
	}
}

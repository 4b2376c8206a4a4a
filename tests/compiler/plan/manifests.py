"""Hand-written manifests the plan tests put into a synced tree (placeholders in capitals)."""

from __future__ import annotations

MIRROR = """\
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterOverridePolicy
metadata: {name: eu-mirror}
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
      labelSelector: {matchLabels: {fedgate.dev/tenant: team-a}}
  overrideRules:
    - targetCluster: {labelSelector: {matchLabels: {residency: eu}}}
      overriders:
        imageOverrider:
          - {component: Registry, operator: replace, value: REGISTRY}
"""
"""team-a's Deployments take their images from REGISTRY in the residency eu clusters."""

BANNER = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: banner, namespace: platform-demo}
data: {text: hello}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: banner, namespace: platform-demo}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: banner}]
  placement: {clusterAffinity: {clusterNames: [CLUSTERS]}}
"""
"""A ConfigMap template and its PropagationPolicy to CLUSTERS."""

HUB = """\
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: status-page-hub, namespace: platform-demo}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: status-page}]
  overrideRules:
    - targetCluster: {clusterNames: [cluster-b]}
      overriders:
        imageOverrider:
          - {component: Registry, operator: replace, value: docker.io}
"""
"""status-page's cluster-b copy from docker.io, a registry team-a may not use."""

"""What the live-index tests make by hand in team-a's namespace (platform-demo), never in Git:
a Deployment, and PropagationPolicies for it. Shared by the unit, server and e2e tests."""

from __future__ import annotations

from typing import Any

NAMESPACE = "platform-demo"


def hand_made(name: str) -> dict[str, Any]:
    """A Deployment team-a may create: its registry, a tag, requests within its quota."""
    labels = {"app.kubernetes.io/name": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": labels},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "containers": [
                        {
                            "name": "app",
                            "image": "registry.example.com/platform/demo-http:1.0",
                            "resources": {
                                "requests": {"cpu": "100m", "memory": "64Mi"},
                                "limits": {"cpu": "200m", "memory": "128Mi"},
                            },
                        }
                    ]
                },
            },
        },
    }


def policy(name: str, target: str) -> dict[str, Any]:
    """A PropagationPolicy of team-a sending the Deployment ``target`` to cluster-a."""
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": target}],
            "placement": {"clusterAffinity": {"clusterNames": ["cluster-a"]}},
        },
    }

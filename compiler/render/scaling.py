"""Step 2: who writes the replica count. A FederatedHPA, or member HPAs plus the retain label."""

from __future__ import annotations

from typing import Any

from compiler.render import workload
from compiler.render.context import KARMADA_CLAIM_FIELDS, RETAIN_REPLICAS_LABEL, Rendering
from webhook.base.ledger import pointer

FEDERATED_HPA = "FederatedHPA"
MEMBER_HPA = "HorizontalPodAutoscaler"
REPLICAS = pointer("spec", "replicas")
RETAIN_LABEL = pointer("metadata", "labels", RETAIN_REPLICAS_LABEL)


def _hpa_spec(r: Rendering) -> dict[str, Any]:
    scaling = r.app.autoscaling
    return {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": workload.KIND, "name": r.app.name},
        "minReplicas": scaling.min_replicas,
        "maxReplicas": scaling.max_replicas,
        "metrics": [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "target": {
                        "type": "Utilization",
                        "averageUtilization": scaling.target_cpu_utilization,
                    },
                },
            }
        ],
    }


def render(r: Rendering) -> None:
    owner = r.app.autoscaling.owner
    if owner == "git":
        return
    r.claim(workload.KIND, REPLICAS, owner)
    if owner == "federated-hpa":
        r.add(
            FEDERATED_HPA,
            {
                "apiVersion": "autoscaling.karmada.io/v1alpha1",
                "kind": FEDERATED_HPA,
                "metadata": r.metadata(),
                "spec": _hpa_spec(r),
            },
        )
        return
    # The label is the member HPAs' too: Karmada's hpaScaleTargetMarker removes it from the
    # target when the HPA is deleted (a namespace's deletion deletes the HPA first) and adds it
    # back when an HPA targets it again; its deploymentReplicasSyncer writes the replicas.
    r.claim(workload.KIND, RETAIN_LABEL, owner)
    deployment = r.objects[workload.KIND]
    labels = deployment["metadata"]["labels"]
    labels[RETAIN_REPLICAS_LABEL] = "true"
    deployment["metadata"]["labels"] = dict(sorted(labels.items()))
    r.add(
        MEMBER_HPA,
        {
            "apiVersion": "autoscaling/v2",
            "kind": MEMBER_HPA,
            "metadata": r.metadata(),
            "spec": _hpa_spec(r),
        },
        *((p, "karmada") for p in KARMADA_CLAIM_FIELDS),
    )

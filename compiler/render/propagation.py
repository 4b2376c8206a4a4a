"""Step 3: the PropagationPolicy: explicit selectors, cluster affinity, division and failover.

Every value Karmada v1.18 would default (CRD defaults and its mutating webhook) is emitted, so
what Argo CD syncs is what the API server stores and a later diff shows no drift.
"""

from __future__ import annotations

from typing import Any

from compiler.render import scaling, workload
from compiler.render.context import Rendering
from webhook.base.ledger import pointer

KIND = "PropagationPolicy"
PERMANENT_ID = pointer("metadata", "labels", "propagationpolicy.karmada.io/permanent-id")


def _selectors(r: Rendering) -> list[dict[str, str]]:
    selectors = [r.selector("apps/v1", workload.KIND)]
    if scaling.MEMBER_HPA in r.objects:
        selectors.append(r.selector("autoscaling/v2", scaling.MEMBER_HPA))
    selectors += [r.selector("v1", "ConfigMap", name) for name in r.app.config_maps]
    selectors += [r.selector("v1", "Secret", name) for name in r.app.secrets]
    return selectors


def _replica_scheduling(r: Rendering) -> dict[str, Any]:
    placement = r.app.placement
    if placement.replicas == "Duplicated":
        return {"replicaSchedulingType": "Duplicated"}
    scheduling: dict[str, Any] = {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
    }
    if placement.weights:
        scheduling["weightPreference"] = {
            "staticWeightList": [
                {"targetCluster": {"clusterNames": [cluster]}, "weight": weight}
                for cluster, weight in sorted(placement.weights.items())
            ]
        }
    return scheduling


def _failover(r: Rendering) -> dict[str, Any] | None:
    failover = r.app.failover
    if failover is None:
        return None
    application: dict[str, Any] = {
        "decisionConditions": {"tolerationSeconds": failover.toleration_seconds},
        "purgeMode": failover.purge_mode,
    }
    if failover.grace_period_seconds is not None:
        application["gracePeriodSeconds"] = failover.grace_period_seconds
    rendered: dict[str, Any] = {"application": application}
    if failover.purge_mode == "Directly":
        # A cluster failure reads failover.cluster, not failover.application: without it the
        # taint manager purges Gracefully (v1.18's default) and a stateful app runs twice.
        # Its purgeMode is Directly or Gracefully only, so the other modes keep the default.
        rendered["cluster"] = {"purgeMode": "Directly"}
    return rendered


def render(r: Rendering) -> None:
    spec: dict[str, Any] = {"resourceSelectors": _selectors(r)}
    failover = _failover(r)
    if failover is not None:
        spec["propagateDeps"] = True  # Karmada's webhook requires it with application failover
    spec["placement"] = {
        "clusterAffinity": r.app.placement.target.affinity(),
        "replicaScheduling": _replica_scheduling(r),
    }
    if failover is not None:
        spec["failover"] = failover
    spec.update(
        {
            "conflictResolution": "Abort",
            "preemption": "Never",
            "priority": 0,
            "schedulerName": "default-scheduler",
        }
    )
    r.add(
        KIND,
        {
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": KIND,
            "metadata": r.metadata(),
            "spec": spec,
        },
        (PERMANENT_ID, "karmada"),
    )

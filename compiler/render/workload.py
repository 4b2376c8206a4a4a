"""Step 1: the Deployment resource template."""

from __future__ import annotations

from typing import Any

from compiler.render.context import KARMADA_CLAIM_FIELDS, NAME_LABEL, Rendering

KIND = "Deployment"


def render(r: Rendering) -> None:
    app = r.app
    container: dict[str, Any] = {"name": app.name, "image": app.image}
    if app.ports:
        container["ports"] = [{"containerPort": port} for port in app.ports]
    if app.env:
        container["env"] = [{"name": k, "value": v} for k, v in app.env.items()]
    env_from = [{"configMapRef": {"name": n}} for n in app.config_maps]
    env_from += [{"secretRef": {"name": n}} for n in app.secrets]
    if env_from:
        container["envFrom"] = env_from
    resources = {
        key: dict(values)
        for key, values in (("requests", app.resources.requests), ("limits", app.resources.limits))
        if values
    }
    if resources:
        container["resources"] = resources
    if app.readiness_probe is not None:
        container["readinessProbe"] = dict(app.readiness_probe)
    if app.liveness_probe is not None:
        container["livenessProbe"] = dict(app.liveness_probe)
    spec: dict[str, Any] = {}
    if app.replicas is not None:
        spec["replicas"] = app.replicas
    spec["selector"] = {"matchLabels": {NAME_LABEL: app.name}}
    pod_labels = dict(sorted({**app.labels, NAME_LABEL: app.name}.items()))
    spec["template"] = {"metadata": {"labels": pod_labels}, "spec": {"containers": [container]}}
    metadata = r.metadata(extra_labels=dict(app.labels))
    r.add(
        KIND,
        {"apiVersion": "apps/v1", "kind": KIND, "metadata": metadata, "spec": spec},
        *((p, "karmada") for p in KARMADA_CLAIM_FIELDS),
    )

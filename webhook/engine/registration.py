"""What reaches the webhook, and through which of its two entries.

The webhook is registered twice on the Karmada API server
(``deploy/karmada/validating-webhook.yaml``):

- ``validate.fedgate.dev``: the kinds below (``WEBHOOK_KINDS``), every write, judged whole;
- ``conflict-resolution.fedgate.dev``: every other namespaced kind, CREATE and UPDATE, sent only
  when the object (or the object as it was) carries ``work.karmada.io/conflict-resolution``.
  Karmada's binding controller prefers that annotation to the policy's ``conflictResolution``
  for a template of any kind (a Secret, a Service, a NetworkPolicy), so a tenant's
  ``overwrite`` there takes over a member's own object of the same name.

A kind outside ``WEBHOOK_KINDS`` therefore reaches the webhook only for the annotation, and is
judged on it alone (``ANNOTATION_RULES``): fedgate knows nothing else of the kind, and a
tenant's write that merely carries the annotation with a value it may set (``abort``, or none
left: removing it) must pass. ``fedgate check`` and ``fedgate plan`` judge Git's objects of
those kinds whole, as before: only the webhook point is narrowed.
"""

from __future__ import annotations

from webhook.engine.admissible import CLUSTER_SCOPED, NAMESPACED
from webhook.engine.enforcement import Point
from webhook.engine.request import AdmissionRequest

JUDGED_IN_GIT_ONLY = frozenset(
    {("", "ConfigMap"), ("", "Secret"), ("", "PersistentVolumeClaim"), ("", "Namespace")}
)
"""Kinds fedgate judges as Git writes them (``fedgate check``, ``fedgate plan``) that the first
entry does not register: at the webhook they arrive only for the annotation."""

WEBHOOK_KINDS = (NAMESPACED | CLUSTER_SCOPED) - JUDGED_IN_GIT_ONLY
"""The kinds ``validate.fedgate.dev`` is registered for (``tests/deploy/test_manifests.py``
holds the manifest to this list): every kind a tenant can run code or move data with, and
``autoscaling/Scale``, what a workload's scale subresource is sent as."""

ANNOTATION_RULES = frozenset({"tenancy.conflict-overwrite"})
"""The rules that judge a kind the webhook receives only for its conflict-resolution annotation."""


def annotation_only(request: AdmissionRequest, point: Point | None) -> bool:
    """Whether this request reached the webhook only through the annotation entry."""
    return point == "webhook" and (request.kind.group, request.kind.kind) not in WEBHOOK_KINDS

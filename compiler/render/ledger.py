"""Last step: write each object's claims into its ``fedgate.dev/ownership`` annotation.

The OverridePolicy also carries the ledger of the Deployment it selects
(``fedgate.dev/target-ownership``), so the rule engine can tell whether an override writes a
field that someone other than git owns, from the OverridePolicy alone.
"""

from __future__ import annotations

from compiler.render import overrides, workload
from compiler.render.context import Rendering
from webhook.base.ledger import ANNOTATION, TARGET_ANNOTATION, encode


def render(r: Rendering) -> None:
    for kind, obj in r.objects.items():
        annotations = {ANNOTATION: encode(r.claims[kind])}
        if kind == overrides.KIND:
            annotations[TARGET_ANNOTATION] = encode(r.claims[workload.KIND])
        obj["metadata"]["annotations"] = annotations

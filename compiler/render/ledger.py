"""Last step: write each object's claims into its ``fedgate.dev/ownership`` annotation."""

from __future__ import annotations

from compiler.render.context import Rendering
from webhook.ledger import ANNOTATION, encode


def render(r: Rendering) -> None:
    for kind, obj in r.objects.items():
        obj["metadata"]["annotations"] = {ANNOTATION: encode(r.claims[kind])}

"""The render pipeline: the steps in order, and the file each object is written to."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from compiler.render import ledger, overrides, propagation, scaling, workload
from compiler.render.context import Rendering
from compiler.spec.model import AppSpec
from webhook.bundle.model import Bundle

STEPS: tuple[Callable[[Rendering], None], ...] = (
    workload.render,
    scaling.render,
    propagation.render,
    overrides.render,
    ledger.render,
)


def object_path(namespace: str, app: str, kind: str) -> str:
    """The file (relative to the output directory) an app's object of ``kind`` is written to."""
    return f"{namespace}/{app}/{kind.lower()}.yaml"


@dataclass(frozen=True)
class RenderedApp:
    """One app's objects (in file order) with their ledgers."""

    app: AppSpec
    candidates: tuple[str, ...]
    objects: tuple[dict[str, Any], ...]
    ledgers: tuple[dict[str, str], ...]

    def files(self) -> dict[str, dict[str, Any]]:
        """Path (relative to the output directory) -> object."""
        app = self.app
        return {object_path(app.namespace, app.name, obj["kind"]): obj for obj in self.objects}


def render_app(app: AppSpec, bundle: Bundle, candidates: tuple[str, ...]) -> RenderedApp:
    """Run every step on ``app``; ``candidates`` are the clusters its placement selects."""
    rendering = Rendering(app=app, bundle=bundle, candidates=candidates)
    for step in STEPS:
        step(rendering)
    return RenderedApp(
        app=app,
        candidates=candidates,
        objects=tuple(rendering.objects.values()),
        ledgers=tuple(rendering.claims.values()),
    )

"""What the checks across apps and the Argo CD render need of one compiled app.

Small, serializable, and all a cached app contributes to a compile: an app whose spec file did
not change is not parsed again, its summary stands in for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import jsonpointer

from compiler.render.pipeline import RenderedApp
from webhook.base.errors import Finding
from webhook.base.quantity import parse_quantity
from webhook.base.yamlsource import Path, render_path

Owned = tuple[str, str, str, tuple[str, ...]]
"""(apiVersion, kind, name, the pointers of that object git does not own, but status and what
git renders): what Argo CD ignores."""
_ABSENT = object()


def _ignored(obj: Mapping[str, Any], ledger: Mapping[str, str]) -> tuple[str, ...]:
    """The pointers of ``obj`` its ledger gives to an owner other than git, but ``/status``
    (Argo CD ignores it anyway) and those git renders a value for (a member-hpa app's retain
    label: Argo CD applies it, and the webhook lets git set it to that value, never another)."""
    return tuple(
        sorted(
            p
            for p, owner in ledger.items()
            if owner != "git"
            and p
            and not p.startswith("/status")
            and jsonpointer.resolve_pointer(obj, p, _ABSENT) is _ABSENT
        )
    )


@dataclass(frozen=True)
class AppSummary:
    """What the checks across files and plan need of a compiled app (kept in the compile cache)."""

    namespace: str
    name: str
    tenant: str
    file: str
    clusters: tuple[str, ...]
    paths: tuple[str, ...]
    config_maps: tuple[str, ...] = ()
    secrets: tuple[str, ...] = ()
    billed: Mapping[str, Fraction] = field(default_factory=dict)
    owned: tuple[Owned, ...] = ()
    lines: Mapping[str, int] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str]:
        return (self.namespace, self.name)

    def finding(self, path: Path, message: str) -> Finding:
        where = render_path(path)
        return Finding(self.file, self.lines.get(where, self.lines.get("", 0)), where, message)

    def as_json(self) -> dict[str, Any]:
        return {
            "namespace": self.namespace,
            "name": self.name,
            "tenant": self.tenant,
            "file": self.file,
            "clusters": list(self.clusters),
            "paths": list(self.paths),
            "configMaps": list(self.config_maps),
            "secrets": list(self.secrets),
            "billed": {k: str(v) for k, v in self.billed.items()},
            "owned": [[a, k, n, list(p)] for a, k, n, p in self.owned],
            "lines": dict(self.lines),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AppSummary:
        return cls(
            namespace=data["namespace"],
            name=data["name"],
            tenant=data["tenant"],
            file=data["file"],
            clusters=tuple(data["clusters"]),
            paths=tuple(data["paths"]),
            config_maps=tuple(data["configMaps"]),
            secrets=tuple(data["secrets"]),
            billed={k: read_fraction(v) for k, v in data["billed"].items()},
            owned=tuple((a, k, n, tuple(p)) for a, k, n, p in data["owned"]),
            lines=dict(data["lines"]),
        )


def read_fraction(text: str) -> Fraction:
    """``Fraction(text)`` for what ``str(Fraction)`` writes (``"n"`` or ``"n/d"``) at a
    fifth of the cost (Fraction parses strings with a regular expression; a warm check reads
    two per app); anything else goes to ``Fraction`` itself."""
    numerator, slash, denominator = text.partition("/")
    try:
        if slash:
            return Fraction(int(numerator), int(denominator))
        return Fraction(int(numerator))
    except (ValueError, ZeroDivisionError):
        return Fraction(text)


def summarize(rendered: RenderedApp, billed_replicas: int) -> AppSummary:
    app = rendered.app
    assert app.origin is not None
    watched: list[Path] = [(), ("metadata", "name"), ("metadata", "namespace")]
    watched += [("spec", "autoscaling", "owner")]
    watched += [("spec", "envFrom", "configMaps", i) for i in range(len(app.config_maps))]
    watched += [("spec", "envFrom", "secrets", i) for i in range(len(app.secrets))]
    watched += [("spec", "resources", "requests", r) for r in ("cpu", "memory")]
    billed = {
        resource: parse_quantity(app.resources.requests[resource]) * billed_replicas
        for resource in ("cpu", "memory")
        if resource in app.resources.requests
    }
    owned = tuple(
        (
            obj["apiVersion"],
            obj["kind"],
            obj["metadata"]["name"],
            _ignored(obj, ledger),
        )
        for obj, ledger in zip(rendered.objects, rendered.ledgers, strict=True)
    )
    return AppSummary(
        namespace=app.namespace,
        name=app.name,
        tenant=app.tenant,
        file=app.origin.file,
        clusters=rendered.candidates,
        paths=tuple(sorted(rendered.files())),
        config_maps=app.config_maps,
        secrets=app.secrets,
        billed=billed,
        owned=owned,
        lines={render_path(p): app.origin.line(p) for p in watched},
    )

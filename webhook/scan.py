"""What the current bundle says of objects that already exist: the background audit.

A rule change is asked "what would now be denied?" of the live objects: each object is judged
as its next write by Argo CD would be, an UPDATE from the ``git`` writer's identity rewriting
the object as it stands (``oldObject`` and ``object`` alike, server fields and status as the
API server would carry them). Ownership rules therefore see no field change and stay quiet;
content rules (images, registries, replicas, placement, CEL) judge the object as it is.

Pure: objects and a bundle in, a :class:`Scan` out (``fedgate audit`` reads files or the API
server; ``serve`` may run it periodically). An object that cannot be made into a request (no
kind, no name) is listed as unreadable with the reason, never skipped silently.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from webhook.base.errors import RequestError
from webhook.bundle.model import Bundle
from webhook.engine.decision import ExceptionUse, Violation
from webhook.engine.review import review
from webhook.engine.synthesize import sync_request

PLATFORM = "(platform)"
"""The tenant column of an object in no tenant's namespace (cluster-scoped, or the platform's)."""


@dataclass(frozen=True, order=True)
class ObjectRef:
    """Which object, as a PolicyReport's ``resources`` entry names it."""

    namespace: str
    kind: str
    name: str
    api_version: str = ""
    uid: str = ""

    def __str__(self) -> str:
        return "/".join(p for p in (self.namespace, self.kind, self.name) if p)

    def as_json(self) -> dict[str, str]:
        found = {"apiVersion": self.api_version, "kind": self.kind, "name": self.name}
        if self.namespace:
            found["namespace"] = self.namespace
        if self.uid:
            found["uid"] = self.uid
        return found


@dataclass(frozen=True, order=True)
class Finding:
    """One rule's objection to one live object."""

    ref: ObjectRef
    violation: Violation
    tenant: str = PLATFORM

    @property
    def result(self) -> str:
        """The PolicyReport result: ``error`` (could not be judged: denied, fail closed),
        ``warn`` (a rule under action warn), else ``fail`` (deny, or audit: not enforced)."""
        if self.violation.status == "error":
            return "error"
        return "warn" if self.violation.action == "warn" else "fail"

    def as_json(self) -> dict[str, Any]:
        return {
            "object": self.ref.as_json(),
            "tenant": self.tenant,
            "result": self.result,
            **self.violation.as_json(),
        }


@dataclass(frozen=True, order=True)
class Lifted:
    """A rule's objection to a live object that an exception lifts: what the exception lets
    through right now."""

    ref: ObjectRef
    use: ExceptionUse
    tenant: str = PLATFORM

    def as_json(self) -> dict[str, Any]:
        return {"object": self.ref.as_json(), "tenant": self.tenant, **self.use.as_json()}


@dataclass(frozen=True)
class Scan:
    """Every object judged: the findings, the objects without any, the unreadable ones."""

    findings: tuple[Finding, ...]
    clean: tuple[ObjectRef, ...]
    unreadable: tuple[tuple[str, str], ...] = ()
    """(where, why) of each input that is no object the engine can judge."""
    lifted: tuple[Lifted, ...] = ()
    """The objections exceptions lifted (those objects count as clean when nothing else is
    found): what each exception costs."""

    @property
    def objects(self) -> int:
        return len(self.clean) + len({f.ref for f in self.findings})

    @property
    def denied(self) -> tuple[ObjectRef, ...]:
        """The objects whose next write would be refused, in order."""
        return tuple(sorted({f.ref for f in self.findings if f.violation.denies}))

    def by_rule(self) -> dict[str, int]:
        return dict(sorted(Counter(f.violation.rule for f in self.findings).items()))

    def by_tenant(self) -> dict[str, int]:
        return dict(sorted(Counter(f.tenant for f in self.findings).items()))

    def as_json(self) -> dict[str, Any]:
        return {
            "objects": self.objects,
            "denied": len(self.denied),
            "findings": [f.as_json() for f in self.findings],
            "byRule": self.by_rule(),
            "byTenant": self.by_tenant(),
            "unreadable": [{"where": w, "why": why} for w, why in self.unreadable],
            "exceptions": [lift.as_json() for lift in self.lifted],
        }


def flatten(documents: Iterable[tuple[str, Any]]) -> Iterator[tuple[str, Any]]:
    """Each object of ``documents`` ((where, document) pairs): a ``kind: List`` (what ``kubectl
    get -o json|yaml`` prints, ``DeploymentList`` and the like) gives its items, each named by
    where it sits."""
    for where, document in documents:
        kind = document.get("kind") if isinstance(document, Mapping) else None
        items = document.get("items") if isinstance(document, Mapping) else None
        if isinstance(kind, str) and kind.endswith("List") and isinstance(items, list):
            for index, item in enumerate(items):
                yield f"{where}: items[{index}]", item
        else:
            yield where, document


def _ref(obj: Mapping[str, Any]) -> ObjectRef:
    metadata = obj.get("metadata") or {}
    return ObjectRef(
        namespace=str(metadata.get("namespace") or ""),
        kind=str(obj.get("kind") or ""),
        name=str(metadata.get("name") or ""),
        api_version=str(obj.get("apiVersion") or ""),
        uid=str(metadata.get("uid") or ""),
    )


def _unreadable(obj: Any) -> str | None:
    if not isinstance(obj, Mapping):
        return "not a Kubernetes object (a mapping)"
    metadata = obj.get("metadata")
    for problem, missing in (
        ("no apiVersion", not isinstance(obj.get("apiVersion"), str) or not obj["apiVersion"]),
        ("no kind", not isinstance(obj.get("kind"), str) or not obj["kind"]),
        ("no metadata.name", not isinstance(metadata, Mapping) or not metadata.get("name")),
    ):
        if missing:
            return problem
    return None


def scan(documents: Iterable[tuple[str, Any]], bundle: Bundle, *, writer: str = "git") -> Scan:
    """Judge every object of ``documents`` ((where, document) pairs; Lists are opened) as
    ``writer``'s rewrite of it would be judged, each rule with its action at the ``audit``
    enforcement point (a rule staged there says what it does once enforced)."""
    findings: list[Finding] = []
    clean: list[ObjectRef] = []
    unreadable: list[tuple[str, str]] = []
    lifted: list[Lifted] = []
    for where, obj in flatten(documents):
        problem = _unreadable(obj)
        if problem is not None:
            unreadable.append((where, problem))
            continue
        ref = _ref(obj)
        try:
            request = sync_request(obj, obj, bundle, writer=writer)
            decision = review(request, bundle, point="audit")
        except RequestError as exc:
            unreadable.append((where, str(exc)))
            continue
        tenant = bundle.tenant_of_namespace(ref.namespace) if ref.namespace else None
        owner = tenant.name if tenant is not None else PLATFORM
        found = [Finding(ref, v, owner) for v in decision.violations]
        findings.extend(found)
        lifted.extend(Lifted(ref, use, owner) for use in decision.exceptions)
        if not found:
            clean.append(ref)
    return Scan(
        tuple(sorted(findings)), tuple(sorted(clean)), tuple(unreadable), tuple(sorted(lifted))
    )

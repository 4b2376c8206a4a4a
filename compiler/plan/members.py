"""The rules on one member's copy, and which override produced what a rule objects to.

Each copy a member cluster receives is reviewed as the CREATE git's sync leads to, with the CEL
variable ``cluster`` set to that member. A violation is then traced to its source: the copy
before any override is reviewed, then the copy after each override rule that applied; the
first state in which the violation (same rule, same pointer) appears names the override that
produced the value (or the template itself, when it was there from the start), and the fields
that override wrote name where.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from compiler.check.writes import keep_live
from webhook.bundle.model import Bundle
from webhook.engine.admissible import NAMESPACED
from webhook.engine.decision import Violation
from webhook.engine.enforcement import Point
from webhook.engine.ownership import changed_pointers
from webhook.engine.review import review
from webhook.engine.synthesize import sync_request
from webhook.karmada.overridemanager import Step

OVERRIDE_FAILED = "karmada.override"
"""The rule id of a member copy Karmada cannot build (its override manager fails)."""


@dataclass(frozen=True, order=True)
class MemberViolation:
    """A rule's objection to one member's copy, and the override rule that caused it."""

    violation: Violation
    override: str | None = None
    """``OverridePolicy ns/name`` or ``ClusterOverridePolicy name``; None: the template."""
    override_rule: int | None = None
    fields: tuple[str, ...] = ()
    """The JSON pointers of the copy that override rule wrote (the fields a rule without a
    pointer of its own, a CEL rule, objects to)."""

    @property
    def denies(self) -> bool:
        return self.violation.denies

    def as_json(self) -> dict[str, Any]:
        return {
            **self.violation.as_json(),
            "override": self.override,
            "overrideRule": self.override_rule,
            "fields": list(self.fields),
        }

    def describe(self, cluster: str) -> str:
        """``[rule] in cluster: message (set by ...)`` for text reports."""
        v = self.violation
        pointers = (v.pointer,) if v.pointer else self.fields
        where = f" at {', '.join(pointers)}" if pointers else ""
        if self.override is not None:
            source = f" (set by {self.override} rule {self.override_rule}{where})"
        elif v.rule != OVERRIDE_FAILED:
            source = f" (in the template{where})"
        else:
            source = ""
        return f"[{v.rule}] in {cluster}: {v.message}{source}"


def judge(
    obj: Mapping[str, Any], cluster: str, bundle: Bundle, *, point: Point = "plan"
) -> tuple[Violation, ...]:
    """The rules' objections to ``obj`` as ``cluster``'s copy, with their actions at ``point``
    (attribution compares rule and pointer only, so it judges at the plan's)."""
    request = sync_request(_namespaced(obj), None, bundle)
    return review(request, bundle, cluster=cluster, point=point).violations


def _namespaced(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """A manifest of a namespaced kind that names no namespace is judged where ``kubectl
    apply`` would create it, in ``default`` (an API server request always names one)."""
    metadata = obj.get("metadata")
    group = str(obj.get("apiVersion", "")).rpartition("/")[0]
    if (group, obj.get("kind")) not in NAMESPACED or not isinstance(metadata, Mapping):
        return obj
    if metadata.get("namespace"):
        return obj
    return {**obj, "metadata": {**metadata, "namespace": "default"}}


def _key(violation: Violation) -> tuple[str, str]:
    return violation.rule, violation.pointer


def attribute(
    violations: Sequence[Violation],
    base: Mapping[str, Any],
    steps: Sequence[Step],
    cluster: str,
    bundle: Bundle,
) -> tuple[MemberViolation, ...]:
    """Each violation with the first override rule after which it appears, and the fields
    of that rule's write it comes from."""
    if not violations:
        return ()
    wanted = {_key(v) for v in violations}
    source: dict[tuple[str, str], tuple[str | None, int | None, tuple[str, ...]]] = {}
    for key in {_key(v) for v in judge(base, cluster, bundle)} & wanted:
        source[key] = (None, None, ())
    previous: Mapping[str, Any] = base
    for step in steps:
        if len(source) == len(wanted):
            break
        for key in {_key(v) for v in judge(step.object, cluster, bundle)} & wanted - set(source):
            fields = _culprits(key, previous, step.object, cluster, bundle)
            source[key] = (step.policy, step.rule, fields)
        previous = step.object
    return tuple(
        sorted(MemberViolation(v, *source.get(_key(v), (None, None, ()))) for v in violations)
    )


def _culprits(
    key: tuple[str, str],
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    cluster: str,
    bundle: Bundle,
) -> tuple[str, ...]:
    """The fields an override rule wrote (``before`` -> ``after``) that the violation ``key``
    comes from: each one that, put back alone, makes it go; all of them when none does alone."""
    wrote = tuple(changed_pointers(before, after))
    if len(wrote) <= 1:
        return wrote
    found = tuple(
        pointer
        for pointer in wrote
        if key
        not in {_key(v) for v in judge(keep_live(after, before, [pointer])[0], cluster, bundle)}
    )
    return found or wrote


def override_failed(cluster: str, error: str) -> MemberViolation:
    """Karmada's override manager fails for ``cluster``: the member gets no copy."""
    return MemberViolation(
        Violation(
            rule=OVERRIDE_FAILED,
            owner="karmada",
            writer="karmada",
            action="deny",
            status="error",
            message=f"Karmada cannot build {cluster}'s copy: {error}",
        )
    )

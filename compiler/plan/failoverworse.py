"""Which single-cluster failures a change makes worse: ``plan --fail`` of every cluster, on the
base's manifests and on the change's, compared.

Pure: both sides' manifests and the bundle in, the regressions out. A failure of one cluster
is worse at the change than at the base when, for a template the change has:

- ``failover.unplaceable``: it runs no replica anywhere while the cluster is down (its every
  copy was on it and nothing moves it), and at the base it ran somewhere (or did not exist);
- ``failover.under-minimum``: it runs fewer replicas than its FederatedHPA's ``minReplicas``
  while the cluster is down;
- ``failover.lost``: the base evicted it from the cluster (its replicas moved to the clusters
  left) and the change does not (they are lost until the cluster returns);
- any finding of ``plan --fail`` the base did not have for it: a stateful app that now runs
  in two places (``failover.split-brain``), a cluster left over its allocatable
  (``failover.capacity``), no cluster left for an evicted app (``failover.nowhere``).

Both sides are planned with today's bundle (as ``plan --base`` plans its before side).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from compiler.argocd.manifests import Manifest
from compiler.plan.failover import (
    FailoverPlan,
    Finding,
    TemplateFailover,
    fail_planned,
    placed,
    tree_taint_policies,
)
from compiler.plan.text import Line
from compiler.plan.tree import autoscaler_bounds, policies_of
from webhook.bundle.model import Bundle

Identity = tuple[str, str, str, str]


@dataclass(frozen=True)
class Worse:
    """One failure the change makes worse, as a finding of that failure."""

    failed: tuple[str, ...]
    finding: Finding

    def as_json(self) -> dict[str, Any]:
        f = self.finding
        template = None
        if f.template is not None:
            template = dict(
                zip(("apiVersion", "kind", "namespace", "name"), f.template, strict=True)
            )
        return {
            "failed": list(self.failed),
            "rule": f.rule,
            "action": f.action,
            "message": f.message,
            "template": template,
            "cluster": f.cluster,
        }


def _name(identity: Identity) -> str:
    _, kind, namespace, name = identity
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"


def running(t: TemplateFailover, failed: Sequence[str]) -> dict[str, int | None]:
    """Where the template runs while ``failed`` are down: where it is moved to if evicted, else
    where it was, the failed clusters left out."""
    evicted = any(e.evicted for e in t.evictions)
    where = t.after if evicted else t.before
    return {c: n for c, n in where.items() if c not in failed and n != 0}


Key = tuple[str, Identity | None, str | None]


def _problems(plan: FailoverPlan, minimums: Mapping[Identity, int]) -> dict[Key, Finding]:
    """The plan's findings, an ``unplaceable`` one per template left running nowhere and an
    ``under-minimum`` one per template left with fewer replicas than its FederatedHPA's
    ``minReplicas``, by rule, template and cluster (a deny first where one key has both)."""
    found: dict[Key, Finding] = {}
    for f in sorted(plan.findings, key=lambda f: not f.denies):
        found.setdefault((f.rule, f.template, f.cluster), f)
    for t in plan.templates:
        evicted = any(e.evicted for e in t.evictions)
        left = sum(n or 0 for n in running(t, plan.failed).values())
        least = minimums.get(t.identity)
        if least is not None and running(t, plan.failed) and left < least:
            found["failover.under-minimum", t.identity, None] = Finding(
                "failover.under-minimum",
                "warn",
                f"{_name(t.identity)} runs {left} replica{'s' if left != 1 else ''} while "
                f"{', '.join(plan.failed)} {'is' if len(plan.failed) == 1 else 'are'} down, "
                f"under its FederatedHPA's minReplicas {least}",
                t.identity,
            )
        if not evicted and not running(t, plan.failed):
            reasons = "; ".join(f"{e.cluster}: {e.reason}" for e in t.evictions)
            found["failover.unplaceable", t.identity, None] = Finding(
                "failover.unplaceable",
                "warn",
                f"{_name(t.identity)} runs nowhere while {', '.join(plan.failed)} "
                f"{'is' if len(plan.failed) == 1 else 'are'} down: {reasons}",
                t.identity,
            )
    return found


def _lost(base: FailoverPlan, head: FailoverPlan) -> list[Finding]:
    """Templates the base evicted from a failed cluster and the change leaves there."""
    before = {(t.identity, e.cluster): e for t in base.templates for e in t.evictions if e.evicted}
    found = []
    for t in head.templates:
        for e in t.evictions:
            was = before.get((t.identity, e.cluster))
            if was is not None and not e.evicted:
                found.append(
                    Finding(
                        "failover.lost",
                        "warn",
                        f"{_name(t.identity)} is no longer moved off {e.cluster} when it "
                        f"fails ({e.reason}); its replicas there are lost until it returns "
                        f"(at the base: {was.reason})",
                        t.identity,
                        e.cluster,
                    )
                )
    return found


def compare(
    base: FailoverPlan,
    head: FailoverPlan,
    minimums: tuple[Mapping[Identity, int], Mapping[Identity, int]] = ({}, {}),
) -> list[Finding]:
    """What ``head`` finds for the same failure that ``base`` did not, for the templates
    ``head`` has (a template the change removes is no regression); ``minimums``: each side's
    FederatedHPA ``minReplicas`` by template."""
    had = _problems(base, minimums[0])
    ran: dict[Identity | None, dict[str, int | None]] = {
        t.identity: running(t, base.failed) for t in base.templates
    }
    found = []
    for key, finding in _problems(head, minimums[1]).items():
        if key in had and (had[key].denies or not finding.denies):
            continue  # the base had it, as severe (a warning that now denies is worse)
        if finding.rule == "failover.unplaceable" and ran.get(finding.template, True) == {}:
            continue  # it ran nowhere at the base either
        found.append(finding)
    return found + _lost(base, head)


def minimums(manifests: Sequence[Manifest]) -> dict[Identity, int]:
    """Each FederatedHPA target's ``minReplicas``, by the template's identity."""
    bounds = autoscaler_bounds(manifests)
    found = {}
    for m in manifests:
        _, kind, namespace, name = m.identity
        if (namespace, kind, name) in bounds:
            found[m.identity] = bounds[namespace, kind, name][0]
    return found


def worse(base: Sequence[Manifest], head: Sequence[Manifest], bundle: Bundle) -> list[Worse]:
    """Every single-cluster failure ``head`` makes worse than ``base``, cluster by cluster."""
    sides = []
    for manifests in (base, head):
        policies = policies_of(m.object for m in manifests)
        sides.append(
            (placed(manifests, policies, bundle), policies, tree_taint_policies(manifests))
        )
    least = (minimums(base), minimums(head))
    found = []
    for cluster in sorted(bundle.clusters):
        plans = [
            fail_planned(plans, policies, bundle, [cluster], taints)
            for plans, policies, taints in sides
        ]
        found += [Worse((cluster,), f) for f in compare(plans[0], plans[1], least)]
    found.sort(key=lambda w: (w.finding.action != "deny", w.failed, w.finding.rule))
    return found


def worse_lines(found: Sequence[Worse], against: str) -> list[Line]:
    """The everyday plan's text section (nothing when no failure gets worse)."""
    if not found:
        return []
    lines = [Line(f"If a cluster fails, worse than at {against}:", "bold")]
    for w in found:
        f = w.finding
        lines.append(
            Line(
                f"    {f.action:<6} if {', '.join(w.failed)} fails: [{f.rule}] {f.message}",
                f.action,
                11,
            )
        )
    return [*lines, Line("")]


def worse_json(found: Sequence[Worse], against: str) -> Mapping[str, Any]:
    """The ``failover`` part of ``plan --base``'s JSON."""
    return {"against": against, "worse": [w.as_json() for w in found]}

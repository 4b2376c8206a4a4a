"""The text and the JSON of ``plan --fail``: pure renderings of one FailoverPlan."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from compiler.output import plural
from compiler.plan.capacity import ClusterLoad
from compiler.plan.failover import (
    FailoverPlan,
    Finding,
    Queue,
    TemplateFailover,
    off_switch,
)
from compiler.plan.text import Line, _counts, _field, _more, cores, memory
from webhook.base.quantity import format_cpu, format_memory
from webhook.karmada.evictionqueue import throughput


def duration(seconds: float) -> str:
    """``4 s``, ``13 min 48 s``, ``2 h 5 min``: for people."""
    whole = round(seconds)
    if whole < 90:
        return f"{whole} s"
    minutes, rest = divmod(whole, 60)
    if minutes < 120:
        return f"{minutes} min {rest} s" if rest else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


def _when(earliest: float, latest: float) -> str:
    if earliest == latest:
        return f"at {duration(earliest)}"
    return f"between {duration(earliest)} and {duration(latest)}"


def _name(identity: tuple[str, str, str, str]) -> str:
    _, kind, namespace, name = identity
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"


def _amount(resource: str, value: Fraction) -> str:
    if resource == "cpu":
        return cores(value)
    if resource == "memory":
        return memory(value)
    return str(int(value))


def _settings_line(plan: FailoverPlan) -> list[Line]:
    s = plan.settings
    off = off_switch(s)
    if off is not None:
        return [_field("evictions", f"none: {off}", "warn")]
    return [
        _field(
            "evictions",
            f"on (Failover gate, taint manager, NoExecute eviction); purge mode "
            f"{s.purge_mode} unless a policy sets failover.cluster",
        ),
        _more(
            f"rate {s.resource_eviction_rate:g}/s per worker, graceful eviction timeout "
            f"{duration(s.graceful_eviction_timeout)}"
        ),
    ]


def _template_block(t: TemplateFailover, findings: list[Finding]) -> list[Line]:
    tags = [x for x in (t.tenant, "stateful" if t.stateful else None) if x]
    evicted = any(e.evicted for e in t.evictions)
    symbol = "~" if evicted else " "
    head = f"{symbol} {_name(t.identity)}" + (f" ({', '.join(tags)})" if tags else "")
    lines = [Line(head, "change" if evicted else "bold", 4)]
    for e in t.evictions:
        purge = f"; purgeMode {e.purge}" if e.purge else ""
        lines.append(_field(e.cluster, e.reason + purge, "" if e.evicted else "warn"))
        if e.window is not None:
            when = _when(e.window.earliest, e.window.latest)
            lines.append(_more(f"the queue takes it {when} after the taint"))
        if not e.evicted and e.replicas:
            lines.append(_more(f"{plural(e.replicas, 'replica')} unavailable while it is down"))
    if evicted:
        lines.append(_field("replicas", _counts(t.after, t.before)))
        if t.alternative is not None:
            lines.append(_more(f"or, by the template UID: {_counts(t.alternative, t.before)}"))
        if t.by_capacity:
            lines.append(
                _more("divided by free capacity: each cluster shown with the most it can get")
            )
    for text in t.twice:
        lines.append(_field("twice", text))
    for note in t.notes:
        lines.append(_field("note", note))
    for f in findings:
        lines.append(_field(f.action, f"[{f.rule}] {f.message}", f.action))
    return lines


def _load_line(load: ClusterLoad) -> Line:
    parts = []
    for resource in ("cpu", "memory", "pods"):
        before = load.before.get(resource, Fraction(0))
        after = load.after.get(resource, Fraction(0))
        text = _amount(resource, before)
        if after != before:
            text += f" -> {_amount(resource, after)}"
        if resource in load.allocatable:
            text += f" of {_amount(resource, load.allocatable[resource])}"
        parts.append(f"{resource} {text}")
    style = "deny" if load.over() else ""
    if not load.allocatable:
        parts.append("(no allocatable declared)")
    return _field(load.cluster, ", ".join(parts), style)


def _queue_line(queue: Queue) -> Line:
    s = queue.settings
    rate = throughput(s)
    return _field(
        "storm",
        f"{plural(queue.items, queue.name)}, {s.workers} workers at {s.rate:g}/s each "
        f"({rate:g}/s): the last is taken about {duration(queue.duration)} after the taint",
    )


def report(plan: FailoverPlan) -> list[Line]:
    """The text of ``plan --fail``."""
    lines = [
        Line(f"If {', '.join(plan.failed)} fail{'s' if len(plan.failed) == 1 else ''}:", "bold")
    ]
    for cluster, taints in plan.taints.items():
        lines.append(_field(cluster, ", ".join(t.describe() for t in taints)))
    lines.append(_more("the taints land when Ready turns False: " + _detection(plan)))
    lines += _settings_line(plan)
    lines.append(Line(""))
    by_template: dict[tuple[str, str, str, str], list[Finding]] = {}
    for f in plan.findings:
        if f.template is not None:
            by_template.setdefault(f.template, []).append(f)
    for t in plan.templates:
        lines += [*_template_block(t, by_template.get(t.identity, [])), Line("")]
    if plan.loads:
        lines.append(Line("The clusters left, requested against allocatable:", "bold"))
        lines += [_load_line(load) for load in plan.loads]
        for f in plan.findings:
            if f.template is None:
                lines.append(_field(f.action, f"[{f.rule}] {f.message}", f.action))
        lines.append(Line(""))
    for queue in plan.queues:
        lines.append(_queue_line(queue))
    if plan.queues:
        lines.append(
            _more(
                "order: the bindings due at once in the informer cache's order (any of them "
                "may come first), then each as its tolerationSeconds run out"
            )
        )
    lines += _stateful_windows(plan)
    for note in plan.notes:
        lines.append(_field("note", note))
    return [*lines, summary(plan)]


def _stateful_windows(plan: FailoverPlan) -> list[Line]:
    """When the queue reaches each stateful template: the ones a reviewer looks for first."""
    lines = []
    for t in plan.templates:
        for e in t.evictions:
            if t.stateful and e.window is not None:
                owner = f"{t.tenant}'s " if t.tenant else ""
                when = _when(e.window.earliest, e.window.latest)
                lines.append(
                    _field(
                        "stateful",
                        f"{owner}{_name(t.identity)} leaves {e.cluster} {when} after the taint",
                    )
                )
    return lines


def _detection(plan: FailoverPlan) -> str:
    s = plan.settings
    low = s.cluster_failure_threshold
    return (
        f"{duration(low)} to {duration(low + s.cluster_status_update_frequency)} after the "
        "failure (--cluster-failure-threshold, probed every --cluster-status-update-frequency)"
    )


def summary(plan: FailoverPlan) -> Line:
    evicted = sum(1 for t in plan.templates for e in t.evictions if e.evicted)
    stay = sum(1 for t in plan.templates for e in t.evictions if not e.evicted)
    lost = sum(t.unavailable for t in plan.templates)
    denies = sum(1 for f in plan.findings if f.denies)
    warns = len(plan.findings) - denies
    last = max((q.duration for q in plan.queues), default=0.0)
    text = (
        f"Failover: {plural(evicted, 'eviction')}"
        + (f" (done about {duration(last)} after the taint)" if evicted else "")
        + f", {stay} staying ({plural(lost, 'replica')} unavailable); "
        f"{plural(denies, 'deny', 'denies')}, {plural(warns, 'warning')}"
    )
    return Line(text, "deny" if denies else "bold")


def _amounts(values: Mapping[str, Fraction]) -> dict[str, str | int]:
    out: dict[str, str | int] = {}
    for resource, value in values.items():
        if resource == "cpu":
            out[resource] = str(format_cpu(value))
        elif resource == "memory":
            out[resource] = str(format_memory(value))
        else:
            out[resource] = int(value)
    return out


def _finding_json(f: Finding) -> dict[str, Any]:
    template = None
    if f.template is not None:
        template = dict(zip(("apiVersion", "kind", "namespace", "name"), f.template, strict=True))
    return {
        "rule": f.rule,
        "action": f.action,
        "message": f.message,
        "template": template,
        "cluster": f.cluster,
    }


def as_json(plan: FailoverPlan) -> dict[str, Any]:
    """The JSON of ``plan --fail`` (documented in docs/failover.md)."""
    s = plan.settings
    return {
        "failed": list(plan.failed),
        "controlPlane": {
            "failoverFeatureGate": s.failover_gate,
            "enableTaintManager": s.enable_taint_manager,
            "enableNoExecuteTaintEviction": s.enable_no_execute_taint_eviction,
            "noExecuteTaintEvictionPurgeMode": s.purge_mode,
            "resourceEvictionRate": s.resource_eviction_rate,
            "gracefulEvictionTimeoutSeconds": s.graceful_eviction_timeout,
            "clusterFailureThresholdSeconds": s.cluster_failure_threshold,
            "clusterStatusUpdateFrequencySeconds": s.cluster_status_update_frequency,
            "evicts": off_switch(s) is None,
            "offReason": off_switch(s),
        },
        "taints": {
            c: [{"key": t.key, "effect": t.effect, "value": t.value} for t in taints]
            for c, taints in plan.taints.items()
        },
        "templates": [
            {
                **dict(zip(("apiVersion", "kind", "namespace", "name"), t.identity, strict=True)),
                "file": t.manifest.file,
                "line": t.manifest.line,
                "tenant": t.tenant,
                "stateful": t.stateful,
                "placementBefore": dict(t.before),
                "placementAfter": dict(t.after),
                "placementAlternative": dict(t.alternative) if t.alternative else None,
                "byCapacity": t.by_capacity,
                "evictions": [
                    {
                        "cluster": e.cluster,
                        "replicas": e.replicas,
                        "evicted": e.evicted,
                        "reason": e.reason,
                        "dueSeconds": e.due,
                        "queueSeconds": (
                            {"earliest": e.window.earliest, "latest": e.window.latest}
                            if e.window is not None
                            else None
                        ),
                        "purgeMode": e.purge,
                    }
                    for e in t.evictions
                ],
                "twice": list(t.twice),
                "notes": list(t.notes),
            }
            for t in plan.templates
        ],
        "capacity": [
            {
                "cluster": load.cluster,
                "before": _amounts(load.before),
                "after": _amounts(load.after),
                "allocatable": _amounts(load.allocatable),
                "over": load.over(),
                "headroomPercent": load.headroom,
                "intoHeadroom": load.tight(),
                "addedBy": {name: _amounts(v) for name, v in sorted(load.added_by.items())},
            }
            for load in plan.loads
        ],
        "storm": [
            {
                "queue": q.name,
                "items": q.items,
                "workers": q.settings.workers,
                "ratePerWorker": q.settings.rate,
                "throughput": throughput(q.settings),
                "seconds": q.duration,
            }
            for q in plan.queues
        ],
        "findings": [_finding_json(f) for f in plan.findings],
        "notes": list(plan.notes),
        "summary": summary(plan).text,
    }

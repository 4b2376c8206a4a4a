"""The text of ``fedgate plan``, read like ``terraform plan``: a block per app and template that
changes against git HEAD (``+`` added, ``~`` changed, ``-`` removed; before -> after where a
value changes), the tenants' bills, one summary line.

Pure: changes in, lines out. Quantities are written for people (``cpu 7.9 of 20``, ``memory
15.5Gi of 80Gi``: cores, and the largest binary unit, to two decimals); the JSON keeps them
exact. Lines are made to fit ``columns.WIDTH`` and colour is added last (``finish``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from compiler.output import plural
from compiler.plan.changes import (
    SYMBOLS,
    Action,
    AppChange,
    FileAction,
    PolicyChange,
    Summary,
    TemplateChange,
)
from compiler.plan.columns import WIDTH, columns, cut, printable, wrap
from compiler.plan.core import AppPlan, TenantBill
from compiler.plan.members import MemberViolation
from compiler.plan.tree import TemplateResult
from webhook.base.errors import Finding
from webhook.bundle.expiry import ExceptionDate

RESET, RED, GREEN, YELLOW, CYAN, BOLD = (
    "\033[0m",
    "\033[31m",
    "\033[32m",
    "\033[33m",
    "\033[36m",
    "\033[1m",
)
STYLES = {
    "add": GREEN,
    "change": YELLOW,
    "remove": RED,
    "deny": BOLD + RED,
    "warn": YELLOW,
    "bold": BOLD,
}
INDENT, LABEL = "    ", 13
HANG = len(INDENT) + LABEL
"""Where the value of a labelled line starts, and where its wrapped lines start."""
CEILING = "autoscalers at their maximum"
UNKNOWN = "git HEAD's spec of this app cannot be planned with today's bundle"
UNITS = (("Ei", 2**60), ("Pi", 2**50), ("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10))


@dataclass(frozen=True)
class Line:
    """One logical line: wrapped at ``hang`` when too wide, or ``cut`` (diff lines)."""

    text: str
    style: str = ""
    hang: int = 0
    cut: bool = False


def _decimals(numerator: int, denominator: int, places: int) -> str:
    """``numerator / denominator`` rounded to ``places`` decimals (half to even), without
    trailing zeros; integers only (Fraction arithmetic cost a tenth of ``plan --all``)."""
    whole, rest = divmod(abs(numerator) * 10**places, denominator)
    if 2 * rest > denominator or (2 * rest == denominator and whole % 2):
        whole += 1
    units, part = divmod(whole, 10**places)
    decimals = f"{part:0{places}d}".rstrip("0") if places else ""
    sign = "-" if numerator < 0 and whole else ""
    return sign + str(units) + (f".{decimals}" if decimals else "")


def cores(value: Fraction) -> str:
    """``7.9``, ``0.25``: cores, to the millicore (``<0.001`` for what rounds to none)."""
    text = _decimals(value.numerator, value.denominator, 3)
    return "<0.001" if value > 0 and text == "0" else text


def memory(value: Fraction) -> str:
    """``15.5Gi``, ``512Mi``: the largest binary unit with at least 1, to two decimals."""
    for suffix, factor in UNITS:
        if value >= factor:
            return _decimals(value.numerator, value.denominator * factor, 2) + suffix
    return _decimals(value.numerator, value.denominator, 0)


def _arrow(before: str | None, after: str) -> str:
    return after if before is None or before == after else f"{before} -> {after}"


def _field(label: str, value: str, style: str = "") -> Line:
    return Line(f"{INDENT}{label:<{LABEL - 1}} {value}", style, HANG)


def _more(value: str, style: str = "") -> Line:
    """A line under the value of the labelled line above."""
    return Line(" " * HANG + value, style, HANG)


def _count(cluster: str, value: int | None) -> str:
    return cluster if value is None else f"{cluster} {value}"


def _counts(after: Mapping[str, int | None], before: Mapping[str, int | None] | None) -> str:
    """``cluster-a 2 -> 3, cluster-b 2, cluster-c 0 -> 1``; a count of None is a kind Karmada
    copies whole, shown by the cluster's name (``(added)``, ``(removed)`` when that changes)."""
    parts = []
    for cluster in sorted({*after, *(before or {})}):
        if before is None or (cluster in after and after[cluster] == before.get(cluster, 0)):
            parts.append(_count(cluster, after[cluster]))
        elif cluster not in before and after[cluster] is None:
            parts.append(f"{cluster} (added)")
        elif cluster not in after and before[cluster] is None:
            parts.append(f"{cluster} (removed)")
        else:
            then, now = before.get(cluster) or 0, after.get(cluster) or 0
            parts.append(f"{cluster} {then} -> {now}")
    return ", ".join(parts) or "no cluster"


def _violations(found: Mapping[str, Sequence[MemberViolation]]) -> list[Line]:
    lines = []
    for cluster, violations in sorted(found.items()):
        for v in violations:
            action = v.violation.action
            lines.append(
                Line(
                    f"{INDENT}{action:<6} {v.describe(cluster)}{v.violation.staged_note}",
                    action if action in STYLES else "",
                    len(INDENT) + 7,
                )
            )
    return lines


def _label(change: AppChange | TemplateChange) -> str:
    if isinstance(change, AppChange):
        return f"{change.namespace}/{change.name}"
    _, kind, namespace, name = change.identity
    return f"{kind} {'/'.join(p for p in (namespace, name) if p)}"


def staged_lines(changes: Sequence[AppChange | TemplateChange]) -> list[Line]:
    """The section "Staged rules": each objection of a rule whose action at the plan is weaker
    than its strongest elsewhere, with what it does once enforced (a rule rolled out in steps:
    the reviewer sees what it would deny before it does)."""
    lines = []
    for change in changes:
        for cluster, violations in sorted(
            (change.after.violations if change.after else {}).items()
        ):
            for v in violations:
                enforced = v.violation.enforced
                if enforced is None:
                    continue
                lines.append(
                    Line(
                        f"{INDENT}{enforced:<6} {v.describe(cluster)} ({_label(change)}; "
                        f"{v.violation.action} at the plan for now)",
                        enforced if enforced in STYLES else "",
                        len(INDENT) + 7,
                    )
                )
    if not lines:
        return []
    return [Line("Staged rules (what they would do once enforced):"), *lines, Line("")]


def exception_lines(dates: Sequence[ExceptionDate]) -> list[Line]:
    """The section "Exceptions": each exception of the bundle on the plan's day, what it lifts
    where, its owner and how long it has (an expired one lifts nothing: remove it)."""
    if not dates:
        return []
    lines = [Line("Exceptions (what each lets through now: fedgate audit):")]
    for dated in dates:
        e = dated.exception
        if dated.status == "expired":
            left, style = f"expired {e.expires.isoformat()}: lifts nothing, remove it", "deny"
        else:
            days = "last day" if dated.days_left == 1 else f"{dated.days_left} days left"
            left = f"until {e.expires.isoformat()} ({days})"
            style = "warn" if dated.status == "expiring" else ""
        lines.append(
            Line(
                f"{INDENT}{e.name}: {', '.join(sorted(e.rules))} in "
                f"{', '.join(sorted(e.namespaces))}; owner {e.owner}; {left}",
                style,
                len(INDENT),
            )
        )
    return [*lines, Line("")]


def _dig(obj: Any, *keys: str) -> Any:
    for key in keys:
        obj = obj.get(key) if isinstance(obj, Mapping) else None
    return obj


def _copy(obj: Mapping[str, Any]) -> dict[str, str]:
    """What plan says of one member's Deployment: its replicas, image, args and extra labels
    (read with care: a hand-written override may have replaced any of them with anything)."""
    containers = _dig(obj, "spec", "template", "spec", "containers")
    first = containers[0] if isinstance(containers, list) and containers else None
    container = first if isinstance(first, Mapping) else {}
    args = container.get("args")
    labels = _dig(obj, "metadata", "labels")
    return {
        "replicas": str(_dig(obj, "spec", "replicas")),
        "image": str(container.get("image", "no image")),
        "args": " ".join(str(a) for a in args) if isinstance(args, list) else str(args or ""),
        "labels": ", ".join(
            f"{k}={v}"
            for k, v in sorted((labels if isinstance(labels, Mapping) else {}).items(), key=str)
            if not str(k).startswith(("app.kubernetes.io/", "fedgate.dev/"))
        ),
    }


def _was(label: str | None, value: str, now: str, then: str | None) -> list[Line]:
    """``value`` under ``label`` (None: under the line above), with ``(was then)`` when ``then``
    is not ``now``; on a line of its own when both do not fit on one."""

    def first(text: str) -> Line:
        return _field(label, text) if label is not None else _more(text)

    if then is None or then == now:
        return [first(value)]
    was = f"(was {then or 'none'})"
    line = first(f"{value} {was}")
    return [line] if columns(line.text) <= WIDTH else [first(value), _more(was)]


def _clusters(shown: AppPlan, previous: AppPlan | None) -> list[Line]:
    lines = []
    for cluster, obj in shown.clusters.items():
        now = _copy(obj)
        old_obj = previous.clusters.get(cluster) if previous is not None else None
        then = _copy(old_obj) if old_obj is not None else {}
        count, old_count = now["replicas"], then.get("replicas")
        new = " (new in this cluster)" if previous is not None and old_obj is None else ""
        value = f"{_arrow(old_count, count)} x {now['image']}{new}"
        lines += _was(cluster, value, now["image"], then.get("image"))
        for item in ("args", "labels"):
            if now[item] or then.get(item):
                lines += _was(None, f"{item} {now[item] or 'none'}", now[item], then.get(item))
        applied = ", ".join(shown.overrides.get(cluster, ()))
        before = None
        if previous is not None and old_obj is not None:
            before = ", ".join(previous.overrides.get(cluster, ()))
        if applied or before:
            lines += _was(None, f"overrides {applied or 'none'}", applied, before)
    for cluster, obj in previous.clusters.items() if previous is not None else ():
        if cluster not in shown.clusters:
            had = f"{_copy(obj)['replicas']} x {_copy(obj)['image']}"
            lines.append(_field(cluster, f"receives nothing now (had {had})", "remove"))
    return lines


def _bill(shown: AppPlan, previous: AppPlan | None) -> list[Line]:
    """The bill per cluster; and the ceiling when it is not the bill (an autoscaler's maximum
    above its minimum), on either side."""
    lines = _amounts("bill", shown.bill, previous.bill if previous is not None else None)
    if shown.ceiling != shown.bill or (previous is not None and previous.ceiling != previous.bill):
        then = previous.ceiling if previous is not None else None
        lines += _amounts("ceiling", shown.ceiling, then)
    return lines


def _amounts(
    label: str,
    now_bill: Mapping[str, Mapping[str, Fraction]],
    then_bill: Mapping[str, Mapping[str, Fraction]] | None,
) -> list[Line]:
    lines: list[Line] = []
    empty: Mapping[str, Fraction] = {}
    for cluster in sorted({*now_bill, *(then_bill or {})}):
        now = now_bill.get(cluster, empty)
        then = then_bill.get(cluster, empty) if then_bill is not None else None
        parts = []
        for resource, fmt in (("cpu", cores), ("memory", memory)):
            value = fmt(now.get(resource, Fraction(0)))
            old = fmt(then.get(resource, Fraction(0))) if then is not None else None
            parts.append(f"{resource} {_arrow(old, value)}")
        text = f"{cluster} {', '.join(parts)}"
        lines.append(_field(label, text) if not lines else _more(text))
    return lines


def _files(files: Mapping[str, FileAction]) -> str:
    words = {"add": "added", "change": "changed", "remove": "removed"}
    groups = []
    for action, word in words.items():
        names = [p.rsplit("/", 1)[-1] for p, a in sorted(files.items()) if a == action]
        if names:
            groups.append(f"{word} {', '.join(names)}")
    return "; ".join(groups)


def diff_lines(text: str) -> list[Line]:
    """A unified diff, indented, each line cut to the width (``git diff`` has them whole)."""
    lines = []
    for line in text.splitlines():
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("@@"):
            style = "hunk"
        elif line.startswith("+"):
            style = "add"
        elif line.startswith("-"):
            style = "remove"
        else:
            style = ""
        lines.append(Line(INDENT + line, style, cut=True))
    return lines


def _header(symbol: str, text: str, action: Action) -> Line:
    return Line(f"{symbol} {text}", action if action != "none" else "bold", 4)


def app_block(change: AppChange, diffs: Mapping[str, str] | None = None) -> list[Line]:
    """One app: what each member cluster receives, what it costs, what changed."""
    shown = change.after or change.before
    previous = change.before if change.action == "change" else None
    name = f"{change.namespace}/{change.name}"
    if shown is None:
        lines = [
            _header(SYMBOLS[change.action], name, change.action),
            _field("note", UNKNOWN),
        ]
    else:
        about = f"tenant {shown.tenant}, {shown.mode}, replicas owned by {shown.owner}"
        lines = [_header(SYMBOLS[change.action], f"{name}  ({about})", change.action)]
        before = previous.placement if previous is not None else None
        lines.append(_field("placement", _counts(shown.placement, before)))
        lines += [_field("or, by UID", _counts(x, None)) for x in shown.alternatives]
        if shown.at_max is not None:
            at_max = previous.at_max if previous is not None else None
            lines.append(_field("at most", _counts(shown.at_max, at_max)))
        lines += [_field("note", note) for note in shown.notes]
        if change.action == "change" and not change.known:
            lines.append(_field("note", UNKNOWN))
        lines += _clusters(shown, previous)
        if change.after is not None:
            lines += _violations(change.after.violations)
        lines += _bill(shown, previous)
        for path, ledger in shown.ownership.items():
            others = {p: o for p, o in ledger.items() if o not in ("git", "karmada")}
            if others:
                owned = ", ".join(f"{p} -> {o}" for p, o in sorted(others.items()))
                lines.append(
                    _field(
                        "owns",
                        f"{path.rsplit('/', 1)[1]}: {owned} (Argo CD ignores these, but "
                        "what Git renders, and Karmada's fields)",
                    )
                )
    if change.files and change.action != "add":
        lines.append(_field("files", _files(change.files)))
    for path in sorted(change.files):
        lines += diff_lines(diffs.get(path, "")) if diffs is not None else []
    return lines


def _workload(obj: Mapping[str, Any]) -> str | None:
    """``N x image`` of a member's copy of a kind that runs a pod template (``image`` alone
    when it has no replicas: a DaemonSet); None for other kinds."""
    containers = _dig(obj, "spec", "template", "spec", "containers")
    if not isinstance(containers, list) or not containers:
        return None
    copy = _copy(obj)
    return copy["image"] if copy["replicas"] == "None" else f"{copy['replicas']} x {copy['image']}"


def template_block(change: TemplateChange, *, symbol: bool = True) -> list[Line]:
    """One hand-written template (or, without ``symbol``, one of ``plan --tree``)."""
    result = change.after or change.before
    assert result is not None  # a change has at least one side
    previous = change.before if change.action == "change" else None
    api_version, kind, namespace, name = change.identity
    where = f"{result.manifest.file}:{result.manifest.line}"
    title = f"{kind} {'/'.join(p for p in (namespace, name) if p)}  ({api_version}, {where})"
    lines = [_header(SYMBOLS[change.action], title, change.action) if symbol else Line(title)]
    plan = result.plan
    old_policy = _policy(previous.plan.policy) if previous is not None else None
    if plan.policy is not None or old_policy not in (None, "none"):
        lines += _was("policy", _policy(plan.policy), _policy(plan.policy), old_policy)
    before = previous.plan.placement if previous is not None else None
    lines.append(_field("placement", _counts(plan.placement, before)))
    if plan.alternative is not None:
        lines.append(_field("or, by UID", _counts(plan.alternative, None)))
    lines += [_field("note", note) for note in plan.notes]
    for cluster, member in sorted(plan.copies.items()):
        if member.object is None:
            continue
        old = previous.plan.copies.get(cluster) if previous is not None else None
        old_object = old.object if old is not None else None
        workload = _workload(member.object)
        if workload is not None:
            then = _workload(old_object) if old_object is not None else None
            lines += _was(cluster, workload, workload, then)
        if member.overrides:
            applied = f"overrides {', '.join(member.overrides)}"
            lines.append(_more(applied) if workload is not None else _field(cluster, applied))
    if change.after is not None:
        lines += _violations(change.after.violations)
    return lines


def _policy(ref: tuple[str, str, str] | None) -> str:
    if ref is None:
        return "none"
    kind, namespace, name = ref
    return f"{kind} {'/'.join(p for p in (namespace, name) if p)}"


def _over(bill: TenantBill, resource: str) -> bool:
    quota = bill.quota.get(resource)
    return quota is not None and bill.used.get(resource, Fraction(0)) > quota


def tenant_line(bill: TenantBill, before: Mapping[str, Fraction] | None) -> Line:
    """``tenant team-a: cpu 7.9 -> 8.1 of 20, memory 9Gi of 40Gi``."""
    parts = []
    for resource, fmt in (("cpu", cores), ("memory", memory)):
        used = bill.used.get(resource, Fraction(0))
        old = before.get(resource) if before is not None else None
        quota = bill.quota.get(resource)
        text = f"{resource} {_arrow(fmt(old) if old is not None else None, fmt(used))}"
        if quota is None:
            parts.append(text + " (no quota)")
            continue
        parts.append(f"{text} of {fmt(quota)}" + (" OVER QUOTA" if _over(bill, resource) else ""))
    over = any(_over(bill, r) for r in ("cpu", "memory"))
    return Line(f"tenant {bill.tenant}: " + ", ".join(parts), "deny" if over else "", 4)


def ceiling_line(bill: TenantBill, before: Mapping[str, Fraction] | None) -> Line:
    """``    ceiling      cpu 7.9 -> 8.1, memory 9Gi -> 9.25Gi (...)``: what the tenant's apps
    may grow to, under its line (the quota counts the bill, not this)."""
    parts = []
    for resource, fmt in (("cpu", cores), ("memory", memory)):
        most = fmt(bill.ceiling.get(resource, Fraction(0)))
        old = before.get(resource) if before is not None else None
        parts.append(f"{resource} {_arrow(fmt(old) if old is not None else None, most)}")
    return _field("ceiling", f"{', '.join(parts)} ({CEILING})")


def _tally(counts: Mapping[Action, int], noun: str) -> str:
    return (
        f"{plural(counts.get('add', 0), noun)} to add, {counts.get('change', 0)} to change, "
        f"{counts.get('remove', 0)} to remove"
    )


def _summaries(summary: Summary) -> Iterable[str]:
    """The summary line, from the most detailed form to the shortest."""
    templates = sum(n for a, n in summary.templates.items() if a != "none")
    verdict = plural(summary.denies, "deny", "denies")
    if summary.warnings:
        verdict += f", {plural(summary.warnings, 'warning')}"
    if summary.invalid:
        verdict += f"; {plural(summary.invalid, 'manifest')} invalid"
    names = ", ".join(summary.clusters)
    named = f"clusters affected: {names}" if names else "no cluster affected"
    counted = f"{plural(len(summary.clusters), 'cluster')} affected" if names else named
    extra = []
    if summary.policies:
        extra.append(f"{plural(summary.policies, 'policy', 'policies')} changed")
    if summary.files:
        extra.append(f"{plural(summary.files, 'other file')} changed")
    full = [_tally(summary.templates, "template")] if templates else []
    short = [f"{plural(templates, 'template')} changed"] if templates else []
    apps = _tally(summary.apps, "app")
    counts = summary.apps
    compact = f"apps +{counts.get('add', 0)} ~{counts.get('change', 0)} -{counts.get('remove', 0)}"
    for parts in (
        [apps, *full, *extra, named],
        [apps, *full, *extra, counted],
        [apps, *short, *extra, counted],
        [apps, *short, counted],
        [compact, *short, counted],
    ):
        yield f"Plan: {'; '.join([*parts, verdict])}."
    least = [compact, *([f"templates {templates}"] if templates else [])]
    tally = ", ".join(
        [
            plural(summary.denies, "deny", "denies"),
            plural(summary.warnings, "warning"),
            f"{summary.invalid} invalid",
        ]
    )
    yield f"Plan: {'; '.join([*least, f'clusters {len(summary.clusters)}', tally])}."


def summary_line(summary: Summary) -> Line:
    """``Plan: 1 app to add, 2 to change, 0 to remove; clusters affected: cluster-a; 1 deny.``:
    the most detailed form that fits on one line (the clusters counted rather than named, the
    templates in one count, then the policies and other files left to the lines above)."""
    candidates = list(_summaries(summary))
    text = next((t for t in candidates if columns(t) <= WIDTH), candidates[-1])
    return Line(text, "deny" if summary.denies else "bold", 6)


def report(
    apps: Sequence[AppChange],
    templates: Sequence[TemplateChange],
    tenants: Sequence[
        tuple[TenantBill, Mapping[str, Fraction] | None, Mapping[str, Fraction] | None]
    ],
    summary: Summary,
    *,
    policies: Sequence[PolicyChange] = (),
    others: Mapping[str, FileAction] | None = None,
    findings: Sequence[Finding] = (),
    diffs: Mapping[str, str] | None = None,
    everything: bool = False,
    tree: str = "rendered",
    against: str = "git HEAD",
    failover: Sequence[Line] = (),
    exceptions: Sequence[ExceptionDate] = (),
) -> list[Line]:
    """The whole text: errors, the blocks, other files, tenants, ``failover`` (the failures
    the change makes worse), ``exceptions`` (the bundle's, on the plan's day), the summary
    line. Without ``everything``, only what changes and
    what a rule denies; ``diffs``: show them."""
    lines = [Line(f"error: {f.render()}", "deny", 4) for f in findings]

    def shown(change: AppChange | TemplateChange) -> bool:
        return (
            everything
            or change.action != "none"
            or any(v.denies or v.violation.enforced == "deny" for v in change.violations)
        )

    seen: set[str] = set()

    def diff(path: str) -> list[Line]:
        """A hand-written file's diff, under the first block that shows it."""
        if diffs is None or path in seen:
            return []
        seen.add(path)
        return diff_lines(diffs.get(path, ""))

    blocks = [app_block(a, diffs) for a in apps if shown(a)]
    for template in templates:
        side = template.after or template.before
        if shown(template) and side is not None:
            blocks.append([*template_block(template), *diff(side.manifest.file)])
    if summary.changes:
        lines += [Line(f"Changes against {against} (+ add, ~ change, - remove):"), Line("")]
    for block in blocks:
        lines += [*block, Line("")]
    if policies:
        lines.append(Line("Hand-written Karmada policies that change:"))
        for policy in policies:
            text = f"  {SYMBOLS[policy.action]} {policy.label}  ({tree}/{policy.file})"
            lines += [Line(text, policy.action, 6), *diff(policy.file)]
        lines.append(Line(""))
    if others:
        lines.append(Line(f"Other files of {tree}/ that change:"))
        for path, action in sorted(others.items()):
            lines.append(Line(f"  {SYMBOLS[action]} {tree}/{path}", action, 6))
            lines += diff_lines(diffs.get(path, "")) if diffs is not None else []
        lines.append(Line(""))
    touched = {a.tenant for a in apps if a.action != "none"}
    billed = [
        line
        for bill, before, most in tenants
        if everything
        or bill.tenant in touched
        or (before is not None and dict(before) != dict(bill.used))  # a template changed it
        or any(_over(bill, r) for r in ("cpu", "memory"))
        for line in (tenant_line(bill, before), ceiling_line(bill, most))
    ]
    if billed:
        lines += [*billed, Line("")]
    lines += staged_lines([*apps, *templates])
    lines += exception_lines(exceptions)
    lines += failover
    if not summary.changes:
        lines.append(Line(f"No changes: the rendered tree plans as it does at {against}."))
    lines.append(summary_line(summary))
    return lines


def tree_report(
    templates: Sequence[TemplateResult],
    findings: Sequence[Finding],
    warnings: Sequence[Finding] = (),
) -> list[Line]:
    """``plan --tree``: every template as it is (no git HEAD to compare with), one verdict."""
    lines = [Line(f"error: {f.render()}", "deny", 4) for f in findings]
    lines += [Line(f"warning: {f.render()}", "warn", 4) for f in warnings]
    changes = [TemplateChange(t.manifest.identity, "none", t) for t in templates]
    for change in changes:
        lines += [*template_block(change, symbol=False), Line("")]
    lines += staged_lines(changes)
    denied = sum(1 for t in templates if t.denied)
    verdict = (
        f"{denied} with a member copy the rules deny" if denied else "every member copy admitted"
    )
    invalid = f"; {plural(len(findings), 'manifest')} invalid" if findings else ""
    style = "deny" if denied or findings else "bold"
    planned = plural(len(templates), "template")
    return [*lines, Line(f"{planned} planned; {verdict}{invalid}", style)]


def finish(lines: Iterable[Line], color: bool) -> list[str]:
    """The lines as written: control characters escaped, fitted to the width, coloured."""
    out = []
    for line in lines:
        text = printable(line.text)
        pieces = [cut(text)] if line.cut else wrap(text, line.hang)
        code = CYAN if line.style == "hunk" else STYLES.get(line.style, "")
        out += [f"{code}{p}{RESET}" if color and code else p for p in pieces]
    return out

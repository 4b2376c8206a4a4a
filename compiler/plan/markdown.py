"""``fedgate plan --output markdown``: the plan as a pull-request comment.

Denials first, then what staged rules would deny once enforced, then per app what changes per
cluster, the tenants' bills against their quota, the other changes, and the detail (each app's
copies and diffs) in collapsed ``<details>``. A comment holds at most 65,536 characters on
GitHub: the detail is dropped from the end first, then table rows, and the comment says where it
was cut and how to see the rest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from compiler.plan.failovertext import duration
from compiler.plan.failoverview import (
    FailoverView,
    FindingRow,
    TemplateRow,
    failover_view,
    load_text,
    worse_rows,
)
from compiler.plan.text import _counts
from compiler.plan.view import CEILING, AppRow, Denial, View, view

LIMIT = 65_536
"""GitHub's limit on a comment's body, in characters."""
FENCE = "````"


def _cell(text: str) -> str:
    """Text safe in a table cell: pipes escaped, no line breaks, no HTML."""
    clean = " ".join(str(text).split()).replace(" -> ", " → ")
    return (
        clean.replace("\\", "\\\\")
        .replace("|", "\\|")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("`", "'")
    )


def _code(text: str) -> str:
    return f"`{_cell(text)}`" if text else ""


def _heading(v: View) -> list[str]:
    mark = "❌" if v.denies else "✅"
    return [f"### {mark} fedgate plan", "", f"**{_cell(v.summary)}**", ""]


def _table(title: str, headers: list[str], rows: list[list[str]], intro: str = "") -> list[str]:
    """A section: its heading, a sentence, and a table (cells already made safe)."""
    lines = [f"#### {title}", "", *([intro, ""] if intro else [])]
    lines.append("|" + "|".join(f" {h} " if h else " " for h in headers) + "|")
    lines.append("|" + "---|" * len(headers))
    lines += [f"| {' | '.join(cells)} |" for cells in rows]
    return [*lines, ""]


def _cells(d: Denial) -> list[str]:
    return [_cell(d.app), _cell(d.cluster), _code(d.rule), _cell(d.message)]


def _mark(action: str) -> str:
    return "❌ deny" if action == "deny" else "⚠️ " + _cell(action)


def _denials(v: View) -> list[str]:
    if not v.denials:
        return []
    return _table(
        "Denials and warnings",
        ["", "app", "cluster", "rule", "message"],
        [[_mark(d.action), *_cells(d)] for d in v.denials],
    )


def _staged(v: View) -> list[str]:
    if not v.staged:
        return []
    return _table(
        "Staged rules",
        ["once enforced", "now", "app", "cluster", "rule", "message"],
        [[_mark(d.enforced), _cell(d.action), *_cells(d)] for d in v.staged],
        "What these rules would do once enforced (their action at the plan is weaker for now):",
    )


def _exceptions(v: View) -> list[str]:
    if not v.exceptions:
        return []
    return _table(
        "Exceptions",
        ["exception", "lifts", "in", "owner", "in force"],
        [
            [
                _cell(e.name),
                _cell(", ".join(e.rules)),
                _cell(", ".join(e.namespaces)),
                _cell(e.owner),
                _cell(e.left),
            ]
            for e in v.exceptions
        ],
        "The bundle's exceptions on the plan's day (what each lets through now: `fedgate audit`):",
    )


def _images(row: AppRow) -> str:
    shown = []
    for copy in row.copies:
        now = ", ".join(copy.images)
        if copy.before_images is not None and copy.images != copy.before_images:
            then = ", ".join(copy.before_images) or "none"
            shown.append(f"{copy.cluster}: {_code(now)} (was {_code(then)})")
        else:
            shown.append(f"{copy.cluster}: {_code(now)}")
    return "<br>".join(shown)


def _apps(v: View) -> list[str]:
    if not v.apps:
        return []
    lines = [
        "#### Apps",
        "",
        "| | app | tenant | replicas per cluster | images |",
        "|---|---|---|---|---|",
    ]
    for row in v.apps:
        symbol = {"+": "added", "~": "changed", "-": "removed"}.get(row.symbol, "")
        lines.append(
            f"| {symbol} | {_cell(row.key)} | {_cell(row.tenant or '')} "
            f"| {_cell(row.placement())} | {_images(row)} |"
        )
    return [*lines, ""]


def _tenants(v: View) -> list[str]:
    if not v.tenants:
        return []
    lines = [
        "#### Tenants' bills",
        "",
        f"| tenant | cpu | memory | {CEILING} |",
        "|---|---|---|---|",
    ]
    for t in v.tenants:
        cells = []
        for usage in t.usage:
            text = _cell(usage.describe())
            cells.append(f"**{text}**" if usage.over else text)
        cells.append(_cell(t.ceiling()))
        lines.append(f"| {_cell(t.tenant)} | {' | '.join(cells)} |")
    return [*lines, ""]


def _others(v: View) -> list[str]:
    if not v.others and not v.errors:
        return []
    lines = ["#### Other changes", ""]
    lines += [f"- `{symbol}` {_cell(what)}" for symbol, what in v.others]
    lines += [f"- ❌ invalid: {_cell(error)}" for error in v.errors]
    return [*lines, ""]


def _detail(row: AppRow, diffs: Mapping[str, str]) -> list[str]:
    lines = [f"<details><summary>{_cell(row.key)}: per cluster</summary>", ""]
    lines += ["| cluster | replicas | images | overrides |", "|---|---|---|---|"]
    for copy in row.copies:
        count = "all" if copy.replicas is None else str(copy.replicas)
        lines.append(
            f"| {_cell(copy.cluster)} | {count} | {_cell(', '.join(copy.images))} "
            f"| {_cell(', '.join(copy.overrides) or 'none')} |"
        )
    lines.append("")
    for cluster, diff in row.diffs().items():
        lines += [f"What {_cell(cluster)} receives, HEAD to now:", "", f"{FENCE}diff"]
        lines += [diff.rstrip("\n").replace(FENCE, "` ` ` `"), FENCE, ""]
    for path in sorted(row.files):
        text = diffs.get(path)
        if text:
            lines += [f"`{_cell(path)}`:", "", f"{FENCE}diff"]
            lines += [text.rstrip("\n").replace(FENCE, "` ` ` `"), FENCE, ""]
    return [*lines, "</details>", ""]


def _cut_note(shown: int, total: int, what: str) -> str:
    return (
        f"> ✂️ Cut here to fit GitHub's {LIMIT:,}-character comment: {total - shown} of "
        f"{total} {what} not shown. Run `fedgate plan` (or `--output html`) for the whole plan."
    )


def render(document: Mapping[str, Any], *, everything: bool = False) -> str:
    """The comment, at most ``LIMIT`` characters."""
    v = view(document, everything=everything)
    head = [*_heading(v), *_denials(v), *_staged(v), *_exceptions(v)]
    apps = _apps(v)
    tail = [*_worse(document), *_tenants(v), *_others(v)]
    footer = ["<sub>fedgate plan --output markdown</sub>", ""]
    diffs = document.get("diff", {})
    details = (_detail(row, diffs) for row in v.apps)
    reserve = len(_cut_note(0, 10**9, "app details")) + 200

    def size(lines: list[str]) -> int:
        return sum(len(line) + 1 for line in lines)

    body = [*head, *apps, *tail]
    room = LIMIT - size(footer) - reserve
    if size(body) > room:  # even the tables do not fit: cut rows
        kept: list[str] = []
        used = 0
        for line in body:
            if used + len(line) + 1 > room:
                kept += ["", _cut_note(len(kept), len(body), "lines of the tables")]
                break
            kept.append(line)
            used += len(line) + 1
        return "\n".join([*kept, "", *footer])
    out = list(body)
    used = size(out)
    if v.apps:
        out += ["#### Detail", ""]
    for shown, block in enumerate(details):
        if used + size(block) > room:
            out += [_cut_note(shown, len(v.apps), "app details"), ""]
            break
        out += block
        used += size(block)
    return "\n".join([*out, *footer])


def _findings(rows: Sequence[FindingRow], *, failed: bool = False) -> list[str]:
    """Findings as a table, deny first (``failed``: with the failure each comes from)."""
    columns = ["", *(["if this fails"] if failed else []), "rule", "about", "message"]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for f in rows:
        mark = "❌ deny" if f.action == "deny" else "⚠️ " + _cell(f.action)
        cells = [mark, *([_cell(f.failed)] if failed else [])]
        cells += [_code(f.rule), _cell(f.subject), _cell(f.message)]
        lines.append("| " + " | ".join(cells) + " |")
    return [*lines, ""]


def _worse(document: Mapping[str, Any]) -> list[str]:
    """The everyday plan's section: single-cluster failures the change makes worse."""
    rows = worse_rows(document)
    if not rows:
        return []
    against = (document.get("failover") or {}).get("against", "the base")
    return [
        f"#### If a cluster fails: worse than at {_cell(against)}",
        "",
        *_findings(rows, failed=True),
    ]


def _eviction_cell(row: TemplateRow) -> str:
    parts = []
    for e in row.evictions:
        text = f"{e.cluster}: {e.reason}"
        if e.purge:
            text += f"; purgeMode {e.purge}"
        if e.queue is not None:
            text += f"; queue {_window(*e.queue)} after the taint"
        parts.append(_cell(text))
    return "<br>".join(parts)


def _window(earliest: float, latest: float) -> str:
    if earliest == latest:
        return f"at {duration(earliest)}"
    return f"{duration(earliest)} to {duration(latest)}"


def _failover_rows(v: FailoverView) -> list[str]:
    rows = []
    for t in v.templates:
        tags = [x for x in (t.tenant, "stateful" if t.stateful else None) if x]
        replicas = _cell(t.placement())
        if t.alternative is not None:
            replicas += f"<br>or, by the template UID: {_cell(_counts(t.alternative, t.before))}"
        more = "<br>".join(_cell(x) for x in (*t.twice, *t.notes))
        rows.append(
            f"| {'~' if t.evicted else ''} | {_cell(t.key)} | {_cell(', '.join(tags))} "
            f"| {replicas} | {_eviction_cell(t)} | {more} |"
        )
    return rows


def _loads(v: FailoverView) -> list[str]:
    if not v.loads:
        return []
    lines = [
        "#### The clusters left, requested against allocatable",
        "",
        "| cluster | cpu | memory | pods |",
        "|---|---|---|---|",
    ]
    for load in v.loads:
        cells = []
        for resource in ("cpu", "memory", "pods"):
            text = _cell(load_text(load, resource))
            cells.append(f"**{text} OVER**" if resource in load.over else text)
        lines.append(f"| {_cell(load.cluster)} | {' | '.join(cells)} |")
    return [*lines, ""]


def render_failover(document: Mapping[str, Any]) -> str:
    """``plan --fail --output markdown``: the failover plan as a comment, at most ``LIMIT``
    characters: the denials, the clusters left and the storm first, then a row per template
    on the failed clusters, cut (with a note) where the comment would grow too long."""
    v = failover_view(document)
    mark = "❌" if v.denies else "✅"
    lines = [
        f"### {mark} fedgate plan --fail {_cell(', '.join(v.failed))}",
        "",
        f"**{_cell(v.summary)}**",
        "",
        f"Evictions: {_cell(v.evictions)}",
        "",
    ]
    if v.findings:
        lines += ["#### Denials and warnings", "", *_findings(v.findings)]
    lines += _loads(v)
    if v.storm or v.notes:
        lines += ["#### The eviction storm and notes", ""]
        lines += [f"- {_cell(s)}" for s in v.storm]
        lines += [f"- {_cell(n)}" for n in v.notes]
        lines.append("")
    footer = ["<sub>fedgate plan --fail --output markdown</sub>", ""]
    rows = _failover_rows(v)
    note = (
        f"> ✂️ Cut here to fit GitHub's {LIMIT:,}-character comment: {{left}} of {len(rows)} "
        "templates not shown. Run `fedgate plan --fail` (or `--output html`) for the whole plan."
    )
    room = LIMIT - sum(len(line) + 1 for line in (*lines, *footer)) - len(note) - 200
    if rows:
        head = [
            "#### Templates on the failed clusters",
            "",
            "| | template | tenant | replicas | eviction | twice and notes |",
            "|---|---|---|---|---|---|",
        ]
        used = sum(len(line) + 1 for line in head)
        shown: list[str] = []
        for row in rows:
            if used + len(row) + 1 > room:
                break
            shown.append(row)
            used += len(row) + 1
        lines += [*head, *shown, ""]
        if len(shown) < len(rows):
            lines += [note.replace("{left}", str(len(rows) - len(shown))), ""]
    return "\n".join([*lines, *footer])[:LIMIT]

"""``fedgate plan --output html``: the plan as one self-contained page.

A placement chart per app (replicas per cluster, now against git HEAD), the quota bars per
tenant, the denials first (then what staged rules would deny once enforced), and what each
member receives as a diff of its object, HEAD to now. No script, no network: styles and charts
(inline SVG) are in the file, and a Content Security Policy forbids loading anything else. Every
number drawn carries the JSON plan's value in a ``data-`` attribute, so a test can read the page
back against ``--output json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from html import escape
from typing import Any

from compiler.plan.failovertext import duration
from compiler.plan.failoverview import (
    FindingRow,
    LoadRow,
    TemplateRow,
    failover_view,
    load_text,
    worse_rows,
)
from compiler.plan.text import _counts
from compiler.plan.view import (
    CEILING,
    AppRow,
    Denial,
    TenantRow,
    Usage,
    View,
    bars,
    share,
    view,
)
from webhook.base.quantity import parse_quantity

STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:72em;padding:0 1em;color:#1f2328}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:2em;border-bottom:1px solid #d0d7de}
.summary{font-weight:600;padding:.6em .8em;border-radius:6px;background:#ddf4ff}
.summary.deny{background:#ffebe9;color:#82071e}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #d0d7de;padding:.3em .6em;
text-align:left;vertical-align:top}th{background:#f6f8fa}
.app{border:1px solid #d0d7de;border-radius:6px;padding:.6em 1em;margin:1em 0}
.app h3{margin:.2em 0 .5em;font-size:1.05em}.sym{font-family:monospace;margin-right:.4em}
.add{color:#1a7f37}.change{color:#9a6700}.remove{color:#cf222e}
code,pre{font-family:ui-monospace,monospace;font-size:12.5px}
pre{background:#f6f8fa;padding:.6em;overflow-x:auto}pre .a{color:#1a7f37}pre .d{color:#cf222e}
.deny td:first-child{color:#cf222e;font-weight:600}.over{color:#cf222e;font-weight:600}
svg text{font:12px system-ui,sans-serif}
"""
CSP = "default-src 'none'; style-src 'unsafe-inline'"
ACTIONS = {"add": "+", "change": "~", "remove": "-", "none": ""}
BAR_WIDTH = 360
ROW = 22


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _placement_chart(row: AppRow, scale: int) -> str:
    """Horizontal bars: a cluster a row, the count now filled, HEAD's as an outline."""
    label = 110
    height = ROW * max(1, len(row.copies)) + 4
    parts = [
        f'<svg class="placement" role="img" width="{label + BAR_WIDTH + 90}" '
        f'height="{height}" aria-label="replicas per cluster of {_e(row.key)}">'
    ]
    for index, copy in enumerate(row.copies):
        y = index * ROW + 2
        now = copy.replicas or 0
        width = round(BAR_WIDTH * now / scale) if copy.replicas is not None else BAR_WIDTH
        before = "" if copy.before_replicas is None else f' data-before="{copy.before_replicas}"'
        count = "all" if copy.replicas is None else str(copy.replicas)
        parts.append(
            f'<g class="copy" data-app="{_e(row.key)}" data-cluster="{_e(copy.cluster)}" '
            f'data-replicas="{"" if copy.replicas is None else copy.replicas}"{before}>'
            f'<text x="0" y="{y + 14}">{_e(copy.cluster)}</text>'
            f'<rect x="{label}" y="{y}" width="{width}" height="{ROW - 6}" fill="#54aeff">'
            f"<title>{_e(copy.cluster)}: {count}</title></rect>"
        )
        if copy.before_replicas is not None and copy.before_replicas != copy.replicas:
            old = round(BAR_WIDTH * copy.before_replicas / scale)
            parts.append(
                f'<rect x="{label}" y="{y}" width="{old}" height="{ROW - 6}" fill="none" '
                f'stroke="#1f2328" stroke-dasharray="3 2"><title>at git HEAD: '
                f"{copy.before_replicas}</title></rect>"
            )
        was = (
            f" (was {copy.before_replicas})"
            if copy.before_replicas is not None and copy.before_replicas != copy.replicas
            else ""
        )
        parts.append(
            f'<text x="{label + width + 6}" y="{y + 14}" class="count">{count}{was}</text></g>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _diff(text: str) -> str:
    lines = []
    for line in text.splitlines():
        css = "a" if line.startswith("+") else "d" if line.startswith("-") else ""
        lines.append(f'<span class="{css}">{_e(line)}</span>' if css else _e(line))
    return "<pre>" + "\n".join(lines) + "</pre>"


def _app(row: AppRow, scale: int, diffs: Mapping[str, str]) -> str:
    symbol = ACTIONS.get(row.action, "")
    title = (
        f'<h3 class="{_e(row.action)}"><span class="sym">{_e(symbol)}</span>{_e(row.key)}'
        f" <small>tenant {_e(row.tenant or '?')}, {_e(row.mode or '')}</small></h3>"
    )
    images = "".join(
        f"<tr><td>{_e(c.cluster)}</td><td>{'all' if c.replicas is None else c.replicas}</td>"
        f"<td><code>{_e(', '.join(c.images))}</code>"
        + (
            f" (was <code>{_e(', '.join(c.before_images) or 'none')}</code>)"
            if c.before_images is not None and c.images != c.before_images
            else ""
        )
        + f"</td><td>{_e(', '.join(c.overrides) or 'none')}</td></tr>"
        for c in row.copies
    )
    removed = "".join(
        f"<tr><td>{_e(c)}</td><td colspan=3>receives nothing now</td></tr>"
        for c in row.removed_from
    )
    table = (
        "<table><tr><th>cluster</th><th>replicas</th><th>images</th><th>overrides</th></tr>"
        f"{images}{removed}</table>"
    )
    detail = "".join(
        f"<details><summary>{_e(cluster)}: what it receives, HEAD to now</summary>"
        f"{_diff(text)}</details>"
        for cluster, text in row.diffs().items()
    )
    detail += "".join(
        f"<details><summary>{_e(path)}</summary>{_diff(diffs[path])}</details>"
        for path in sorted(row.files)
        if diffs.get(path)
    )
    return (
        f'<section class="app" data-app="{_e(row.key)}" data-action="{_e(row.action)}">'
        f"{title}{_placement_chart(row, scale)}{table}{detail}</section>"
    )


def _quota_bar(tenant: str, usage: Usage, json_usage: Mapping[str, Any]) -> str:
    part = share(usage)
    width = 300
    fill = round(width * min(part, Fraction(1))) if part is not None else 0
    before = ""
    if usage.before is not None and usage.quota:
        x = round(width * min(usage.before / usage.quota, Fraction(1)))
        before = (
            f'<line x1="{x}" x2="{x}" y1="0" y2="18" stroke="#1f2328" stroke-width="2">'
            "<title>at git HEAD</title></line>"
        )
    color = "#cf222e" if usage.over else "#2da44e"
    used = json_usage.get("used", {}).get(usage.resource, "0")
    quota = json_usage.get("quota", {}).get(usage.resource)
    attributes = (
        f'data-tenant="{_e(tenant)}" data-resource="{_e(usage.resource)}" '
        f'data-used="{_e(used)}" data-quota="{_e(quota if quota is not None else "")}"'
    )
    css = ' class="over"' if usage.over else ""
    return (
        f'<div class="quota" {attributes}><span{css}>{_e(usage.resource)} '
        f"{_e(usage.describe())}</span><br>"
        f'<svg role="img" width="{width}" height="18" aria-label="{_e(usage.resource)} of '
        f'{_e(tenant)}"><rect width="{width}" height="18" fill="#eaeef2"/>'
        f'<rect width="{fill}" height="18" fill="{color}"/>{before}</svg></div>'
    )


def _tenants(rows: tuple[TenantRow, ...], document: Mapping[str, Any]) -> str:
    if not rows:
        return ""
    by_name = {t["tenant"]: t for t in document.get("tenants", ())}
    cells = "".join(
        f'<tr data-tenant="{_e(t.tenant)}"><td>{_e(t.tenant)}</td>'
        + "".join(f"<td>{_quota_bar(t.tenant, u, by_name[t.tenant])}</td>" for u in t.usage)
        + _ceiling_cell(t.tenant, t, by_name[t.tenant])
        + "</tr>"
        for t in rows
    )
    return (
        "<h2>Tenants' bills against their quota</h2>"
        "<table><tr><th>tenant</th><th>cpu</th><th>memory</th>"
        f"<th>{_e(CEILING)}</th></tr>{cells}</table>"
    )


def _ceiling_cell(tenant: str, row: TenantRow, json_tenant: Mapping[str, Any]) -> str:
    """What the tenant's apps may grow to, with the JSON's amounts as data attributes."""
    ceiling = json_tenant.get("ceiling") or {}
    attributes = "".join(f' data-{r}="{_e(ceiling.get(r, ""))}"' for r in ("cpu", "memory"))
    return f'<td class="ceiling" data-tenant="{_e(tenant)}"{attributes}>{_e(row.ceiling())}</td>'


def _table(headers: list[str], rows: list[tuple[str, list[str]]]) -> str:
    """A table: each row's class and its cells (already escaped)."""
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join(
        f'<tr class="{_e(style)}">' + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"
        for style, cells in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def _cells(d: Denial) -> list[str]:
    return [_e(d.app), _e(d.cluster), f"<code>{_e(d.rule)}</code>", _e(d.message)]


def _denials(v: View) -> str:
    if not v.denials:
        return ""
    rows = [(d.action, [_e(d.action), *_cells(d)]) for d in v.denials]
    return "<h2>Denials and warnings</h2>" + _table(["", "app", "cluster", "rule", "message"], rows)


def _staged(v: View) -> str:
    if not v.staged:
        return ""
    rows = [(d.enforced, [_e(d.enforced), _e(d.action), *_cells(d)]) for d in v.staged]
    return (
        '<h2 id="staged">Staged rules</h2><p>What these rules would do once enforced (their '
        "action at the plan is weaker for now):</p>"
        + _table(["once enforced", "now", "app", "cluster", "rule", "message"], rows)
    )


def _exceptions(v: View) -> str:
    if not v.exceptions:
        return ""
    rows = [
        (
            "deny" if e.status == "expired" else "warn" if e.status == "expiring" else "",
            [
                _e(e.name),
                _e(", ".join(e.rules)),
                _e(", ".join(e.namespaces)),
                _e(e.owner),
                _e(e.left),
            ],
        )
        for e in v.exceptions
    ]
    return (
        "<h2 id=\"exceptions\">Exceptions</h2><p>The bundle's exceptions on the plan's day (what "
        "each lets through now: <code>fedgate audit</code>):</p>"
        + _table(["exception", "lifts", "in", "owner", "in force"], rows)
    )


def _others(v: View) -> str:
    if not v.others and not v.errors:
        return ""
    items = "".join(f"<li><code>{_e(s)}</code> {_e(what)}</li>" for s, what in v.others)
    items += "".join(f'<li class="remove">invalid: {_e(e)}</li>' for e in v.errors)
    return f"<h2>Other changes</h2><ul>{items}</ul>"


def render(document: Mapping[str, Any], *, everything: bool = False) -> str:
    """The page."""
    v = view(document, everything=everything)
    scale = bars(v.apps)
    diffs = document.get("diff", {})
    apps = "".join(_app(row, scale, diffs) for row in v.apps)
    body = (
        _denials(v)
        + _staged(v)
        + _exceptions(v)
        + (f"<h2>Apps</h2>{apps}" if apps else "<p>No app changes.</p>")
        + f"{_worse(document)}{_tenants(v.tenants, document)}{_others(v)}"
    )
    return _page("fedgate plan", v.summary, bool(v.denies), body)


def _page(title: str, summary: str, denied: bool, body: str) -> str:
    state = " deny" if denied else ""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{STYLE}</style></head><body>"
        f"<h1>{_e(title)}</h1>"
        f'<p class="summary{state}" id="summary">{_e(summary)}</p>{body}'
        "</body></html>\n"
    )


def _findings(rows: tuple[FindingRow, ...], *, failed: bool = False) -> str:
    head = "<th></th>" + ("<th>if this fails</th>" if failed else "")
    cells = "".join(
        f'<tr class="{_e(f.action)}" data-rule="{_e(f.rule)}" data-about="{_e(f.subject)}">'
        f"<td>{_e(f.action)}</td>"
        + (f"<td>{_e(f.failed)}</td>" if failed else "")
        + f"<td><code>{_e(f.rule)}</code></td><td>{_e(f.subject)}</td><td>{_e(f.message)}</td></tr>"
        for f in rows
    )
    return f"<table><tr>{head}<th>rule</th><th>about</th><th>message</th></tr>{cells}</table>"


def _worse(document: Mapping[str, Any]) -> str:
    rows = worse_rows(document)
    if not rows:
        return ""
    against = (document.get("failover") or {}).get("against", "the base")
    return (
        f'<h2 id="failover-worse">If a cluster fails: worse than at {_e(against)}</h2>'
        f"{_findings(rows, failed=True)}"
    )


def _count_label(placement: Mapping[str, int | None], cluster: str) -> str:
    """A count as the chart writes it: ``all`` for a whole copy (a kind without replicas),
    ``none`` for no copy of it, else the number."""
    if cluster not in placement:
        return "none" if any(n is None for n in placement.values()) else "0"
    count = placement[cluster]
    return "all" if count is None else str(count)


def _moves_chart(row: TemplateRow, scale: int) -> str:
    """A cluster a row: the replicas after the failure filled, before it as an outline."""
    label = 110
    clusters = sorted({*row.before, *row.after})
    parts = [
        f'<svg class="placement" role="img" width="{label + BAR_WIDTH + 90}" '
        f'height="{ROW * max(1, len(clusters)) + 4}" '
        f'aria-label="replicas per cluster of {_e(row.key)}, before and after the failure">'
    ]
    after_map = row.after if row.evicted else row.before
    for index, cluster in enumerate(clusters):
        y = index * ROW + 2
        whole_now = cluster in after_map and after_map[cluster] is None  # a copy, no count
        whole_then = cluster in row.before and row.before[cluster] is None
        was, now = row.before.get(cluster) or 0, after_map.get(cluster) or 0
        width = BAR_WIDTH if whole_now else round(BAR_WIDTH * now / scale)
        old = BAR_WIDTH if whole_then else round(BAR_WIDTH * was / scale)
        shown, then = _count_label(after_map, cluster), _count_label(row.before, cluster)
        parts.append(
            f'<g class="move" data-template="{_e(row.key)}" data-cluster="{_e(cluster)}" '
            f'data-before="{"" if whole_then else was}" data-after="{"" if whole_now else now}">'
            f'<text x="0" y="{y + 14}">{_e(cluster)}</text>'
            f'<rect x="{label}" y="{y}" width="{width}" height="{ROW - 6}" fill="#54aeff">'
            f"<title>{_e(cluster)} after: {shown}</title></rect>"
            f'<rect x="{label}" y="{y}" width="{old}" height="{ROW - 6}" fill="none" '
            f'stroke="#1f2328" stroke-dasharray="3 2"><title>before: {then}</title></rect>'
            f'<text x="{label + max(width, old) + 6}" y="{y + 14}">'
            f"{then} &#8594; {shown}</text></g>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _failover_template(row: TemplateRow, scale: int) -> str:
    tags = ", ".join(x for x in (row.tenant, "stateful" if row.stateful else None) if x)
    items = []
    for e in row.evictions:
        text = e.reason + (f"; purgeMode {e.purge}" if e.purge else "")
        if e.queue is not None:
            earliest, latest = e.queue
            when = (
                f"at {duration(earliest)}"
                if earliest == latest
                else f"between {duration(earliest)} and {duration(latest)}"
            )
            text += f"; the queue takes it {when} after the taint"
        items.append(
            f'<li data-cluster="{_e(e.cluster)}" data-evicted="{str(e.evicted).lower()}">'
            f"<b>{_e(e.cluster)}</b>: {_e(text)}</li>"
        )
    items += [f"<li>twice: {_e(x)}</li>" for x in row.twice]
    items += [f"<li>note: {_e(x)}</li>" for x in row.notes]
    if row.alternative is not None:
        text = _counts(row.alternative, row.before)
        items.append(f"<li>or, by the template UID: {_e(text)}</li>")
    css = "change" if row.evicted else ""
    return (
        f'<section class="app" data-template="{_e(row.key)}">'
        f'<h3 class="{css}"><span class="sym">{"~" if row.evicted else ""}</span>{_e(row.key)}'
        f" <small>{_e(tags)}</small></h3>{_moves_chart(row, scale)}<ul>{''.join(items)}</ul>"
        "</section>"
    )


def _load(row: LoadRow) -> str:
    cells = []
    for resource in ("cpu", "memory", "pods"):
        cap = row.allocatable.get(resource)
        after = row.after.get(resource, 0)
        part = Fraction(0)
        if cap is not None and parse_quantity(str(cap)):
            part = parse_quantity(str(after)) / parse_quantity(str(cap))
        fill = round(200 * min(part, Fraction(1)))
        color = (
            "#cf222e" if resource in row.over else "#bf8700" if resource in row.tight else "#2da44e"
        )
        css = ' class="over"' if resource in row.over else ""
        bar = (
            f'<svg role="img" width="200" height="14" aria-label="{_e(resource)} of '
            f'{_e(row.cluster)}"><rect width="200" height="14" fill="#eaeef2"/>'
            f'<rect width="{fill}" height="14" fill="{color}"/></svg>'
            if cap is not None
            else ""
        )
        cells.append(
            f'<td class="load" data-cluster="{_e(row.cluster)}" data-resource="{resource}" '
            f'data-before="{_e(row.before.get(resource, 0))}" data-after="{_e(after)}" '
            f'data-allocatable="{_e("" if cap is None else cap)}"><span{css}>'
            f"{_e(load_text(row, resource).replace(' -> ', ' → '))}</span><br>{bar}</td>"
        )
    return f"<tr><td>{_e(row.cluster)}</td>{''.join(cells)}</tr>"


def render_failover(document: Mapping[str, Any]) -> str:
    """``plan --fail --output html``: one page, a chart per template on the failed clusters
    (replicas before and after), the clusters left against their allocatable, the storm."""
    v = failover_view(document)
    body = [f"<p>Evictions: {_e(v.evictions)}</p>"]
    if v.findings:
        body.append(f"<h2>Denials and warnings</h2>{_findings(v.findings)}")
    counts = [n or 0 for t in v.templates for n in (*t.before.values(), *t.after.values())]
    scale = max([1, *counts])
    if v.templates:
        body.append("<h2>Templates on the failed clusters</h2>")
        body += [_failover_template(t, scale) for t in v.templates]
    if v.loads:
        body.append(
            "<h2>The clusters left, requested against allocatable</h2><table><tr><th>cluster"
            "</th><th>cpu</th><th>memory</th><th>pods</th></tr>"
            + "".join(_load(row) for row in v.loads)
            + "</table>"
        )
    if v.storm or v.notes:
        items = "".join(f"<li>{_e(x)}</li>" for x in (*v.storm, *v.notes))
        body.append(f"<h2>The eviction storm and notes</h2><ul>{items}</ul>")
    title = f"fedgate plan --fail {', '.join(v.failed)}"
    return _page(title, v.summary, bool(v.denies), "".join(body))

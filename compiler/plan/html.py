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

from compiler.plan.view import AppRow, Denial, TenantRow, Usage, View, bars, share, view

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
        + "</tr>"
        for t in rows
    )
    return (
        "<h2>Tenants' bills against their quota</h2>"
        f"<table><tr><th>tenant</th><th>cpu</th><th>memory</th></tr>{cells}</table>"
    )


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
    state = " deny" if v.denies else ""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>fedgate plan</title><style>{STYLE}</style></head><body>"
        "<h1>fedgate plan</h1>"
        f'<p class="summary{state}" id="summary">{_e(v.summary)}</p>'
        f"{_denials(v)}{_staged(v)}"
        + (f"<h2>Apps</h2>{apps}" if apps else "<p>No app changes.</p>")
        + f"{_tenants(v.tenants, document)}{_others(v)}"
        "</body></html>\n"
    )

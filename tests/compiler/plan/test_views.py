"""The markdown and HTML views of a plan: drawn from the JSON document, denials first, every
value escaped, the comment under GitHub's limit with a clear cut, the page self-contained."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.plan import html, markdown
from compiler.plan.view import view


def deployment(replicas: int, image: str) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {
            "replicas": replicas,
            "template": {"spec": {"containers": [{"name": "web", "image": image}]}},
        },
    }


def document(
    apps: int = 1,
    *,
    message: str = "image docker.io/x:latest is not pinned",
    name: str = "web",
    diff_lines: int = 3,
) -> dict[str, Any]:
    found: list[dict[str, Any]] = []
    changed: list[dict[str, Any]] = []
    diffs: dict[str, str] = {}
    for index in range(apps):
        key = f"{name}-{index}" if apps > 1 else name
        path = f"shop/{key}/deployment.yaml"
        found.append(
            {
                "namespace": "shop",
                "name": key,
                "tenant": "team-a",
                "mode": "Divided",
                "owner": "git",
                "placement": {"a": 3, "b": 1},
                "clusters": {"a": deployment(3, "r.example/web:2"), "b": deployment(1, "r/w:2")},
                "overrides": {"b": ["OverridePolicy shop/web"]},
                "violations": {"b": [{"rule": "image-tag", "action": "deny", "message": message}]}
                if index == 0
                else {},
            }
        )
        changed.append(
            {
                "namespace": "shop",
                "name": key,
                "action": "change",
                "clusters": ["a"],
                "files": {path: "change"},
                "before": {
                    "placement": {"a": 2, "b": 1},
                    "bill": {},
                    "clusters": {
                        "a": deployment(2, "r.example/web:1"),
                        "b": deployment(1, "r/w:2"),
                    },
                },
            }
        )
        diffs[path] = "".join(
            f"-  replicas: {i}\n+  replicas: {i + 1}\n" for i in range(diff_lines)
        )
    return {
        "apps": found,
        "tenants": [
            {
                "tenant": "team-a",
                "used": {"cpu": "8100m", "memory": "9472Mi"},
                "quota": {"cpu": "20", "memory": "40Gi"},
                "left": {},
                "handWritten": {},
                "usedBefore": {"cpu": "7900m", "memory": "9Gi"},
                "ceiling": {"cpu": "12", "memory": "9472Mi"},
                "ceilingBefore": {"cpu": "11800m", "memory": "9472Mi"},
            },
            {
                "tenant": "team-b",
                "used": {"cpu": "41", "memory": "1Gi"},
                "quota": {"cpu": "40", "memory": "80Gi"},
                "left": {},
                "handWritten": {},
                "usedBefore": {"cpu": "41", "memory": "1Gi"},
            },
        ],
        "diff": diffs,
        "templates": [],
        "errors": [],
        "changes": {
            "apps": changed,
            "templates": [],
            "policies": [],
            "files": dict.fromkeys(diffs, "change"),
        },
        "summary": {
            "apps": {"add": 0, "change": apps, "remove": 0},
            "templates": {"add": 0, "change": 0, "remove": 0},
            "policies": 0,
            "otherFiles": 0,
            "clustersAffected": ["a"],
            "denies": 1,
            "warnings": 0,
            "invalid": 0,
            "changes": True,
        },
    }


def test_the_view_reads_the_document_as_the_text_plan_says_it() -> None:
    v = view(document())
    (row,) = v.apps
    assert row.placement() == "a 2 -> 3, b 1"
    assert [c.images for c in row.copies] == [("r.example/web:2",), ("r/w:2",)]
    assert row.copies[0].before_images == ("r.example/web:1",)
    assert [(d.cluster, d.rule) for d in v.denials] == [("b", "image-tag")]
    a, b = v.tenants  # team-b: its bill did not change, but it is over quota
    assert [u.describe() for u in a.usage] == ["7.9 -> 8.1 of 20", "9Gi -> 9.25Gi of 40Gi"]
    assert b.over and b.usage[0].describe() == "41 of 40 OVER QUOTA"
    assert a.ceiling() == "cpu 11.8 -> 12, memory 9.25Gi"
    assert b.ceiling() == ""  # a document without the ceiling (an older fedgate's)
    assert (
        v.summary == "Plan: 0 apps to add, 1 to change, 0 to remove; clusters affected: a; 1 deny."
    )


def test_the_comment_puts_denials_first_and_escapes_every_cell() -> None:
    text = markdown.render(document(message="a | b <script>alert(1)</script>\nnext line"))
    assert text.index("#### Denials") < text.index("#### Apps") < text.index("#### Tenants")
    assert "a \\| b &lt;script&gt;alert(1)&lt;/script&gt; next line" in text
    assert "<script>" not in text
    assert "| tenant | cpu | memory | ceiling (autoscalers' maximum) |" in text
    assert (
        "| team-a | 7.9 → 8.1 of 20 | 9Gi → 9.25Gi of 40Gi | cpu 11.8 → 12, memory 9.25Gi |" in text
    )
    assert "| team-b | **41 of 40 OVER QUOTA** | 1Gi of 80Gi |  |" in text
    assert "(was `r.example/web:1`)" in text


def test_a_huge_plan_is_cut_under_github_s_limit_and_says_so() -> None:
    text = markdown.render(document(400, diff_lines=40))
    assert len(text) <= markdown.LIMIT
    assert re.search(
        r"Cut here to fit GitHub's 65,536-character comment: \d+ of 400 app details", text
    )
    assert text.count("<details>") == text.count("</details>")
    lines = text.splitlines()
    assert lines.count("````diff") == lines.count("````") > 0  # every diff shown is closed


def test_even_the_tables_are_cut_when_they_do_not_fit() -> None:
    text = markdown.render(document(3000, diff_lines=1))
    assert len(text) <= markdown.LIMIT
    assert "lines of the tables not shown" in text
    assert text.index("#### Denials") < text.index("Cut here")


@settings(max_examples=25, deadline=None)
@given(
    apps=st.integers(min_value=0, max_value=200),
    lines=st.integers(min_value=0, max_value=60),
    name=st.text(st.characters(codec="utf-8"), min_size=1, max_size=80),
)
def test_no_plan_makes_a_comment_over_the_limit(apps: int, lines: int, name: str) -> None:
    text = markdown.render(document(apps, name=name, diff_lines=lines))
    assert len(text) <= markdown.LIMIT


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(page: str) -> _Page:
    parser = _Page()
    parser.feed(page)
    return parser


def test_the_page_is_self_contained_and_escapes_what_the_writer_controls() -> None:
    page = html.render(document(message='"><script>alert(1)</script><img src=http://x/y>'))
    parsed = parse(page)
    assert not [t for t, _ in parsed.tags if t in ("script", "img", "link", "iframe", "object")]
    assert not [a for _, a in parsed.tags if any(k in a for k in ("src", "href"))]
    csp = [a for t, a in parsed.tags if t == "meta" and a.get("http-equiv")]
    assert csp == [{"http-equiv": "Content-Security-Policy", "content": html.CSP}]
    assert "default-src 'none'" in html.CSP
    assert '"><script>alert(1)</script><img src=http://x/y>' in "".join(parsed.text)


@pytest.mark.parametrize("apps", [1, 5])
def test_every_number_drawn_is_the_json_s(apps: int) -> None:
    doc = document(apps)
    parsed = parse(html.render(doc))
    copies = {
        (a["data-app"], a["data-cluster"]): (a["data-replicas"], a.get("data-before"))
        for t, a in parsed.tags
        if t == "g" and a.get("class") == "copy"
    }
    expected = {}
    for app, change in zip(doc["apps"], doc["changes"]["apps"], strict=True):
        for cluster, obj in app["clusters"].items():
            before = change["before"]["clusters"][cluster]["spec"]["replicas"]
            expected[(f"shop/{app['name']}", cluster)] = (str(obj["spec"]["replicas"]), str(before))
    assert copies == expected
    quotas = {
        (a["data-tenant"], a["data-resource"]): (a["data-used"], a["data-quota"])
        for t, a in parsed.tags
        if t == "div" and a.get("class") == "quota"
    }
    assert quotas == {
        (t["tenant"], r): (t["used"][r], t["quota"][r])
        for t in doc["tenants"]
        for r in ("cpu", "memory")
    }
    ceilings = {
        a["data-tenant"]: (a["data-cpu"], a["data-memory"])
        for t, a in parsed.tags
        if t == "td" and a.get("class") == "ceiling"
    }
    assert ceilings == {
        t["tenant"]: (t.get("ceiling", {}).get("cpu", ""), t.get("ceiling", {}).get("memory", ""))
        for t in doc["tenants"]
    }


def _staged_document() -> dict[str, Any]:
    """An unchanged app whose copy on b a staged rule only warns of at the plan."""
    staged = document()
    staged["apps"][0]["violations"] = {
        "b": [{"rule": "image-tag", "action": "warn", "message": "x", "enforced": "deny"}]
    }
    staged["changes"]["apps"][0]["action"] = "none"
    return staged


def test_a_staged_rule_is_shown_with_what_it_would_do_once_enforced() -> None:
    v = view(_staged_document())
    assert [(d.app, d.cluster, d.action, d.enforced) for d in v.staged] == [
        ("shop/web", "b", "warn", "deny")
    ]
    assert [r.key for r in v.apps] == ["shop/web"]  # unchanged, shown: it would be denied
    text = markdown.render(_staged_document())
    assert text.index("#### Denials") < text.index("#### Staged rules") < text.index("#### Apps")
    assert "| ❌ deny | warn | shop/web | b | `image-tag` | x |" in text
    page = html.render(_staged_document())
    assert (
        '<tr class="deny"><td>deny</td><td>warn</td><td>shop/web</td><td>b</td>'
        "<td><code>image-tag</code></td><td>x</td></tr>"
    ) in page
    assert page.index('id="staged"') < page.index("<h2>Apps</h2>")


def test_no_staged_section_without_a_staged_rule() -> None:
    assert view(document()).staged == []
    assert "Staged rules" not in markdown.render(document())
    assert 'id="staged"' not in html.render(document())

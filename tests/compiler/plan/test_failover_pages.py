"""``plan --fail --output markdown|html`` and the everyday plan's failover section: drawn from
the JSON document, every number on the page is one of the JSON plan's (read back here); and
headless Chromium shows the page without a console error."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from compiler.plan.failovertext import as_json
from compiler.plan.html import render_failover as html_page
from compiler.plan.markdown import LIMIT
from compiler.plan.markdown import render_failover as markdown_comment
from tests.compiler.commands.pages import CHROMIUM, FLAGS, Page
from tests.compiler.plan.golden import matches_golden
from tests.compiler.plan.test_failover import (
    KARMADA_ON,
    ONE_ON_A,
    STATIC,
    deployment,
    one_cpu_on_b,
    plan_fail,
    policy,
    run,
)
from tests.helpers import git
from webhook.bundle.model import Bundle

GRACEFUL = "  failover: {cluster: {purgeMode: Gracefully}}\n"


@pytest.fixture
def document(bundle: Bundle) -> dict[str, Any]:
    """cluster-a fails: web (static weights) moves, db (stateful, Gracefully) runs twice and
    denies, cluster-b is over its declared cpu."""
    plan = run(
        one_cpu_on_b(bundle),
        (
            deployment("web", 8, cpu="300m"),
            policy("web", STATIC),
            deployment("db", 1, stateful=True),
            policy("db", ONE_ON_A, GRACEFUL),
        ),
    )
    return json.loads(json.dumps(as_json(plan)))


def page_numbers(page: str) -> tuple[dict[Any, Any], dict[Any, Any]]:
    parsed = Page()
    parsed.feed(page)
    moves = {
        (a["data-template"], a["data-cluster"]): (a["data-before"], a["data-after"])
        for t, a in parsed.tags
        if t == "g" and a.get("class") == "move"
    }
    loads = {
        (a["data-cluster"], a["data-resource"]): (
            a["data-before"],
            a["data-after"],
            a["data-allocatable"],
        )
        for t, a in parsed.tags
        if t == "td" and a.get("class") == "load"
    }
    return moves, loads


def count(placement: dict[str, int | None], cluster: str) -> str:
    """As the page writes a count: none for a whole copy (no replicas), 0 for no copy."""
    if cluster in placement and placement[cluster] is None:
        return ""
    return str(placement.get(cluster) or 0)


def json_numbers(document: dict[str, Any]) -> tuple[dict[Any, Any], dict[Any, Any]]:
    moves = {}
    for t in document["templates"]:
        key = f"{t['kind']} {t['namespace']}/{t['name']}"
        evicted = any(e["evicted"] for e in t["evictions"])
        after = t["placementAfter"] if evicted else t["placementBefore"]
        for cluster in {*t["placementBefore"], *after}:
            moves[key, cluster] = (count(t["placementBefore"], cluster), count(after, cluster))
    loads = {
        (c["cluster"], r): (
            str(c["before"].get(r, 0)),
            str(c["after"].get(r, 0)),
            str(c["allocatable"].get(r, "")),
        )
        for c in document["capacity"]
        for r in ("cpu", "memory", "pods")
    }
    return moves, loads


def test_the_page_draws_the_json_plan_s_numbers(document: dict[str, Any]) -> None:
    page = html_page(document)
    assert page_numbers(page) == json_numbers(document)
    assert page_numbers(page)[0][("Deployment payments/web", "cluster-a")] == ("4", "0")
    assert 'class="summary deny"' in page  # the split brain and cpu denials
    assert "default-src 'none'" in page and "<script" not in page


def test_the_comment_says_what_the_json_says(document: dict[str, Any]) -> None:
    comment = markdown_comment(document)
    assert comment.startswith("### ❌ fedgate plan --fail cluster-a\n")
    assert f"**{document['summary']}**" in comment
    denials = comment.split("#### Denials and warnings", 1)[1].split("####", 1)[0]
    assert denials.count("| ❌ deny |") == 2
    assert "`failover.split-brain`" in denials and "`failover.capacity`" in denials
    assert "| ~ | Deployment payments/web | team-b | cluster-a 4 → 0, cluster-b 2 → 4, " in comment
    over = next(c for c in document["capacity"] if c["cluster"] == "cluster-b")
    assert over["over"] == ["cpu"]
    assert f"**{over['before']['cpu']} → {over['after']['cpu']} of 1 OVER**" in comment


@pytest.mark.slow
def test_the_everyday_plan_flags_a_failure_made_worse(platform_repo: Path) -> None:
    """A pull request narrowing orders-db to cluster-a: with failover on, cluster-a's failure
    leaves it nowhere; every output of ``plan --base`` says so, and ``plan`` without --base
    does not compare."""
    (platform_repo / "policies" / "karmada.yaml").write_text(KARMADA_ON)
    git(platform_repo, "add", "-A")
    git(platform_repo, "commit", "-qm", "failover on")
    git(platform_repo, "tag", "base")
    base = "base"
    git(platform_repo, "checkout", "-qb", "narrow")
    spec = platform_repo / "apps" / "orders-db.yaml"
    spec.write_text(
        spec.read_text()
        .replace("clusters: [cluster-a, cluster-b]", "clusters: [cluster-a]")
        .replace("weights: {cluster-a: 2, cluster-b: 1}", "weights: {cluster-a: 1}")
    )
    code, text, err = plan_fail("--base", base)
    assert (code, err) == (0, ""), err
    section = text.split(f"If a cluster fails, worse than at {base} (merge base ", 1)[1]
    assert "warn   if cluster-a fails: [failover.nowhere] Deployment platform-demo/orders-db" in (
        section
    )
    code, out, _ = plan_fail("--base", base, "--output", "json")
    [entry] = json.loads(out)["failover"]["worse"]
    assert (entry["failed"], entry["rule"]) == (["cluster-a"], "failover.nowhere")
    _, comment, _ = plan_fail("--base", base, "--output", "markdown")
    assert f"#### If a cluster fails: worse than at {base}" in comment
    assert "| ⚠️ warn | cluster-a | `failover.nowhere` | Deployment platform-demo/orders-db |" in (
        comment
    )
    _, page, _ = plan_fail("--base", base, "--output", "html")
    assert 'data-rule="failover.nowhere" data-about="Deployment platform-demo/orders-db"' in page
    _, head, _ = plan_fail("--output", "json")
    assert "failover" not in json.loads(head)  # against git HEAD alone: not compared


@pytest.mark.slow
def test_plan_fail_writes_the_comment_and_the_page(platform_repo: Path) -> None:
    (platform_repo / "policies" / "karmada.yaml").write_text(KARMADA_ON)
    code, out, _ = plan_fail("--fail", "cluster-a", "--output", "json")
    document = json.loads(out)
    code, comment, err = plan_fail("--fail", "cluster-a", "--output", "markdown")
    assert (code, err) == (0, "")
    assert comment == markdown_comment(document)
    code, page, err = plan_fail("--fail", "cluster-a", "--output", "html")
    assert (code, err) == (0, "")
    assert page_numbers(page) == json_numbers(document)
    assert len(page_numbers(page)[0]) >= 8


@pytest.mark.slow
@pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium is not installed (.ci/run installs it)"
)
def test_chromium_shows_the_failover_page_without_a_console_error(
    document: dict[str, Any], tmp_path: Path
) -> None:
    page = tmp_path / "fail.html"
    page.write_text(html_page(document))
    dom = subprocess.run(
        [
            str(CHROMIUM),
            *FLAGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert not [line for line in dom.stderr.splitlines() if "CONSOLE" in line]
    assert page_numbers(dom.stdout) == json_numbers(document)  # what Chromium built


def test_the_comment_and_the_page_golden(document: dict[str, Any]) -> None:
    """The markdown comment and the HTML page of one failure (regenerate: ``make golden``)."""
    matches_golden("fail.md", markdown_comment(document))
    matches_golden("fail.html", html_page(document))


def test_a_long_failover_comment_is_cut_to_fit_github(document: dict[str, Any]) -> None:
    """2,000 templates on the failed cluster: the denials, loads and storm stay, the template
    rows stop where the comment would pass GitHub's limit, and a note says how many are left."""
    many = dict(document)
    many["templates"] = [
        {**t, "name": f"{t['name']}-{n}"} for n in range(1000) for t in document["templates"]
    ]
    comment = markdown_comment(many)
    assert len(comment) <= LIMIT
    assert "#### Denials and warnings" in comment and "#### The clusters left" in comment
    shown = comment.count("| ~ | Deployment payments/")
    assert 0 < shown < 2000
    assert f"{2000 - shown} of 2000 templates not shown" in comment
    assert comment.endswith("<sub>fedgate plan --fail --output markdown</sub>\n")

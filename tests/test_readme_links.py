"""Every relative link in README.md, the guides in docs/ and the READMEs of bench/ and
tests/e2e/ resolves: the file (or directory) it names exists, and its #anchor is a heading of
that file, slugged as GitHub slugs headings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

DOCUMENTS = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "bench" / "README.md",
    ROOT / "tests" / "e2e" / "README.md",
]

_FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
_LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", re.MULTILINE)


def prose(text: str) -> str:
    """The text without fenced blocks and code spans (a link there is an example, not a link)."""
    return _CODE_SPAN.sub("", _FENCE.sub("", text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped but - and _, spaces to -."""
    text = re.sub(r"<[^>]+>", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a Markdown file (a repeated heading gets -1, -2... as on GitHub)."""
    seen: dict[str, int] = {}
    found = set()
    for heading in _HEADING.findall(_FENCE.sub("", path.read_text(encoding="utf-8"))):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def relative_links(path: Path) -> list[str]:
    return [
        target
        for target in _LINK.findall(prose(path.read_text(encoding="utf-8")))
        if not re.match(r"[a-z][a-z0-9+.-]*:", target)  # http:, https:, mailto:
    ]


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("`bench/plan_tree.py`", "benchplan_treepy"),
        ("Where a request's time goes (callgrind)", "where-a-requests-time-goes-callgrind"),
        ("The app spec (`fedgate.dev/v1alpha1`, `App`)", "the-app-spec-fedgatedevv1alpha1-app"),
        ("806f5b7, 2026-12-01, a quiet machine: met", "806f5b7-2026-12-01-a-quiet-machine-met"),
    ],
)
def test_the_slugs_are_githubs(heading: str, anchor: str) -> None:
    assert slug(heading) == anchor


def test_links_are_found() -> None:
    assert "bench/README.md" in relative_links(ROOT / "README.md")
    assert "docs/app-spec.md" in relative_links(ROOT / "README.md")
    assert relative_links(ROOT / "bench" / "README.md")
    assert relative_links(ROOT / "docs" / "webhook.md")


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(document: Path) -> None:
    broken = []
    for link in relative_links(document):
        target, _, anchor = link.partition("#")
        path = (document.parent / target).resolve() if target else document
        if not path.exists():
            broken.append(f"{link}: {path.relative_to(ROOT)} does not exist")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            broken.append(f"{link}: no heading #{anchor} in {path.relative_to(ROOT)}")
    assert not broken, "\n".join(broken)

"""gobwas/glob's compiler. The tables are ported from gobwas/glob v0.2.3
compiler/compiler_test.go (TestCommonChildren, TestGlueMatchers, TestCompileMatchers,
TestConvertMatchers); whole patterns are checked against the trees Go prints in
test_go_oracle.py."""

from __future__ import annotations

import pytest

from compiler.argocd.gobwas.compiler import common_children, compile_matchers, minimize_matchers
from compiler.argocd.gobwas.composites import EveryOf, Row, new_btree
from compiler.argocd.gobwas.leaves import (
    Any,
    Contains,
    List,
    Matcher,
    Max,
    Min,
    Range,
    Single,
    Super,
    Text,
)
from compiler.argocd.gobwas.parser import Kind, Node, TextValue, new_node

DOT = (ord("."),)  # the tests' separators


def _texts(*texts: str) -> Node:
    return new_node(
        Kind.NOTHING, None, *(new_node(Kind.TEXT, TextValue(t.encode())) for t in texts)
    )


def _plain(nodes: list[Node]) -> list[str]:
    return [n.value.text.decode() for n in nodes if isinstance(n.value, TextValue)]


@pytest.mark.parametrize(
    ("nodes", "left", "right"),
    [
        pytest.param([_texts("a", "z", "c")], [], [], id="one node"),
        pytest.param([_texts("a", "z", "c"), _texts("a", "b", "c")], ["a"], ["c"], id="ends"),
        pytest.param(
            [_texts("a", "b", "c", "d"), _texts("a", "b", "c", "c", "d")],
            ["a", "b"],
            ["c", "d"],
            id="both sides",
        ),
        pytest.param(
            [_texts("a", "b", "c"), _texts("a", "b", "b", "c")], ["a", "b"], ["c"], id="overlap"
        ),
        pytest.param([_texts("a", "d"), _texts("a", "d"), _texts("a", "e")], ["a"], [], id="three"),
    ],
)
def test_common_children(nodes: list[Node], left: list[str], right: list[str]) -> None:
    common_left, common_right = common_children(nodes)
    assert (_plain(common_left), _plain(common_right)) == (left, right)


ZTE = tuple(map(ord, "zte"))


@pytest.mark.parametrize(
    ("matchers", "expected"),
    [
        pytest.param([Super(), Single(())], Min(1), id="glue super single"),
        pytest.param(
            [Any(DOT), Single(DOT)],
            EveryOf((Min(1), Contains(b".", negated=True))),
            id="glue any single",
        ),
        pytest.param(
            [Single(()), Single(()), Single(())], EveryOf((Min(3), Max(3))), id="glue singles"
        ),
        pytest.param(
            [List((ord("a"),), negated=True), Any((ord("a"),))],
            EveryOf((Min(1), Contains(b"a", negated=True))),
            id="glue negated list",
        ),
        pytest.param(
            [Super(), Single(DOT), Text(b"c")],
            new_btree(Text(b"c"), new_btree(Single(DOT), Super(), None), None),
            id="btree",
        ),
        pytest.param(
            [Any(()), Text(b"c"), Any(())],
            new_btree(Text(b"c"), Any(()), Any(())),
            id="btree around text",
        ),
        pytest.param(
            [Range(ord("a"), ord("c"), True), List(ZTE, False), Text(b"c"), Single(())],
            Row((Range(ord("a"), ord("c"), True), List(ZTE, False), Text(b"c"), Single(())), 4),
            id="row",
        ),
    ],
)
def test_compile_matchers(matchers: list[Matcher], expected: Matcher) -> None:
    assert compile_matchers(matchers) == expected


ROW_HEAD: list[Matcher] = [Range(ord("a"), ord("c"), True), List(ZTE, False), Text(b"c")]


@pytest.mark.parametrize(
    ("matchers", "expected"),
    [
        pytest.param(
            [*ROW_HEAD, Single(()), Any(())],
            [Row((*ROW_HEAD, Single(())), 4), Any(())],
            id="row then any",
        ),
        pytest.param(
            [*ROW_HEAD, Single(()), Any(()), Single(()), Single(()), Any(())],
            [Row(tuple(ROW_HEAD), 3), Min(3)],
            id="row then min",
        ),
    ],
)
def test_minimize_matchers(matchers: list[Matcher], expected: list[Matcher]) -> None:
    assert minimize_matchers(matchers) == expected

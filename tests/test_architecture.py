"""The import graph of compiler/ and webhook/ has no circle.

A circle means a type lives in the wrong module: cut it where its types belong (a leaf module
for the shared type, a callable the caller passes down). The test fails on any ring; the
known list is empty and stays so. grimp is the graph import-linter builds."""

from __future__ import annotations

import grimp

KNOWN_RINGS: set[frozenset[str]] = set()
"""Empty: every circle is cut; a new one fails the test below."""


def rings(graph: grimp.ImportGraph) -> set[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    modules = sorted(graph.modules)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: set[frozenset[str]] = set()
    for root in modules:
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in graph.modules:
                    continue
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    imported = sorted(graph.find_modules_directly_imported_by(target))
                    work.append((target, iter(imported)))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    ring = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        ring.add(member)
                        if member == node:
                            break
                    if len(ring) > 1:
                        found.add(frozenset(ring))
    return found


def test_rings_finds_a_circle_and_only_circles() -> None:
    graph = grimp.ImportGraph()
    for module in ("p.a", "p.b", "p.c", "p.d"):
        graph.add_module(module)
    graph.add_import(importer="p.a", imported="p.b")
    graph.add_import(importer="p.b", imported="p.c")
    graph.add_import(importer="p.c", imported="p.a")
    graph.add_import(importer="p.c", imported="p.d")
    assert rings(graph) == {frozenset({"p.a", "p.b", "p.c"})}


def test_no_new_import_circle() -> None:
    found = rings(grimp.build_graph("compiler", "webhook"))
    new = found - KNOWN_RINGS
    assert not new, (
        f"new import circles (cut each where its types belong): {sorted(map(sorted, new))}"
    )
    gone = KNOWN_RINGS - found
    assert not gone, (
        f"these circles are gone or changed: update KNOWN_RINGS: {sorted(map(sorted, gone))}"
    )

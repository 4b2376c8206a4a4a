"""Manifest files read as Argo CD's repo server reads them: a list's items are the objects."""

from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from compiler.argocd.manifests import parse_manifests

NAMES = st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True)
OBJECTS = st.builds(
    lambda kind, name, data: {
        "apiVersion": "v1",
        "kind": kind,
        "metadata": {"name": name, "namespace": "ns"},
        **({"data": data} if data else {}),
    },
    st.sampled_from(["ConfigMap", "Secret", "Service"]),
    NAMES,
    st.dictionaries(NAMES, NAMES, max_size=2),
)


@given(st.lists(OBJECTS, max_size=5), st.sampled_from(["List", "ConfigMap", "ConfigMapList"]))
def test_a_list_is_its_items_as_separate_documents(objects: list[dict], kind: str) -> None:  # type: ignore[type-arg]
    """Whatever the list's kind (``IsList`` looks at ``items`` only), Argo CD applies exactly
    the items, in order, and never the list itself."""
    separate, problems = parse_manifests(
        "".join(f"---\n{yaml.safe_dump(o)}" for o in objects), "a.yaml"
    )
    assert problems == []
    listed = {"apiVersion": "v1", "kind": kind, "metadata": {"name": "l"}, "items": objects}
    for text, file in ((yaml.safe_dump(listed), "b.yaml"), (json.dumps(listed), "b.json")):
        found, problems = parse_manifests(text, file)
        assert problems == []
        assert [m.object for m in found] == [m.object for m in separate]
        assert [m.index for m in found] == list(range(len(objects)))


@pytest.mark.parametrize(
    ("text", "objects", "problems"),
    [
        pytest.param(
            "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: ConfigMap\n"
            "    metadata: {name: a}\n  - kind: Secret\n    metadata: {name: b}\n",
            [("ConfigMap", 4)],
            [
                (
                    7,
                    "items[1].apiVersion",
                    "apiVersion must be a non-empty string (Argo CD applies each of a list's "
                    "items as an object of its own)",
                )
            ],
            id="an-item-without-apiVersion",
        ),
        pytest.param(
            "apiVersion: v1\nkind: ConfigMapList\nitems: null\n", [], [], id="a-null-list"
        ),
        pytest.param(
            "apiVersion: v1\nkind: Thing\nmetadata: {name: t}\nitems: null\nspec: {}\n",
            [("Thing", 1)],
            [],
            id="items-null-beside-spec-is-an-object",
        ),
        pytest.param(
            "apiVersion: v1\nkind: Thing\nmetadata: {name: t}\nitems: {a: b}\n",
            [("Thing", 1)],
            [],
            id="items-not-a-list-is-an-object",
        ),
        pytest.param(
            "apiVersion: v1\nitems: []\n",
            [],
            [(1, "kind", "kind must be a non-empty string")],
            id="a-list-needs-a-kind",
        ),
    ],
)
def test_lists_as_argo_cd_reads_them(
    text: str, objects: list[tuple[str, int]], problems: list[tuple[int, str, str]]
) -> None:
    found, findings = parse_manifests(text, "x.yaml")
    assert [(m.object["kind"], m.line) for m in found] == objects
    assert [(f.line, f.path, f.message) for f in findings] == problems

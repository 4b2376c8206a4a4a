"""json-patch as Karmada applies it (evanphx/json-patch v5 semantics, vendored at karmada
v1.18.0): the quirks that decide what a member receives, and a differential property test
against the python-json-patch library on patches where RFC 6902 and json-patch agree."""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch as rfc6902
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webhook.karmada.jsonpatch import PatchError, apply_patch


@pytest.mark.parametrize(
    ("document", "operations", "expected"),
    [
        pytest.param(
            {"a": [1, 2]},
            [{"op": "add", "path": "/a/-1", "value": 3}],
            {"a": [1, 2, 3]},
            id="add-at-minus-one-appends",
        ),
        pytest.param(
            {"a": [1, 2]},
            [{"op": "add", "path": "/a/-3", "value": 0}],
            {"a": [0, 1, 2]},
            id="add-negative-counts-from-the-end",
        ),
        pytest.param(
            {"a": [1, 2]}, [{"op": "remove", "path": "/a/-1"}], {"a": [1]}, id="remove-negative"
        ),
        pytest.param(
            {"a": [1, 2]},
            [{"op": "replace", "path": "/a/+1", "value": 9}],
            {"a": [1, 9]},
            id="atoi-accepts-a-sign",
        ),
        pytest.param(
            {"a": [1, 2]},
            [{"op": "replace", "path": "/a/01", "value": 9}],
            {"a": [1, 9]},
            id="atoi-accepts-leading-zeros",
        ),
        pytest.param(
            {"a": 1, "b": 2},
            [{"op": "replace", "path": "spec/b", "value": 3}],
            {"a": 1, "b": 3},
            id="no-leading-slash-drops-the-first-token",
        ),
        pytest.param(
            {"a": {"b": 1}},
            [{"op": "add", "path": "//c", "value": 2}],
            {"a": {"b": 1}},
            id="an-empty-token-at-the-top-is-a-copy-thrown-away",
        ),
        pytest.param(
            {"a~b": {"c/d": 1}},
            [{"op": "replace", "path": "/a~0b/c~1d", "value": 2}],
            {"a~b": {"c/d": 2}},
            id="escapes",
        ),
        pytest.param(
            {"a": 1},
            [{"op": "add", "path": "", "value": {"b": 2}}],
            {"b": 2},
            id="add-the-whole-document",
        ),
        pytest.param(
            {"a": 1},
            [{"op": "add", "path": "/n"}],
            {"a": 1, "n": None},
            id="a-missing-value-is-null",
        ),
    ],
)
def test_json_patch_quirks(document: Any, operations: list[dict[str, Any]], expected: Any) -> None:
    assert apply_patch(document, operations) == expected


@pytest.mark.parametrize(
    ("document", "operations", "message"),
    [
        pytest.param(
            {"a": 1},
            [{"op": "replace", "path": "/b", "value": 1}],
            "missing key",
            id="replace-missing",
        ),
        pytest.param(
            {"a": 1}, [{"op": "remove", "path": "/b"}], "nonexistent key", id="remove-missing"
        ),
        pytest.param(
            {"a": 1},
            [{"op": "add", "path": "/b/c", "value": 1}],
            "missing path",
            id="add-below-missing",
        ),
        pytest.param(
            {"a": "s"},
            [{"op": "add", "path": "/a/c", "value": 1}],
            "missing path",
            id="add-below-a-scalar",
        ),
        pytest.param(
            {"a": [1]},
            [{"op": "add", "path": "/a/3", "value": 1}],
            "invalid index",
            id="add-past-the-end",
        ),
        pytest.param(
            {"a": [1]},
            [{"op": "add", "path": "/a/1 ", "value": 1}],
            "not a proper array index",
            id="atoi-refuses-spaces",
        ),
        pytest.param(
            {"a": [1]},
            [{"op": "add", "path": "/a/1_0", "value": 1}],
            "not a proper array index",
            id="atoi-refuses-underscores",
        ),
        pytest.param(
            {"a": 1},
            [{"op": "move", "path": "/b", "from": "/a"}],
            "Unexpected kind",
            id="only-add-remove-replace",
        ),
        pytest.param(
            {"a": 1},
            [{"op": "replace", "path": "", "value": 3}],
            "object or array",
            id="replace-root-with-a-scalar",
        ),
        # json-patch v5.9.11 (run against these): only the document has a self
        pytest.param(
            {"a": {"b": 1}},
            [{"op": "add", "path": "/a//c", "value": 2}],
            "missing path",
            id="an-empty-token-deeper-finds-no-path",
        ),
        pytest.param(
            {"l": []},
            [{"op": "add", "path": "/x", "value": 1}, {"op": "replace", "path": "//x", "value": 2}],
            "missing key",
            id="the-top-copy-is-the-document-before-the-patch",
        ),
        pytest.param(
            {"a": 1},
            [{"op": "add", "path": "", "value": None}],
            "expected object",
            id="add-null-as-the-document",
        ),
    ],
)
def test_json_patch_refusals(document: Any, operations: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(PatchError, match=message):
        apply_patch(document, operations)


def test_the_input_is_not_changed() -> None:
    document = {"a": {"b": [1]}}
    apply_patch(document, [{"op": "add", "path": "/a/b/-", "value": 2}])
    assert document == {"a": {"b": [1]}}


_KEY = st.sampled_from(["a", "b", "c", "x~y", "p/q"])
_SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=3))
_JSON = st.recursive(
    _SCALAR,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_KEY, inner, max_size=3)),
    max_leaves=12,
)


def _token(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


@st.composite
def _operation(draw: st.DrawFn, document: Any) -> dict[str, Any]:
    """A well-formed operation somewhere in (or just beside) ``document``."""
    tokens = []
    node = document
    while isinstance(node, dict | list) and node and draw(st.booleans()):
        if isinstance(node, dict):
            key = draw(st.sampled_from(sorted(node)))
            tokens.append(_token(key))
            node = node[key]
        else:
            index = draw(st.integers(0, len(node) - 1))
            tokens.append(str(index))
            node = node[index]
    if isinstance(node, dict):
        tokens.append(_token(draw(_KEY)))
    elif isinstance(node, list):
        tokens.append(draw(st.sampled_from([str(i) for i in range(len(node) + 2)] + ["-"])))
    else:
        tokens.append(_token(draw(_KEY)))
    op = draw(st.sampled_from(["add", "remove", "replace"]))
    operation = {"op": op, "path": "/" + "/".join(tokens)}
    if op != "remove":
        operation["value"] = draw(_JSON)
    return operation


@given(st.data())
@settings(max_examples=400, deadline=None)
def test_agrees_with_rfc6902_where_json_patch_does(data: st.DataObject) -> None:
    """Well-formed paths (leading slash, no empty tokens, plain non-negative indexes): the
    same result or both refuse. ``-`` only where RFC 6902 allows it (add)."""
    document = data.draw(st.dictionaries(_KEY, _JSON, max_size=4))
    operations = [data.draw(_operation(document)) for _ in range(data.draw(st.integers(1, 3)))]
    if any(o["path"].endswith("/-") and o["op"] != "add" for o in operations):
        return
    try:
        ours: Any = apply_patch(document, operations)
    except PatchError:
        ours = PatchError
    try:
        theirs: Any = rfc6902.apply_patch(copy.deepcopy(document), operations)
    except (
        rfc6902.JsonPatchException,
        rfc6902.JsonPointerException,
        TypeError,
        KeyError,
        IndexError,
    ):
        theirs = PatchError
    assert ours == theirs, operations

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from compiler.compile.canonical import dump, scalar_text
from webhook.karmada.goyaml import yaml_to_json


@pytest.mark.parametrize(
    ("value", "text"),
    [
        pytest.param("cluster-a", "cluster-a", id="plain"),
        pytest.param("250m", "250m", id="quantity"),
        pytest.param("registry.example.com/x:1.0", "registry.example.com/x:1.0", id="image"),
        pytest.param("true", "'true'", id="bool-like"),
        pytest.param("yes", "'yes'", id="yaml11-bool"),
        pytest.param("no", "'no'", id="norway"),
        pytest.param("y", "'y'", id="go-yaml-bool"),
        pytest.param("N", "'N'", id="go-yaml-bool-upper"),
        pytest.param("1", "'1'", id="int-like"),
        pytest.param("1.0", "'1.0'", id="float-like"),
        pytest.param("1e3", "'1e3'", id="yaml12-float"),
        pytest.param("0o17", "'0o17'", id="yaml12-octal"),
        pytest.param("12:30", "'12:30'", id="sexagesimal"),
        pytest.param("", "''", id="empty"),
        pytest.param("null", "'null'", id="null-like"),
        pytest.param("a: b", "'a: b'", id="colon-space"),
        pytest.param('{"": "git"}', '\'{"": "git"}\'', id="json"),
        pytest.param("it's\n", '"it\'s\\n"', id="newline"),
    ],
)
def test_scalar_quoting(value: str, text: str) -> None:
    assert scalar_text(value) == text
    assert yaml.safe_load(f"k: {text}")["k"] == value
    assert yaml_to_json(f"k: {text}")["k"] == value  # as Argo CD reads it


def test_layout() -> None:
    document = {"a": [{"b": 1, "c": []}, [1, 2]], "d": {}, "e": None}
    assert dump(document, "head") == (
        b"# head\na:\n  - b: 1\n    c: []\n  - - 1\n    - 2\nd: {}\ne: null\n"
    )


keys = st.text(min_size=1, max_size=12)
scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=30)
values: st.SearchStrategy[Any] = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(keys, values, max_size=5))
def test_round_trip(document: dict[str, Any]) -> None:
    text = dump(document)
    assert yaml.safe_load(text) == document
    assert _strings(yaml_to_json(text.decode())) == _strings(document)  # Argo CD's reader
    assert dump(document) == text  # deterministic


def _strings(value: Any) -> Any:
    """The strings of a document, where go-yaml's reading is held to PyYAML's (numbers come
    back from ``yaml_to_json`` as the text encoding/json writes)."""
    if isinstance(value, dict):
        return {k: _strings(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_strings(v) for v in value]
    return value if type(value) is str else None

"""JSON text with no key given twice, held to a plain reference parser, on texts that spell one
key in several ways (escaped, spaced before its colon)."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from webhook.base.jsontext import DuplicateKeyError, has_duplicate_keys, loads_unique


def _reference(text: str) -> bool:
    duplicate = False

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal duplicate
        keys = [k for k, _ in pairs]
        duplicate = duplicate or len(set(keys)) != len(keys)
        return dict(pairs)

    json.loads(text, object_pairs_hook=hook)
    return duplicate


@pytest.mark.parametrize(
    ("text", "duplicate"),
    [
        pytest.param('{"username":"alice","username":"git"}', True, id="username-twice"),
        pytest.param('{"a":{"b":1,"b":1}}', True, id="nested-equal-values"),
        pytest.param('[{"a":1},{"a":1}]', False, id="same-key-in-two-objects"),
        pytest.param('{"a":"\\":x","a\\"":1}', False, id="escaped-quotes"),
        pytest.param('{"a" : 1, "a":2}', True, id="spaced"),
        pytest.param('{"a\\\\":1,"a\\\\":2}', True, id="backslash-ends-key"),
        pytest.param('{"":1,"":2}', True, id="empty-key"),
        pytest.param('{"a":1,"\\u0061":2}', True, id="escaped-spelling-of-one-key"),
        pytest.param('{"\\u00e9":1,"\u00e9":2}', True, id="escaped-and-utf8-spelling"),
        pytest.param('{"a"\t\r\n:1,"a"\n:2}', True, id="any-json-space-before-colon"),
        pytest.param('["a", ":", "b" , ":"]', False, id="colons-as-values"),
        pytest.param('{"a":"b\\"c:","b":["\\\\",":"]}', False, id="quotes-and-colons-inside"),
        pytest.param('"just a string"', False, id="no-object"),
    ],
)
def test_duplicates(text: str, duplicate: bool) -> None:
    assert has_duplicate_keys(text.encode()) is duplicate
    if duplicate:
        with pytest.raises(DuplicateKeyError):
            loads_unique(text.encode())
    else:
        assert loads_unique(text.encode()) == orjson.loads(text)


keys = st.sampled_from(["a", "b", "", ":", '"', "\\", "a:b", '":', "\u00e9", '\\":'])
leaves = st.none() | st.booleans() | st.integers(-5, 5) | keys
values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(st.tuples(keys, inner), max_size=4).map(lambda pairs: ("object", pairs))
    ),
    max_leaves=15,
)


def _key(key: str, escaped: bool) -> str:
    """``key`` as JSON text, every character escaped as \\uXXXX when ``escaped``."""
    if not escaped:
        return json.dumps(key)
    return '"' + "".join(f"\\u{ord(c):04x}" for c in key) + '"'


def _write(value: Any, indent: bool) -> str:
    """JSON text of ``value``, where ("object", pairs) is written with every pair, even
    repeated keys; with ``indent``, odd keys are spelled escaped and followed by spaces."""
    if isinstance(value, tuple):
        sep = " \t: " if indent else ":"
        inner = ("," + ("\n  " if indent else "")).join(
            _key(k, indent and i % 2 == 1) + sep + _write(v, indent)
            for i, (k, v) in enumerate(value[1])
        )
        return "{" + inner + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_write(v, indent) for v in value) + "]"
    return json.dumps(value)


@given(values, st.booleans())
def test_agrees_with_the_reference(value: Any, indent: bool) -> None:
    text = _write(value, indent)
    assert has_duplicate_keys(text.encode()) is _reference(text)

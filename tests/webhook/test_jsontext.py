"""JSON text with no key given twice, held to a plain reference parser, on texts that spell one
key in several ways (escaped, spaced before its colon)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from webhook.base import jsontext
from webhook.base.jsontext import (
    DuplicateKeyError,
    _standard_scan,
    has_duplicate_keys,
    loads_unique,
)


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


# jiter answers first and the standard parser wherever jiter does not read the text whole or
# finds a key repeated: the two must give one answer on any bytes, however adversarial.

_KEYS = ["a", "b", "\x00", "\u00e9", "\U0001f600", '"', "\\", "/", "\n", "\u2028"]
_NUMBERS = [
    "0", "-0", "-0.0", "1", "1.5", "1E+2", "1e-400", "1e400", "-1e400", "1.7976931348623159e308",
    "18446744073709551615", "18446744073709551616", "-9223372036854775809", "1" * 400,
    "2.2250738585072014e-308",
]  # fmt: skip
_NOT_JSON = ["01", "1.", ".5", "+1", "NaN", "Infinity", "-Infinity", "nul", "'a'"]
_FRAMES = ["", " ", "\n\t\r", "\ufeff", "x", "{}", "\x00", ",", "]", "//"]


@st.composite
def _spelled(draw: st.DrawFn, text: str) -> str:
    """``text`` as a JSON string literal, each character raw, \\uXXXX (a surrogate pair
    past the BMP) or its short escape, as drawn."""
    out = []
    for char in text:
        way = draw(st.sampled_from(["raw", "u", "short"]))
        short = {'"': '\\"', "\\": "\\\\", "/": "\\/", "\n": "\\n"}.get(char)
        if way == "u" or char == "\x00":  # a raw NUL is no JSON string: always escaped
            units = char.encode("utf-16-be")
            pairs = range(0, len(units), 2)
            out.append("".join(f"\\u{units[i]:02x}{units[i + 1]:02x}" for i in pairs))
        elif short is not None and (way == "short" or char in '"\\\n'):
            out.append(short)
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


_LONE = st.sampled_from(  # lone surrogates, escaped and raw, and a cut escape
    ['"\\ud800"', '"\\udc00x"', '"\\ud83d\\u0041"', '"\ud800"', '"\\u00"']
)


def _tree(keys: st.SearchStrategy[str], leaves: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.recursive(
        leaves,
        lambda inner: (
            st.lists(inner, max_size=4).map(lambda items: "[" + ",".join(items) + "]")
            | st.lists(st.tuples(keys, st.sampled_from([":", " :\n "]), inner), max_size=5).map(
                lambda pairs: "{" + ",".join(k + colon + v for k, colon, v in pairs) + "}"
            )
        ),
        max_leaves=20,
    )


_spelled_keys = st.sampled_from(_KEYS).flatmap(_spelled)
_json_leaves = st.one_of(
    st.sampled_from(_NUMBERS),
    st.sampled_from(["true", "false", "null"]),
    st.integers().map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    _spelled_keys,
)
_texts = _tree(_spelled_keys, _json_leaves) | _tree(  # half of them with what is not JSON
    _spelled_keys | _LONE, _json_leaves | st.sampled_from(_NOT_JSON)
)


@st.composite
def _documents(draw: st.DrawFn) -> bytes:
    text = draw(_texts)
    depth = draw(st.sampled_from([0, 0, 0, 0, 1, 150, 199, 200, 201, 990, 1000, 1025]))
    if depth:
        opener, closer = draw(st.sampled_from([("[", "]"), ('{"a":', "}")]))
        text = opener * depth + text + closer * depth
    if draw(st.integers(0, 3)) == 0:  # framed: spaces, a byte order mark, trailing data
        text = draw(st.sampled_from(_FRAMES[:4])) + text + draw(st.sampled_from(_FRAMES))
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 3)) == 0:  # one byte added or dropped anywhere
        at = draw(st.integers(0, len(data)))
        byte = bytes([draw(st.integers(0, 255))])
        data = draw(st.sampled_from([data[:at] + byte + data[at:], data[:at] + data[at + 1 :]]))
    return data


@given(_documents() | st.binary(max_size=64))
def test_jiter_and_the_standard_parser_give_one_answer(data: bytes) -> None:
    assert has_duplicate_keys(data) is _standard_scan(data)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("[" * 250 + '{"a":1,"a":2}' + "]" * 250, id="repeated-past-jiters-depth"),
        pytest.param('{"a":NaN,"a":1}', id="repeated-beside-nan"),
        pytest.param('\ufeff{"a":1,"a":2}', id="repeated-after-a-bom"),
        pytest.param('{"a":1e400,"\\u0061":2}', id="repeated-beside-an-infinite-number"),
        pytest.param('{"\\u0000":1,"\\u0000":2}', id="repeated-nul"),
    ],
)
def test_a_repeated_key_jiter_cannot_read_is_still_found(text: str) -> None:
    assert has_duplicate_keys(text.encode()) is True


_REVIEW = json.loads(
    (
        Path(__file__).parents[2] / "examples/requests/deployment-update-by-argocd-allowed.json"
    ).read_text()
)


def _pairs(value: Any) -> Any:
    """``value`` in ``_write``'s form: every object as ("object", pairs)."""
    if isinstance(value, dict):
        return ("object", [[k, _pairs(v)] for k, v in value.items()])
    if isinstance(value, list):
        return [_pairs(v) for v in value]
    return value


def _objects(value: Any) -> list[Any]:
    """Every object in ``_pairs``' form of a value, outermost first."""
    if isinstance(value, tuple):
        return [value, *(o for _, v in value[1] for o in _objects(v))]
    if isinstance(value, list):
        return [o for v in value for o in _objects(v)]
    return []


@given(st.data(), st.booleans())
def test_a_key_repeated_anywhere_in_a_review_is_found(data: st.DataObject, indent: bool) -> None:
    tree = _pairs(_REVIEW)
    assert has_duplicate_keys(_write(tree, indent).encode()) is False
    target = data.draw(st.sampled_from([o for o in _objects(tree) if o[1]]))
    key, _ = data.draw(st.sampled_from(target[1]))
    target[1].insert(data.draw(st.integers(0, len(target[1]))), [key, "forged"])
    text = _write(tree, indent).encode()  # with indent, odd keys spelled escaped
    assert has_duplicate_keys(text) is _standard_scan(text) is True


def test_a_forked_child_reads_without_jiters_string_cache() -> None:
    """The worker caches keys; a child forked from it (the large-body lane) never takes the
    cache's mutex, whatever thread of the parent was doing at the fork."""
    assert jsontext._CACHE_MODE["mode"] == "keys"
    child = os.fork()
    if child == 0:  # pragma: no cover (the child's exit status is the assertion)
        uncached = jsontext._CACHE_MODE["mode"] == "none"
        fine = uncached and jsontext.has_duplicate_keys(b'{"a":1,"a":2}')
        os._exit(0 if fine else 1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert jsontext._CACHE_MODE["mode"] == "keys"

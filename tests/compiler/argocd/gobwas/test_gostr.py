"""Go string semantics over bytes: unicode/utf8's decoding, strings.IndexRune, bounds checks."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compiler.argocd.gobwas.gostr import (
    RUNE_ERROR,
    GoPanic,
    decode_rune,
    go_slice,
    go_string,
    index_rune,
    rune_count,
    rune_starts,
)


def _reference_decode(s: bytes) -> tuple[int, int]:
    """utf8.DecodeRune as documented: the first rune if it is valid UTF-8 (Python's strict
    decoder refuses what Go refuses), else (RuneError, 1); (RuneError, 0) when empty."""
    if not s:
        return RUNE_ERROR, 0
    for size in range(1, 5):
        try:
            decoded = s[:size].decode("utf-8")
        except UnicodeDecodeError:
            continue
        return ord(decoded), size
    return RUNE_ERROR, 1


_GO_BYTES = st.binary(max_size=12) | st.text(max_size=6).map(str.encode)


@given(_GO_BYTES)
def test_decode_rune_is_utf8_decode_rune(s: bytes) -> None:
    assert decode_rune(s) == _reference_decode(s)


@given(_GO_BYTES)
def test_range_steps_rune_by_rune_an_invalid_byte_at_a_time(s: bytes) -> None:
    starts, at = [], 0
    while at < len(s):
        starts.append(at)
        at += decode_rune(s, at)[1]
    assert rune_starts(s) == starts
    assert rune_count(s) == len(starts)


@pytest.mark.parametrize(
    ("s", "expected"),
    [
        pytest.param("é".encode()[:1], (RUNE_ERROR, 1), id="cut rune"),
        pytest.param(b"\xed\xa0\x80", (RUNE_ERROR, 1), id="encoded surrogate"),
        pytest.param(b"\xc0\xaf", (RUNE_ERROR, 1), id="overlong"),
        pytest.param("\ufffd".encode(), (RUNE_ERROR, 3), id="U+FFFD itself"),
        pytest.param("😀".encode(), (0x1F600, 4), id="four bytes"),
    ],
)
def test_decode_rune_edges(s: bytes, expected: tuple[int, int]) -> None:
    assert decode_rune(s) == expected


def test_index_rune_finds_an_invalid_byte_when_asked_for_rune_error() -> None:
    assert index_rune(b"ab\xffc", RUNE_ERROR) == 2
    assert index_rune("aé".encode(), ord("é")) == 1
    assert index_rune(b"abc", 0xD800) == -1  # a surrogate is never found


def test_go_slice_panics_where_go_does() -> None:
    assert go_slice(b"abc", 1, 3) == b"bc"
    with pytest.raises(GoPanic, match=r"slice bounds out of range \[:4\] with length 3"):
        go_slice(b"abc", 0, 4)
    with pytest.raises(GoPanic, match=r"slice bounds out of range \[2:1\]"):
        go_slice(b"abc", 2, 1)


def test_a_lone_surrogate_becomes_u_fffd_as_go_decoders_make_it() -> None:
    assert go_string("a\ud800") == "a\ufffd".encode()

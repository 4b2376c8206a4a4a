"""The ledger format: bounded reading, and the index of the entries below a pointer."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webhook.base.ledger import (
    MAX_LEDGER_BYTES,
    MAX_LEDGER_ENTRIES,
    MAX_POINTER_SEGMENTS,
    Ledger,
    LedgerError,
    decode,
    encode,
    entries_below,
)

BOMB = "[" * 1100 + "]" * 1100
"""The ledger bomb: json.loads raised RecursionError on it, which denied every rule."""


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        pytest.param(BOMB, "not JSON", id="bomb-1100-deep"),
        pytest.param("[" * 10 + "]" * 10, "must map JSON pointers", id="nested-lists"),
        pytest.param('{"":{"a":"git"}}', "must map JSON pointers", id="nested-object"),
        pytest.param('{"x":"git"}', "must map JSON pointers", id="not-a-pointer"),
        pytest.param('{"":"git","":"alice"}', "a pointer is given twice", id="duplicate"),
        pytest.param(
            encode({"": "git", "/a": "x" * MAX_LEDGER_BYTES}), "more than the", id="too-big"
        ),
        pytest.param(
            encode({f"/k{i}": "git" for i in range(MAX_LEDGER_ENTRIES + 1)}),
            f"more than the {MAX_LEDGER_ENTRIES} allowed",
            id="too-many",
        ),
        pytest.param(
            encode({"/a" * (MAX_POINTER_SEGMENTS + 1): "git"}), "tokens", id="too-deep-pointer"
        ),
        pytest.param("{broken", "not JSON", id="not-json"),
    ],
)
def test_what_is_not_a_ledger(text: str, problem: str) -> None:
    with pytest.raises(LedgerError, match=problem):
        decode(text)


def test_a_ledger_at_the_bounds_is_one() -> None:
    entries = {"": "git", **{f"/k{i}": "platform" for i in range(MAX_LEDGER_ENTRIES - 1)}}
    assert decode(encode(entries)) == entries
    assert decode(encode({"/a" * MAX_POINTER_SEGMENTS: "git"})) == {"/a" * 32: "git"}


def test_reading_the_largest_text_is_quick() -> None:
    """A bound, not a benchmark: linear reading of a few MiB takes milliseconds (the inputs are
    built before the clock starts: building them is most of the time on a busy machine)."""
    texts = (BOMB * 1000, "x" * 3_000_000, encode({f"/k{i}": "git" for i in range(50_000)}))
    started = time.perf_counter()
    for text in texts:
        with pytest.raises(LedgerError):
            decode(text)
    assert time.perf_counter() - started < 2


pointers = st.lists(
    st.sampled_from(["a", "b", "a~1b", "0", "", "ab", "a0", "a.b", "z"]), min_size=0, max_size=4
).map(lambda tokens: "".join("/" + t for t in tokens))


@given(st.dictionaries(pointers, st.sampled_from(["git", "karmada"]), max_size=12), pointers)
def test_below_is_the_scan_it_replaces(owners: dict[str, str], pointer: str) -> None:
    scan = sorted((p, o) for p, o in owners.items() if p.startswith(pointer + "/"))
    assert list(Ledger(owners).below(pointer)) == scan
    assert sorted(entries_below(owners, pointer)) == scan


def test_a_ledger_reads_as_the_mapping_it_was_built_from() -> None:
    owners = json.loads('{"":"git","/spec/replicas":"federated-hpa"}')
    ledger = Ledger(owners)
    assert dict(ledger) == owners and len(ledger) == 2 and "/spec/replicas" in ledger
    assert ledger.get("/nope") is None

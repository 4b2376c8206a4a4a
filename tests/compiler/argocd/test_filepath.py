"""Go's path/filepath.Match as Argo CD's isResourceInList uses it for kinds and groups.

The table is ported from Go's path/filepath match_test.go (matchTests) as far as it applies on
Unix; the quirks (reversed ranges, * skipping bytes) are Go 1.19's answers (see
test_go_oracle.py for thousands more).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.argocd.filepath import path_match

FILEPATH = [
    (True, "abc", "abc"),
    (True, "*", "abc"),
    (True, "*c", "abc"),
    (False, "a*", "ab/c"),
    (True, "a*b*c*d*e*/f", "axbxcxdxe/f"),
    (True, "a*b?c*x", "abxbbxdbxebxczzx"),
    (False, "a*b?c*x", "abxbbxdbxebxczzy"),
    (True, "ab[c]", "abc"),
    (True, "ab[b-d]", "abc"),
    (False, "ab[e-g]", "abc"),
    (False, "ab[^c]", "abc"),
    (False, "ab[^b-d]", "abc"),
    (True, "ab[^e-g]", "abc"),
    (True, "a\\*b", "a*b"),
    (False, "a\\*b", "ab"),
    (True, "a?b", "a☺b"),
    (True, "a[^a]b", "a☺b"),
    (False, "a???b", "a☺b"),
    (True, "[a-\u03b6]*", "\u03b1"),  # Greek zeta, alpha
    (False, "*[a-ζ]", "A"),
    (False, "a?b", "a/b"),
    (False, "a*b", "a/b"),
    (True, "[\\]a]", "]"),
    (True, "[\\-]", "-"),
    (True, "[x\\-]", "x"),
    (False, "[\\-x]", "a"),
    (False, "[]a]", "]"),
    (False, "[-]", "-"),
    (False, "[x-]", "x"),
    (False, "[^bc", "a"),
    (False, "a[", "a"),
    (True, "*x", "xxx"),
    (True, "", ""),
    (True, "*", ""),
]


@pytest.mark.parametrize(
    ("expected", "pattern", "name"), [pytest.param(*c, id=f"{c[1]}~{c[2]}") for c in FILEPATH]
)
def test_go_filepath_match(expected: bool, pattern: str, name: str) -> None:
    assert path_match(pattern, name) is expected


QUIRKS = [
    (True, "[^b-a]", "/", "a reversed range is empty, so its negation matches anything"),
    (False, "[b-a]", "b", "a reversed range matches nothing"),
    (True, "[^z-a]*", "Deployment", "a kind pattern that matches every kind"),
    (True, "*[^é]", "é", "* skips one byte, then [^é] reads the cut rune as RuneError"),
    (False, "x[", "a", "a malformed pattern is an error even after a mismatch"),
]


@pytest.mark.parametrize(
    ("expected", "pattern", "name", "why"), [pytest.param(*q, id=q[3]) for q in QUIRKS]
)
def test_go_filepath_quirks(expected: bool, pattern: str, name: str, why: str) -> None:
    assert path_match(pattern, name) is expected, why


_PIECES = st.sampled_from(["a", "b", "*", "?", "/", "[a-b]", "[^a]", "\\", "é", "x["])


@settings(max_examples=300)
@given(
    pairs=st.lists(
        st.tuples(st.lists(_PIECES, max_size=4).map("".join), st.text("ab/é", max_size=4)),
        max_size=20,
    )
)
def test_remembered_answers_are_the_answers(pairs: list[tuple[str, str]]) -> None:
    """path_match remembers its answers (the same few entries, kinds and groups for every object
    of a compile): asked again, in any order, it answers as the matcher itself does."""
    for pattern, name in [*pairs, *reversed(pairs)]:
        assert path_match(pattern, name) is _match_uncached(pattern, name)


def _match_uncached(pattern: str, name: str) -> bool:
    return bool(path_match.__wrapped__(pattern, name))

"""Plan text fits the terminal and cannot drive it: widths, wrapping, cutting, escaping."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.plan.columns import CUT, WIDTH, columns, cut, printable, wrap


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        pytest.param("plain text", "plain text", id="printable-unchanged"),
        pytest.param("zone=\x1b[2K\x1b[1A", "zone=\\x1b[2K\\x1b[1A", id="escape-sequence"),
        pytest.param("a\tb", "a\\tb", id="tab"),
        pytest.param("a\rb\nc", "a\\x0db\\x0ac", id="carriage-return-and-newline"),
        pytest.param("\x00\x7f", "\\x00\\x7f", id="nul-and-delete"),
        pytest.param("\x9b2J", "\\x9b2J", id="c1-control-sequence-introducer"),
        pytest.param("abc\u202edef", "abc\\u202edef", id="bidi-override"),
        pytest.param("line\u2028sep", "line\\u2028sep", id="line-separator"),
        pytest.param("日本 café", "日本 café", id="wide-and-accented-kept"),
    ],
)
def test_printable_escapes_what_could_drive_a_terminal(text: str, shown: str) -> None:
    assert printable(text) == shown


@pytest.mark.parametrize(
    ("text", "width"),
    [
        pytest.param("abc", 3, id="ascii"),
        pytest.param("日本", 4, id="wide-characters-take-two"),
        pytest.param("e\u0301", 1, id="combining-mark-takes-none"),
    ],
)
def test_columns(text: str, width: int) -> None:
    assert columns(text) == width


def test_a_short_line_is_left_alone() -> None:
    line = "    placement    cluster-a 2 -> 3, cluster-b 2"
    assert wrap(line, 17) == [line]
    assert cut(line) == line


def test_wrap_breaks_between_words_with_a_hanging_indent() -> None:
    words = " ".join(f"word{i}" for i in range(40))
    lines = wrap(f"    note         {words}", 17)
    assert len(lines) > 1
    assert all(columns(line) <= WIDTH for line in lines)
    assert lines[0].startswith("    note         word0 ")
    assert all(line.startswith(" " * 17 + "word") for line in lines[1:])


def test_a_word_longer_than_a_line_is_broken_not_lost() -> None:
    image = "registry.example.com/" + "x" * 250
    lines = wrap(f"    cluster-a    2 x {image}", 17)
    assert all(columns(line) <= WIDTH for line in lines)
    assert lines[0].startswith("    cluster-a    2 x registry.example.com/xxx")
    assert "".join(lines).replace(" ", "") == f"cluster-a2x{image}"


def test_cut_marks_what_it_cut() -> None:
    line = "+  fedgate.dev/ownership: '" + "{}" * 200
    shown = cut(line)
    assert columns(shown) == WIDTH and shown.endswith(CUT)
    assert shown[: -len(CUT)] == line[: WIDTH - len(CUT)]


TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from(" \t-/:=.,"),
        st.characters(codec="utf-8"),
        st.sampled_from("日本語中文한국어"),
    ),
    max_size=600,
)


@settings(max_examples=300, deadline=None)
@given(text=TEXT, hang=st.integers(min_value=0, max_value=200))
def test_wrapped_lines_fit_and_keep_every_character(text: str, hang: int) -> None:
    shown = printable(text)
    lines = wrap(shown, hang)
    assert all(columns(line) <= WIDTH for line in lines)
    assert "".join(lines).replace(" ", "") == shown.replace(" ", "")
    assert all("\x1b" not in line and "\n" not in line for line in lines)


@settings(max_examples=300, deadline=None)
@given(text=TEXT)
def test_cut_lines_fit_and_keep_their_start(text: str) -> None:
    shown = cut(printable(text))
    assert columns(shown) <= WIDTH
    kept = shown[: -len(CUT)] if shown.endswith(CUT) else shown
    assert printable(text).startswith(kept)

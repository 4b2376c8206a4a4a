"""gobwas/glob's lexer. The table is ported from gobwas/glob v0.2.3
syntax/lexer/lexer_test.go (TestLexGood); the NUL and U+FFFD cases are Go's answers."""

from __future__ import annotations

import pytest

from compiler.argocd.gobwas.lexer import Lexer, TokenType

T = TokenType

LEX_GOOD = [
    ("", [(T.EOF, "")]),
    ("hello", [(T.TEXT, "hello"), (T.EOF, "")]),
    (
        "/{rate,[0-9]]}*",
        [
            *[(T.TEXT, "/"), (T.TERMS_OPEN, "{"), (T.TEXT, "rate"), (T.SEPARATOR, ",")],
            *[(T.RANGE_OPEN, "["), (T.RANGE_LO, "0"), (T.RANGE_BETWEEN, "-"), (T.RANGE_HI, "9")],
            *[(T.RANGE_CLOSE, "]"), (T.TEXT, "]"), (T.TERMS_CLOSE, "}"), (T.ANY, "*")],
            (T.EOF, ""),
        ],
    ),
    ("hello,world", [(T.TEXT, "hello,world"), (T.EOF, "")]),
    ("hello\\,world", [(T.TEXT, "hello,world"), (T.EOF, "")]),
    ("hello\\{world", [(T.TEXT, "hello{world"), (T.EOF, "")]),
    ("hello?", [(T.TEXT, "hello"), (T.SINGLE, "?"), (T.EOF, "")]),
    ("hellof*", [(T.TEXT, "hellof"), (T.ANY, "*"), (T.EOF, "")]),
    ("hello**", [(T.TEXT, "hello"), (T.SUPER, "**"), (T.EOF, "")]),
    (
        "[日-語]",
        [
            *[(T.RANGE_OPEN, "["), (T.RANGE_LO, "日"), (T.RANGE_BETWEEN, "-")],
            *[(T.RANGE_HI, "語"), (T.RANGE_CLOSE, "]"), (T.EOF, "")],
        ],
    ),
    (
        "[!日-語]",
        [
            *[(T.RANGE_OPEN, "["), (T.NOT, "!"), (T.RANGE_LO, "日"), (T.RANGE_BETWEEN, "-")],
            *[(T.RANGE_HI, "語"), (T.RANGE_CLOSE, "]"), (T.EOF, "")],
        ],
    ),
    ("[日本語]", [(T.RANGE_OPEN, "["), (T.TEXT, "日本語"), (T.RANGE_CLOSE, "]"), (T.EOF, "")]),
    (
        "[!日本語]",
        [
            *[(T.RANGE_OPEN, "["), (T.NOT, "!"), (T.TEXT, "日本語"), (T.RANGE_CLOSE, "]")],
            (T.EOF, ""),
        ],
    ),
    (
        "{a,b}",
        [
            *[(T.TERMS_OPEN, "{"), (T.TEXT, "a"), (T.SEPARATOR, ","), (T.TEXT, "b")],
            *[(T.TERMS_CLOSE, "}"), (T.EOF, "")],
        ],
    ),
    (
        "/{z,ab}*",
        [
            *[(T.TEXT, "/"), (T.TERMS_OPEN, "{"), (T.TEXT, "z"), (T.SEPARATOR, ",")],
            *[(T.TEXT, "ab"), (T.TERMS_CLOSE, "}"), (T.ANY, "*"), (T.EOF, "")],
        ],
    ),
    (
        "{[!日-語],*,?,{a,b,\\c}}",
        [
            *[(T.TERMS_OPEN, "{"), (T.RANGE_OPEN, "["), (T.NOT, "!"), (T.RANGE_LO, "日")],
            *[(T.RANGE_BETWEEN, "-"), (T.RANGE_HI, "語"), (T.RANGE_CLOSE, "]")],
            *[(T.SEPARATOR, ","), (T.ANY, "*"), (T.SEPARATOR, ","), (T.SINGLE, "?")],
            *[(T.SEPARATOR, ","), (T.TERMS_OPEN, "{"), (T.TEXT, "a"), (T.SEPARATOR, ",")],
            *[(T.TEXT, "b"), (T.SEPARATOR, ","), (T.TEXT, "c"), (T.TERMS_CLOSE, "}")],
            *[(T.TERMS_CLOSE, "}"), (T.EOF, "")],
        ],
    ),
    # Go's answers: NUL reads as the end of input (dropped inside a text); U+FFFD is an error
    ("a\x00b", [(T.TEXT, "a"), (T.TEXT, "b"), (T.EOF, "")]),
    ("*\x00b", [(T.ANY, "*"), (T.EOF, "")]),
    ("a\ufffd", [(T.ERROR, "could not read rune")]),
]


def _tokens(pattern: str, count: int) -> list[tuple[TokenType, str]]:
    lexer = Lexer(pattern.encode())
    return [(token.type, token.raw.decode()) for token in (lexer.next() for _ in range(count))]


@pytest.mark.parametrize(
    ("pattern", "tokens"), [pytest.param(p, t, id=repr(p)) for p, t in LEX_GOOD]
)
def test_lex_good(pattern: str, tokens: list[tuple[TokenType, str]]) -> None:
    assert _tokens(pattern, len(tokens)) == tokens


def test_an_error_wins_over_tokens_already_queued() -> None:
    # '[' is queued, then the range hits the end: the parser sees the error first
    assert _tokens("[a", 1) == [(T.ERROR, "unexpected end of input")]

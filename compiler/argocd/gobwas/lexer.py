"""gobwas/glob v0.2.3 ``syntax/lexer/lexer.go`` and ``token.go``, statement for statement.

Its quirks, kept: the end-of-input rune is 0, so a NUL byte in the pattern reads as the end
(it ends the pattern, or is dropped inside a text); reading U+FFFD (or an invalid byte) is an
error; the lexer is lazy, so the parser only sees an error once it asks past it, and an error
wins over tokens already queued.
"""

from __future__ import annotations

import enum
from collections import deque
from dataclasses import dataclass

from compiler.argocd.gobwas.gostr import RUNE_ERROR, decode_rune, encode_rune, encode_runes

EOF_RUNE = 0
CHAR_ANY, CHAR_COMMA, CHAR_SINGLE, CHAR_ESCAPE = ord("*"), ord(","), ord("?"), ord("\\")
CHAR_RANGE_OPEN, CHAR_RANGE_CLOSE = ord("["), ord("]")
CHAR_TERMS_OPEN, CHAR_TERMS_CLOSE = ord("{"), ord("}")
CHAR_RANGE_NOT, CHAR_RANGE_BETWEEN = ord("!"), ord("-")

IN_TEXT_BREAKERS = (CHAR_SINGLE, CHAR_ANY, CHAR_RANGE_OPEN, CHAR_TERMS_OPEN)
IN_TERMS_BREAKERS = (*IN_TEXT_BREAKERS, CHAR_TERMS_CLOSE, CHAR_COMMA)


class TokenType(enum.Enum):
    EOF = "eof"
    ERROR = "error"
    TEXT = "text"
    ANY = "any"
    SUPER = "super"
    SINGLE = "single"
    NOT = "not"
    SEPARATOR = "separator"
    RANGE_OPEN = "range_open"
    RANGE_CLOSE = "range_close"
    RANGE_LO = "range_lo"
    RANGE_HI = "range_hi"
    RANGE_BETWEEN = "range_between"
    TERMS_OPEN = "terms_open"
    TERMS_CLOSE = "terms_close"


@dataclass(frozen=True)
class Token:
    """``lexer.Token``: a token's type and its raw bytes."""

    type: TokenType
    raw: bytes


class Lexer:
    """``lexer``: ``next()`` hands out one token at a time, fetching on demand."""

    def __init__(self, source: bytes) -> None:
        self.data = source
        self.pos = 0
        self.err: str | None = None
        self.tokens: deque[Token] = deque()
        self.terms_level = 0
        self.last_rune = 0
        self.last_rune_size = 0
        self.has_rune = False

    def next(self) -> Token:
        """``Next``: the error once there is one, else a queued token, else fetch more."""
        while True:
            if self.err is not None:
                return Token(TokenType.ERROR, self.err.encode())
            if self.tokens:
                return self.tokens.popleft()
            self._fetch_item()

    def _peek(self) -> tuple[int, int]:
        if self.pos == len(self.data):
            return EOF_RUNE, 0
        r, width = decode_rune(self.data, self.pos)
        if r == RUNE_ERROR:
            self.err = "could not read rune"
            return EOF_RUNE, 0
        return r, width

    def _read(self) -> int:
        if self.has_rune:
            self.has_rune = False
            self.pos += self.last_rune_size
            return self.last_rune
        r, width = self._peek()
        self.pos += width
        self.last_rune, self.last_rune_size = r, width
        return r

    def _unread(self) -> None:
        if self.has_rune:
            self.err = "could not unread rune"
            return
        self.pos -= self.last_rune_size
        self.has_rune = True

    def _push(self, kind: TokenType, raw: bytes) -> None:
        self.tokens.append(Token(kind, raw))

    def _fetch_item(self) -> None:
        r = self._read()
        in_terms = self.terms_level > 0
        if r == EOF_RUNE:
            self._push(TokenType.EOF, b"")
        elif r == CHAR_TERMS_OPEN:
            self.terms_level += 1
            self._push(TokenType.TERMS_OPEN, b"{")
        elif r == CHAR_COMMA and in_terms:
            self._push(TokenType.SEPARATOR, b",")
        elif r == CHAR_TERMS_CLOSE and in_terms:
            self._push(TokenType.TERMS_CLOSE, b"}")
            self.terms_level -= 1
        elif r == CHAR_RANGE_OPEN:
            self._push(TokenType.RANGE_OPEN, b"[")
            self._fetch_range()
        elif r == CHAR_SINGLE:
            self._push(TokenType.SINGLE, b"?")
        elif r == CHAR_ANY:
            self._fetch_any_or_super()
        else:
            self._unread()
            self._fetch_text(IN_TERMS_BREAKERS if in_terms else IN_TEXT_BREAKERS)

    def _fetch_any_or_super(self) -> None:
        if self._read() == CHAR_ANY:
            self._push(TokenType.SUPER, b"**")
        else:
            self._unread()
            self._push(TokenType.ANY, b"*")

    def _fetch_range(self) -> None:
        want_hi = want_close = seen_not = False
        while True:
            r = self._read()
            if r == EOF_RUNE:
                self.err = "unexpected end of input"
                return
            if want_close:
                if r != CHAR_RANGE_CLOSE:
                    self.err = "expected close range character"
                else:
                    self._push(TokenType.RANGE_CLOSE, b"]")
                return
            if want_hi:
                self._push(TokenType.RANGE_HI, encode_rune(r))
                want_close = True
                continue
            if not seen_not and r == CHAR_RANGE_NOT:
                self._push(TokenType.NOT, b"!")
                seen_not = True
                continue
            following, width = self._peek()
            if following == CHAR_RANGE_BETWEEN:
                self.pos += width
                self._push(TokenType.RANGE_LO, encode_rune(r))
                self._push(TokenType.RANGE_BETWEEN, b"-")
                want_hi = True
                continue
            self._unread()
            self._fetch_text((CHAR_RANGE_CLOSE,))
            want_close = True

    def _fetch_text(self, breakers: tuple[int, ...]) -> None:
        data: list[int] = []
        escaped = False
        while True:
            r = self._read()
            if r == EOF_RUNE:
                break  # not unread: a NUL inside a text is dropped
            if not escaped:
                if r == CHAR_ESCAPE:
                    escaped = True
                    continue
                if r in breakers:
                    self._unread()
                    break
            escaped = False
            data.append(r)
        if data:
            self._push(TokenType.TEXT, encode_runes(data))

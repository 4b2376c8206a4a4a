"""The two pattern languages Argo CD matches with, ported from their Go sources.

- ``match``: github.com/gobwas/glob, which Argo CD's ``util/glob.Match`` wraps: project
  destinations and source repositories, and a directory source's ``include`` / ``exclude``
  (``reposerver/repository/repository.go``, with no separators, so ``*`` crosses ``/``).
  ``*`` is any run of characters but the separators, ``**`` any run at all, ``?`` one character
  but a separator, ``[abc]`` / ``[!abc]`` / ``[a-z]`` / ``[!a-z]`` one character (separators
  included), ``{a,b}`` alternatives (nested; an unclosed ``{`` closes at the end, as gobwas's
  parser does), ``\\`` escapes the next character. A pattern gobwas cannot compile matches
  nothing, as Argo CD's ``Match`` logs and answers false.
- ``path_match``: Go's ``path/filepath.Match``, which Argo CD uses for the group and kind
  entries of an AppProject's resource white- and blacklists (``isResourceInList``).

Both compile to Python regular expressions once per (pattern, separators) and answer on whole
strings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_BREAKERS_TEXT = frozenset("?*[{")
_BREAKERS_TERMS = _BREAKERS_TEXT | {"}", ","}


class GlobSyntaxError(ValueError):
    """A pattern gobwas/glob refuses to compile."""


@dataclass
class _Token:
    kind: str
    raw: str = ""


class _Lexer:
    """gobwas/glob ``syntax/lexer``: the same tokens, in the same order, with the same errors."""

    def __init__(self, source: str) -> None:
        self.data = source
        self.pos = 0
        self.terms = 0
        self.tokens: list[_Token] = []

    def read(self) -> str:
        if self.pos >= len(self.data):
            self.pos += 1  # so that an unread after the end steps back onto the end
            return ""
        char = self.data[self.pos]
        self.pos += 1
        return char

    def unread(self) -> None:
        self.pos -= 1

    def run(self) -> list[_Token]:
        while True:
            char = self.read()
            if char == "":
                self.tokens.append(_Token("eof"))
                return self.tokens
            if char == "{":
                self.terms += 1
                self.tokens.append(_Token("terms_open"))
            elif char == "," and self.terms:
                self.tokens.append(_Token("separator"))
            elif char == "}" and self.terms:
                self.tokens.append(_Token("terms_close"))
                self.terms -= 1
            elif char == "[":
                self.tokens.append(_Token("range_open"))
                self.fetch_range()
            elif char == "?":
                self.tokens.append(_Token("single"))
            elif char == "*":
                if self.read() == "*":
                    self.tokens.append(_Token("super"))
                else:
                    self.unread()
                    self.tokens.append(_Token("any"))
            else:
                self.unread()
                self.fetch_text(_BREAKERS_TERMS if self.terms else _BREAKERS_TEXT)

    def fetch_range(self) -> None:
        want_hi = want_close = seen_not = False
        while True:
            char = self.read()
            if char == "":
                raise GlobSyntaxError("unexpected end of input")
            if want_close:
                if char != "]":
                    raise GlobSyntaxError("expected close range character")
                self.tokens.append(_Token("range_close"))
                return
            if want_hi:
                self.tokens.append(_Token("range_hi", char))
                want_close = True
                continue
            if not seen_not and char == "!":
                self.tokens.append(_Token("not"))
                seen_not = True
                continue
            if self.pos < len(self.data) and self.data[self.pos] == "-":
                self.pos += 1
                self.tokens.append(_Token("range_lo", char))
                want_hi = True
                continue
            self.unread()
            self.fetch_text(frozenset("]"))
            want_close = True

    def fetch_text(self, breakers: frozenset[str]) -> None:
        data: list[str] = []
        escaped = False
        while True:
            char = self.read()
            if char == "":
                self.unread()
                break
            if not escaped:
                if char == "\\":
                    escaped = True
                    continue
                if char in breakers:
                    self.unread()
                    break
            escaped = False
            data.append(char)
        if data:
            self.tokens.append(_Token("text", "".join(data)))


def _range_regex(tokens: list[_Token], start: int) -> tuple[str, int]:
    """gobwas ``parserRange``: a list or a range of one character; returns (regex, next)."""
    negated, low, high, chars = False, "", "", ""
    index = start
    while True:
        token = tokens[index]
        index += 1
        if token.kind == "eof":
            raise GlobSyntaxError("unexpected end")
        if token.kind == "not":
            negated = True
        elif token.kind == "range_lo":
            low = token.raw
        elif token.kind == "range_hi":
            high = token.raw
            if high < low:
                raise GlobSyntaxError(f"hi character {high!r} should be greater than lo {low!r}")
        elif token.kind == "text":
            chars = token.raw
        elif token.kind == "range_close":
            is_range = bool(low and high)
            if bool(chars) == is_range:
                raise GlobSyntaxError("could not parse range")
            body = (
                f"{_class_escape(low)}-{_class_escape(high)}"
                if is_range
                else "".join(_class_escape(c) for c in chars)
            )
            return f"[{'^' if negated else ''}{body}]", index


def _class_escape(char: str) -> str:
    return "\\" + char if char in "\\]^-[" else char


def to_regex(pattern: str, separators: str = "") -> str:
    """The regular expression (for ``re.fullmatch``, DOTALL) gobwas/glob compiles to."""
    tokens = _Lexer(pattern).run()
    excluded = "".join(_class_escape(s) for s in separators)
    any_run = f"[^{excluded}]*" if separators else ".*"
    one = f"[^{excluded}]" if separators else "."
    # A stack of alternatives: each level is a list of finished branches and the one being built.
    levels: list[tuple[list[str], list[str]]] = [([], [])]
    index = 0
    while True:
        token = tokens[index]
        index += 1
        branches, current = levels[-1]
        if token.kind == "eof":
            break
        if token.kind == "text":
            current.append(re.escape(token.raw))
        elif token.kind == "any":
            current.append(any_run)
        elif token.kind == "super":
            current.append(".*")
        elif token.kind == "single":
            current.append(one)
        elif token.kind == "range_open":
            regex, index = _range_regex(tokens, index)
            current.append(regex)
        elif token.kind == "terms_open":
            levels.append(([], []))
        elif token.kind == "separator":
            branches.append("".join(current))
            current.clear()
        elif token.kind == "terms_close":
            _close_level(levels)
    while len(levels) > 1:  # gobwas closes unclosed alternatives at the end of the pattern
        _close_level(levels)
    return "".join(levels[0][1])


def _close_level(levels: list[tuple[list[str], list[str]]]) -> None:
    branches, current = levels.pop()
    alternatives = [*branches, "".join(current)]
    levels[-1][1].append("(?:" + "|".join(alternatives) + ")")


@lru_cache(maxsize=4096)
def _compiled(pattern: str, separators: str) -> re.Pattern[str] | None:
    try:
        return re.compile(to_regex(pattern, separators), re.DOTALL)
    except GlobSyntaxError:
        return None


def match(pattern: str, text: str, separators: str = "") -> bool:
    """gobwas/glob's ``Match`` as Argo CD calls it; an invalid pattern matches nothing."""
    compiled = _compiled(pattern, separators)
    return compiled is not None and compiled.fullmatch(text) is not None


def valid(pattern: str) -> bool:
    """Whether gobwas/glob compiles ``pattern`` (Argo CD would otherwise match nothing)."""
    return _compiled(pattern, "") is not None


def _path_regex(pattern: str) -> str:
    """Go's ``path/filepath.Match`` syntax (on Unix): ``*`` and ``?`` stop at ``/``, classes
    ``[...]`` with ``^`` for negation and ``a-z`` ranges, ``\\`` escapes."""
    out: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        index += 1
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "\\":
            if index >= len(pattern):
                raise GlobSyntaxError("trailing backslash")
            out.append(re.escape(pattern[index]))
            index += 1
        elif char == "[":
            regex, index = _path_class(pattern, index)
            out.append(regex)
        else:
            out.append(re.escape(char))
    return "".join(out)


def _path_class(pattern: str, index: int) -> tuple[str, int]:
    negated = index < len(pattern) and pattern[index] == "^"
    index += negated
    parts: list[str] = []
    first = True
    while True:
        if index >= len(pattern):
            raise GlobSyntaxError("unclosed character class")
        char = pattern[index]
        if char == "]" and not first:
            return f"[{'^' if negated else ''}{''.join(parts)}]", index + 1
        first = False
        low, index = _path_class_char(pattern, index)
        if index < len(pattern) and pattern[index] == "-":
            high, index = _path_class_char(pattern, index + 1)
            if high < low:
                raise GlobSyntaxError("bad range")
            parts.append(f"{_class_escape(low)}-{_class_escape(high)}")
        else:
            parts.append(_class_escape(low))


def _path_class_char(pattern: str, index: int) -> tuple[str, int]:
    if index >= len(pattern) or pattern[index] in "-]":
        raise GlobSyntaxError("bad character class")
    if pattern[index] == "\\":
        index += 1
        if index >= len(pattern):
            raise GlobSyntaxError("trailing backslash")
    return pattern[index], index + 1


@lru_cache(maxsize=1024)
def _path_compiled(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(_path_regex(pattern), re.DOTALL)
    except GlobSyntaxError:
        return None


def path_match(pattern: str, name: str) -> bool:
    """Go's ``filepath.Match(pattern, name)`` as Argo CD uses it: a bad pattern matches nothing."""
    compiled = _path_compiled(pattern)
    return compiled is not None and compiled.fullmatch(name) is not None

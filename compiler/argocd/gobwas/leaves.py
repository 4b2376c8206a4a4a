"""The matchers of gobwas/glob v0.2.3 ``match/`` that hold no other matcher, one class per Go
file (``any.go``, ``super.go``, ``single.go``, ``list.go``, ``range.go``, ``text.go``,
``nothing.go``, ``min.go``, ``max.go``, ``contains.go``, ``prefix.go``, ``suffix.go``,
``prefix_any.go``, ``suffix_any.go``, ``prefix_suffix.go``) and ``util/strings``.

Each answers ``match`` (the whole text), ``index`` (the first position where it matches and
the byte lengths it can match there, the segments) and ``length`` (its length in runes, -1 when
it varies), as Go does, on Go strings (``bytes``). Their ``str`` is Go's ``String()``, so a
compiled tree prints as gobwas prints it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from compiler.argocd.gobwas.gostr import (
    decode_rune,
    encode_runes,
    go_slice,
    index_rune,
    ranged,
    rune_count,
    rune_len,
    rune_starts,
)

Segments = Sequence[int]
NO_MATCH: tuple[int, Segments] = (-1, ())
SEGMENTS_BY_RUNE_LENGTH: tuple[Segments, ...] = ((0,), (1,), (2,), (3,), (4,))
LEN_NO = -1


class Matcher:
    """``match.Matcher`` (a plain base class: ``isinstance`` on an ABC is slow, and the
    compiler's type switches call it a lot)."""

    def match(self, s: bytes) -> bool:
        raise NotImplementedError

    def index(self, s: bytes) -> tuple[int, Segments]:
        raise NotImplementedError

    def length(self) -> int:
        raise NotImplementedError


def _text(s: bytes) -> str:
    return s.decode("utf-8", "replace")


def _runes_text(runes: Sequence[int]) -> str:
    return _text(encode_runes(list(runes)))


def index_any_runes(s: bytes, runes: Sequence[int]) -> int:
    """``util/strings.IndexAnyRunes``: the first place of the first rune found (in the order of
    ``runes``, not the smallest place)."""
    for r in runes:
        found = index_rune(s, r)
        if found != -1:
            return found
    return -1


def last_index_any_runes(s: bytes, runes: Sequence[int]) -> int:
    """``util/strings.LastIndexAnyRunes``, bug for bug: for a non-ASCII rune its loop searches
    the whole string again each time, so it answers the FIRST place, and it panics when the
    shrinking rest becomes shorter than that place plus one."""
    for r in runes:
        found = -1
        if 0 <= r < 0x80:
            found = s.rfind(r)
        else:
            rest = s
            while rest:
                first = index_rune(s, r)
                if first == -1:
                    break
                found = first
                rest = go_slice(rest, found + 1)
        if found != -1:
            return found
    return -1


def _starts_and_end(s: bytes, offset: int = 0) -> list[int]:
    return [offset + at for at in rune_starts(s)] + [offset + len(s)]


def _rune_ends(s: bytes, offset: int) -> list[int]:
    # offset + i + utf8.RuneLen(r): an invalid byte counts 3 (RuneLen(RuneError)), as in Go
    return [offset + at + rune_len(r) for at, r in ranged(s)]


@dataclass(frozen=True)
class Any(Matcher):
    """``*`` with separators: any run of runes but the separators."""

    separators: tuple[int, ...]

    def match(self, s: bytes) -> bool:
        return index_any_runes(s, self.separators) == -1

    def index(self, s: bytes) -> tuple[int, Segments]:
        found = index_any_runes(s, self.separators)
        if found == 0:
            return 0, (0,)
        if found > 0:
            s = s[:found]
        return 0, _starts_and_end(s)

    def length(self) -> int:
        return LEN_NO

    def __str__(self) -> str:
        return f"<any:![{_runes_text(self.separators)}]>"


@dataclass(frozen=True)
class Super(Matcher):
    """``**``, or ``*`` without separators: anything."""

    def match(self, s: bytes) -> bool:
        return True

    def index(self, s: bytes) -> tuple[int, Segments]:
        return 0, _starts_and_end(s)

    def length(self) -> int:
        return LEN_NO

    def __str__(self) -> str:
        return "<super>"


def _one_rune(s: bytes) -> int | None:
    """The rune of a text that is at most one rune long (RuneError for ""), else None."""
    r, width = decode_rune(s)
    return None if len(s) > width else r


@dataclass(frozen=True)
class Single(Matcher):
    """``?``: one rune but a separator; also the empty text (it decodes as RuneError)."""

    separators: tuple[int, ...]

    def match(self, s: bytes) -> bool:
        r = _one_rune(s)
        return r is not None and r not in self.separators

    def index(self, s: bytes) -> tuple[int, Segments]:
        for at, r in ranged(s):
            if r not in self.separators:
                return at, SEGMENTS_BY_RUNE_LENGTH[rune_len(r)]
        return NO_MATCH

    def length(self) -> int:
        return 1

    def __str__(self) -> str:
        return f"<single:![{_runes_text(self.separators)}]>"


@dataclass(frozen=True)
class List(Matcher):
    """``[abc]`` / ``[!abc]``."""

    runes: tuple[int, ...]
    negated: bool

    def match(self, s: bytes) -> bool:
        r = _one_rune(s)
        return r is not None and (r in self.runes) == (not self.negated)

    def index(self, s: bytes) -> tuple[int, Segments]:
        for at, r in ranged(s):
            if self.negated == (r not in self.runes):
                return at, SEGMENTS_BY_RUNE_LENGTH[rune_len(r)]
        return NO_MATCH

    def length(self) -> int:
        return 1

    def __str__(self) -> str:
        return f"<list:{'!' if self.negated else ''}[{_runes_text(self.runes)}]>"


@dataclass(frozen=True)
class Range(Matcher):
    """``[a-z]`` / ``[!a-z]``."""

    lo: int
    hi: int
    negated: bool

    def match(self, s: bytes) -> bool:
        r = _one_rune(s)
        return r is not None and (self.lo <= r <= self.hi) == (not self.negated)

    def index(self, s: bytes) -> tuple[int, Segments]:
        for at, r in ranged(s):
            if self.negated != (self.lo <= r <= self.hi):
                return at, SEGMENTS_BY_RUNE_LENGTH[rune_len(r)]
        return NO_MATCH

    def length(self) -> int:
        return 1

    def __str__(self) -> str:
        lo, hi = _runes_text((self.lo,)), _runes_text((self.hi,))
        return f"<range:{'!' if self.negated else ''}[{lo},{hi}]>"


@dataclass(frozen=True)
class Text(Matcher):
    """A literal; its length is in runes, its segment in bytes."""

    text: bytes
    runes_length: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "runes_length", rune_count(self.text))

    def match(self, s: bytes) -> bool:
        return s == self.text

    def index(self, s: bytes) -> tuple[int, Segments]:
        found = s.find(self.text)
        return NO_MATCH if found == -1 else (found, (len(self.text),))

    def length(self) -> int:
        return self.runes_length

    def __str__(self) -> str:
        return f"<text:`{_text(self.text)}`>"


@dataclass(frozen=True)
class Nothing(Matcher):
    """An empty alternative: the empty text; found everywhere, with length 0."""

    def match(self, s: bytes) -> bool:
        return not s

    def index(self, s: bytes) -> tuple[int, Segments]:
        return 0, (0,)

    def length(self) -> int:
        return 0

    def __str__(self) -> str:
        return "<nothing>"


@dataclass(frozen=True)
class Min(Matcher):
    """At least ``limit`` runes."""

    limit: int

    def match(self, s: bytes) -> bool:
        return rune_count(s) >= max(self.limit, 1)

    def index(self, s: bytes) -> tuple[int, Segments]:
        if len(s) - self.limit + 1 <= 0:
            return NO_MATCH
        ends = _rune_ends(s, 0)[max(self.limit, 1) - 1 :]
        return (0, ends) if ends else NO_MATCH

    def length(self) -> int:
        return LEN_NO

    def __str__(self) -> str:
        return f"<min:{self.limit}>"


@dataclass(frozen=True)
class Max(Matcher):
    """At most ``limit`` runes."""

    limit: int

    def match(self, s: bytes) -> bool:
        return rune_count(s) <= self.limit

    def index(self, s: bytes) -> tuple[int, Segments]:
        return 0, [0, *_rune_ends(s, 0)[: max(self.limit, 0)]]

    def length(self) -> int:
        return LEN_NO

    def __str__(self) -> str:
        return f"<max:{self.limit}>"


@dataclass(frozen=True)
class Contains(Matcher):
    """Holds ``needle`` (or, negated, does not)."""

    needle: bytes
    negated: bool

    def match(self, s: bytes) -> bool:
        return (self.needle in s) != self.negated

    def index(self, s: bytes) -> tuple[int, Segments]:
        offset = 0
        found = s.find(self.needle)
        if not self.negated:
            if found == -1:
                return NO_MATCH
            offset = found + len(self.needle)
            if len(s) <= offset:
                return 0, (offset,)
            s = s[offset:]
        elif found != -1:
            s = s[:found]
        return 0, _starts_and_end(s, offset)

    def length(self) -> int:
        return LEN_NO

    def __str__(self) -> str:
        return f"<contains:{'!' if self.negated else ''}[{_text(self.needle)}]>"


@dataclass(frozen=True)
class Prefix(Matcher):
    """``match.Prefix`` (``prefix.go``): text starting with ``prefix``."""

    prefix: bytes

    def match(self, s: bytes) -> bool:
        return s.startswith(self.prefix)

    def index(self, s: bytes) -> tuple[int, Segments]:
        found = s.find(self.prefix)
        if found == -1:
            return NO_MATCH
        length = len(self.prefix)
        rest = s[found + length :] if len(s) > found + length else b""
        return found, [length, *_rune_ends(rest, length)]

    def length(self) -> int:
        return LEN_NO

    def __str__(self) -> str:
        return f"<prefix:{_text(self.prefix)}>"


@dataclass(frozen=True)
class Suffix(Matcher):
    """``match.Suffix`` (``suffix.go``): text ending with ``suffix``."""

    suffix: bytes

    def match(self, s: bytes) -> bool:
        return s.endswith(self.suffix)

    def index(self, s: bytes) -> tuple[int, Segments]:
        found = s.find(self.suffix)
        return NO_MATCH if found == -1 else (0, (found + len(self.suffix),))

    def length(self) -> int:
        return LEN_NO

    def __str__(self) -> str:
        return f"<suffix:{_text(self.suffix)}>"


@dataclass(frozen=True)
class PrefixAny(Matcher):
    """A prefix, then no separator."""

    prefix: bytes
    separators: tuple[int, ...]

    def match(self, s: bytes) -> bool:
        if not s.startswith(self.prefix):
            return False
        return index_any_runes(s[len(self.prefix) :], self.separators) == -1

    def index(self, s: bytes) -> tuple[int, Segments]:
        found = s.find(self.prefix)
        if found == -1:
            return NO_MATCH
        length = len(self.prefix)
        rest = s[found + length :]
        separator = index_any_runes(rest, self.separators)
        if separator > -1:
            rest = rest[:separator]
        return found, [length, *_rune_ends(rest, length)]

    def length(self) -> int:
        return LEN_NO

    def __str__(self) -> str:
        return f"<prefix_any:{_text(self.prefix)}![{_runes_text(self.separators)}]>"


@dataclass(frozen=True)
class SuffixAny(Matcher):
    """No separator, then a suffix."""

    suffix: bytes
    separators: tuple[int, ...]

    def match(self, s: bytes) -> bool:
        if not s.endswith(self.suffix):
            return False
        return index_any_runes(s[: len(s) - len(self.suffix)], self.separators) == -1

    def index(self, s: bytes) -> tuple[int, Segments]:
        found = s.find(self.suffix)
        if found == -1:
            return NO_MATCH
        start = last_index_any_runes(s[:found], self.separators) + 1
        return start, (found + len(self.suffix) - start,)

    def length(self) -> int:
        return LEN_NO

    def __str__(self) -> str:
        return f"<suffix_any:![{_runes_text(self.separators)}]{_text(self.suffix)}>"


@dataclass(frozen=True)
class PrefixSuffix(Matcher):
    """``P*S`` without separators: only ``HasPrefix`` and ``HasSuffix``, which may overlap."""

    prefix: bytes
    suffix: bytes

    def match(self, s: bytes) -> bool:
        return s.startswith(self.prefix) and s.endswith(self.suffix)

    def index(self, s: bytes) -> tuple[int, Segments]:
        found = s.find(self.prefix)
        if found == -1:
            return NO_MATCH
        if not self.suffix:
            return found, (len(s) - found,)
        if len(s) - found <= 0:
            return NO_MATCH
        rest, ends = s[found:], []
        end = len(rest)
        while (at := rest.rfind(self.suffix, 0, end)) != -1:
            ends.append(at + len(self.suffix))
            end = at
        return (found, ends[::-1]) if ends else NO_MATCH

    def length(self) -> int:
        return LEN_NO

    def __str__(self) -> str:
        return f"<prefix_suffix:[{_text(self.prefix)},{_text(self.suffix)}]>"

"""The matchers of gobwas/glob v0.2.3 ``match/`` that hold others: ``any_of.go``,
``every_of.go``, ``btree.go``, ``row.go`` (and ``appendMerge`` of ``match.go``).

Their quirks, kept: ``BTree`` and ``Row`` treat rune counts as byte offsets (so they cut
multi-byte runes and hand the pieces on), ``Row`` panics on a member of length 0 at the end of
the text, ``EveryOf.length`` is always -1, and ``AnyOf.length`` ignores the first alternative's
length when it varies.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from compiler.argocd.gobwas.gostr import decode_rune, go_slice, rune_count, rune_starts
from compiler.argocd.gobwas.leaves import LEN_NO, NO_MATCH, Matcher, Segments


def _joined(matchers: Sequence[Matcher]) -> str:
    return ",".join(str(m) for m in matchers)


def append_merge(target: Segments, sub: Segments) -> list[int]:
    """``appendMerge``: merges two sorted segment lists (dropping pairs of equal values)."""
    out: list[int] = []
    x = y = 0
    while x < len(target) or y < len(sub):
        if x >= len(target):
            out.extend(sub[y:])
            break
        if y >= len(sub):
            out.extend(target[x:])
            break
        if target[x] == sub[y]:
            out.append(target[x])
            x, y = x + 1, y + 1
        elif target[x] < sub[y]:
            out.append(target[x])
            x += 1
        else:
            out.append(sub[y])
            y += 1
    return out


@dataclass(frozen=True)
class AnyOf(Matcher):
    """``{a,b}``: any of the alternatives."""

    matchers: tuple[Matcher, ...]

    def match(self, s: bytes) -> bool:
        return any(m.match(s) for m in self.matchers)

    def index(self, s: bytes) -> tuple[int, Segments]:
        index, segments = -1, list[int]()
        for matcher in self.matchers:
            found, found_segments = matcher.index(s)
            if found == -1 or (index != -1 and found > index):
                continue
            if index == -1 or found < index:
                index, segments = found, list(found_segments)
            else:
                segments = append_merge(segments, found_segments)
        return NO_MATCH if index == -1 else (index, segments)

    def length(self) -> int:
        length = -1
        for matcher in self.matchers:
            own = matcher.length()
            if length == -1:
                length = own
            elif own == -1 or own != length:
                return -1
        return length

    def __str__(self) -> str:
        return f"<any_of:[{_joined(self.matchers)}]>"


@dataclass(frozen=True)
class EveryOf(Matcher):
    """All of the members at once (what ``glueMatchersAsEvery`` builds)."""

    matchers: tuple[Matcher, ...]

    def match(self, s: bytes) -> bool:
        return all(m.match(s) for m in self.matchers)

    def index(self, s: bytes) -> tuple[int, Segments]:
        index = offset = 0
        current: list[int] = []
        rest = s
        for position, matcher in enumerate(self.matchers):
            found, segments = matcher.index(rest)
            if found == -1:
                return NO_MATCH
            if position == 0:
                current = list(segments)
            else:
                wanted = Counter(segments)
                delta = index - (found + offset)
                current = [ex + delta for ex in current for _ in range(wanted[ex + delta])]
                if not current:
                    return NO_MATCH
            index = found + offset
            rest = s[index:]
            offset += found
        return index, current

    def length(self) -> int:
        # Go starts from 0 and only adds while the sum is positive: -1 whenever non-empty.
        return LEN_NO if self.matchers else 0

    def __str__(self) -> str:
        return f"<every_of:[{_joined(self.matchers)}]>"


@dataclass(frozen=True)
class BTree(Matcher):
    """A member of known position (``value``) with what must match on its left and right;
    the lengths are those of the members it was built with (``NewBTree``; gobwas keeps the
    value's length too, which nothing reads)."""

    value: Matcher
    left: Matcher | None
    right: Matcher | None
    left_length_runes: int
    right_length_runes: int
    length_runes: int

    def match(self, s: bytes) -> bool:
        input_len = len(s)
        if self.length_runes != -1 and self.length_runes > input_len:
            return False
        offset = max(self.left_length_runes, 0)
        limit = input_len - self.right_length_runes if self.right_length_runes >= 0 else input_len
        while offset < limit:
            index, segments = self.value.index(s[offset:limit])
            if index == -1:
                return False
            if self._left_matches(s[: offset + index]) and any(
                self._right_matches(s, offset + index + length) for length in reversed(segments)
            ):
                return True
            _, step = decode_rune(s, offset + index)
            offset += index + step
        return False

    def _left_matches(self, left: bytes) -> bool:
        return self.left.match(left) if self.left is not None else left == b""

    def _right_matches(self, s: bytes, start: int) -> bool:
        right = b"" if len(s) <= start else s[start:]
        return self.right.match(right) if self.right is not None else right == b""

    def index(self, s: bytes) -> tuple[int, Segments]:
        return NO_MATCH

    def length(self) -> int:
        return self.length_runes

    def __str__(self) -> str:
        left = "<nil>" if self.left is None else str(self.left)
        right = "<nil>" if self.right is None else str(self.right)
        return f"<btree:[{left}<-{self.value}->{right}]>"


def new_btree(value: Matcher, left: Matcher | None, right: Matcher | None) -> BTree:
    """``NewBTree``: records the members' lengths (-1 overall when one varies)."""
    value_len = value.length()
    left_len = left.length() if left is not None else 0
    right_len = right.length() if right is not None else 0
    known = -1 not in (value_len, left_len, right_len)
    total = left_len + value_len + right_len if known else -1
    return BTree(value, left, right, left_len, right_len, total)


@dataclass(frozen=True)
class Row(Matcher):
    """Members of fixed lengths, one after the other (``NewRow``)."""

    matchers: tuple[Matcher, ...]
    runes_length: int

    def _match_all(self, s: bytes) -> bool:
        idx = 0
        for matcher in self.matchers:
            length = matcher.length()
            last_start, count = _last_rune_start(s[idx:], length)
            if count < length or not matcher.match(go_slice(s, idx, idx + last_start + 1)):
                return False
            idx += last_start + 1  # one byte past the start of the last rune: cuts it
        return True

    def match(self, s: bytes) -> bool:
        return rune_count(s) == self.runes_length and self._match_all(s)

    def index(self, s: bytes) -> tuple[int, Segments]:
        for start in rune_starts(s):
            if len(s) - start < self.runes_length:
                break
            if self._match_all(s[start:]):
                return start, (self.runes_length,)
        return NO_MATCH

    def length(self) -> int:
        return self.runes_length

    def __str__(self) -> str:
        return f"<row_{self.runes_length}:[{_joined(self.matchers)}]>"


def _last_rune_start(s: bytes, length: int) -> tuple[int, int]:
    """Row's ``for next = range s { i++; if i == length { break } }``: the start of the
    ``length``-th rune (or of the last one) and how many runes were seen."""
    last_start = count = 0
    at = 0
    while at < len(s):
        last_start = at
        count += 1
        if count == length:
            break
        at += decode_rune(s, at)[1]
    return last_start, count

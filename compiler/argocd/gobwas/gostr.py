"""The Go string semantics gobwas/glob relies on, over ``bytes``.

A Go string is a sequence of bytes, usually but not necessarily UTF-8: gobwas slices texts by
byte offsets computed from rune counts, so its matchers see cut runes. Ported from Go 1.19's
``unicode/utf8`` (``DecodeRuneInString``, ``RuneLen``, ``RuneCountInString``), the
``for i, r := range s`` loop, ``strings.IndexRune`` and the runtime's bounds checks.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

RUNE_ERROR = 0xFFFD
MAX_RUNE = 0x10FFFF
_SURROGATES = re.compile("[\ud800-\udfff]")

# unicode/utf8's "first" table, as (length, lowest second byte, highest second byte) per lead
# byte; a lead byte that is not here is invalid on its own.
_LEADS: dict[int, tuple[int, int, int]] = {
    **{b: (2, 0x80, 0xBF) for b in range(0xC2, 0xE0)},
    **{b: (3, 0x80, 0xBF) for b in range(0xE1, 0xF0)},
    **{b: (4, 0x80, 0xBF) for b in range(0xF1, 0xF4)},
    0xE0: (3, 0xA0, 0xBF),
    0xED: (3, 0x80, 0x9F),
    0xF0: (4, 0x90, 0xBF),
    0xF4: (4, 0x80, 0x8F),
}


class GoPanic(RuntimeError):
    """A Go runtime panic in the ported code; the message is the one Go prints."""


def go_string(text: str) -> bytes:
    """The Go string a Kubernetes object's field holds for ``text``: UTF-8, with any lone
    surrogate as U+FFFD (what Go's JSON and YAML decoders make of one)."""
    return _SURROGATES.sub("\ufffd", text).encode("utf-8")


def go_runes(text: str) -> list[int]:
    """``[]rune(s)`` of the Go string for ``text``."""
    return [ord(char) for char in _SURROGATES.sub("\ufffd", text)]


def decode_rune(s: bytes, at: int = 0) -> tuple[int, int]:
    """``utf8.DecodeRuneInString(s[at:])``: (rune, width); (RuneError, 1) on an invalid byte,
    (RuneError, 0) at the end."""
    if at >= len(s):
        return RUNE_ERROR, 0
    lead = s[at]
    if lead < 0x80:
        return lead, 1
    shape = _LEADS.get(lead)
    if shape is None:
        return RUNE_ERROR, 1
    size, low, high = shape
    if at + size > len(s) or not low <= s[at + 1] <= high:
        return RUNE_ERROR, 1
    if any(not 0x80 <= s[at + k] <= 0xBF for k in range(2, size)):
        return RUNE_ERROR, 1
    return ord(s[at : at + size].decode("utf-8")), size


def rune_len(r: int) -> int:
    """``utf8.RuneLen``: the bytes UTF-8 needs for ``r``, -1 for a surrogate or beyond MaxRune."""
    if r < 0:
        return -1
    if r < 0x80:
        return 1
    if r < 0x800:
        return 2
    if 0xD800 <= r <= 0xDFFF:
        return -1
    if r < 0x10000:
        return 3
    return 4 if r <= MAX_RUNE else -1


def encode_rune(r: int) -> bytes:
    """``string(r)``: an invalid rune becomes U+FFFD."""
    if rune_len(r) < 0:
        r = RUNE_ERROR
    return chr(r).encode("utf-8")


def encode_runes(runes: list[int]) -> bytes:
    """``string(runes)``."""
    return b"".join(encode_rune(r) for r in runes)


def _is_valid_utf8(s: bytes) -> bool:
    # Python's strict decoder refuses exactly what Go's utf8.Valid refuses (overlongs,
    # surrogates, beyond U+10FFFF, cut sequences).
    try:
        s.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def ranged(s: bytes) -> Iterator[tuple[int, int]]:
    """``for i, r := range s``: (byte offset, rune), an invalid byte as RuneError."""
    if s.isascii():
        yield from enumerate(s)
        return
    if _is_valid_utf8(s):
        offset = 0
        for char in s.decode("utf-8"):
            yield offset, ord(char)
            offset += rune_len(ord(char))
        return
    at = 0
    while at < len(s):
        r, width = decode_rune(s, at)
        yield at, r
        at += width


def rune_starts(s: bytes) -> list[int]:
    """The ``i`` of ``for i := range s``."""
    if s.isascii():
        return list(range(len(s)))
    return [at for at, _ in ranged(s)]


def rune_count(s: bytes) -> int:
    """``utf8.RuneCountInString``."""
    if s.isascii():
        return len(s)
    if _is_valid_utf8(s):
        return len(s.decode("utf-8"))
    return sum(1 for _ in ranged(s))


def index_rune(s: bytes, r: int) -> int:
    """``strings.IndexRune``: RuneError also finds the first invalid byte; an invalid rune is
    never found."""
    if 0 <= r < 0x80:
        return s.find(r)
    if r == RUNE_ERROR:
        return next((at for at, found in ranged(s) if found == RUNE_ERROR), -1)
    if rune_len(r) < 0:
        return -1
    return s.find(encode_rune(r))


def go_slice(s: bytes, low: int, high: int | None = None) -> bytes:
    """``s[low:high]`` with Go's bounds check: out of range is a panic, never a clamp."""
    end = len(s) if high is None else high
    if end > len(s):
        raise GoPanic(f"runtime error: slice bounds out of range [:{end}] with length {len(s)}")
    if not 0 <= low <= end:
        raise GoPanic(f"runtime error: slice bounds out of range [{low}:{end}]")
    return s[low:end]

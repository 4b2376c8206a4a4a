"""Go's ``path/filepath.Match`` on Unix (Go 1.19 ``src/path/filepath/match.go``; the same code in
the Go releases Argo CD v2.6 to v3.x is built with), which Argo CD uses for the group, kind and
name entries of an AppProject's resource white- and blacklists (``isResourceInList``).

It works on bytes: ``*`` skips one byte at a time, so the chunk after it may be tried from
inside a multi-byte rune; ``?`` and ``[...]`` take one rune. A reversed range (``[z-a]``) is
empty, not an error; a malformed pattern is an error, which Argo CD reads as no match.
"""

from __future__ import annotations

from functools import lru_cache

from compiler.argocd.gobwas.gostr import RUNE_ERROR, decode_rune, go_string

SEPARATOR = ord("/")


class _BadPatternError(ValueError):
    """``filepath.ErrBadPattern``."""


@lru_cache(maxsize=4096)  # an AppProject's few entries against a few kinds and groups, for
def path_match(pattern: str, name: str) -> bool:  # each of thousands of objects a compile syncs
    """``ok, err := filepath.Match(pattern, name); ok && err == nil``."""
    try:
        return _match(go_string(pattern), go_string(name))
    except _BadPatternError:
        return False


def _match(pattern: bytes, name: bytes) -> bool:
    """``Match``; raises _BadPatternError where Go returns ErrBadPattern."""
    while pattern:
        star, chunk, pattern = _scan_chunk(pattern)
        if star and not chunk:
            return SEPARATOR not in name  # a trailing * matches the rest unless it has a /
        rest = _match_chunk(chunk, name)
        if rest is not None and (not rest or pattern):
            name = rest
            continue
        skipped = _match_after_skipping(chunk, name, last=not pattern) if star else None
        if skipped is None:
            return False
        name = skipped
    return not name


def _match_after_skipping(chunk: bytes, name: bytes, *, last: bool) -> bytes | None:
    """The star's loop: try the chunk after skipping 1, 2, ... bytes, never past a /."""
    for skip in range(len(name)):
        if name[skip] == SEPARATOR:
            break
        rest = _match_chunk(chunk, name[skip + 1 :])
        if rest is not None and not (last and rest):
            return rest
    return None


def _scan_chunk(pattern: bytes) -> tuple[bool, bytes, bytes]:
    """``scanChunk``: (a star before it, the chunk up to the next star outside [...], the rest)."""
    stripped = pattern.lstrip(b"*")
    star = len(stripped) != len(pattern)
    in_range = False
    i = 0
    while i < len(stripped):
        char = stripped[i : i + 1]
        if char == b"\\":
            if i + 1 < len(stripped):
                i += 1
        elif char == b"[":
            in_range = True
        elif char == b"]":
            in_range = False
        elif char == b"*" and not in_range:
            break
        i += 1
    return star, stripped[:i], stripped[i:]


def _match_chunk(chunk: bytes, s: bytes) -> bytes | None:
    """``matchChunk``: the rest of ``s`` after ``chunk`` matched its start, or None. It reads
    the whole chunk even once failed, so that a malformed chunk is always an error."""
    failed = False
    while chunk:
        failed = failed or not s
        head = chunk[0]
        if head == ord("["):
            r = 0
            if not failed:
                r, width = decode_rune(s)
                s = s[width:]
            matched, chunk = _class_matches(chunk[1:], r)
            failed = failed or not matched
        elif head == ord("?"):
            if not failed:
                failed = s[0] == SEPARATOR
                s = s[decode_rune(s)[1] :]
            chunk = chunk[1:]
        else:
            if head == ord("\\"):
                chunk = chunk[1:]
                if not chunk:
                    raise _BadPatternError
            if not failed:
                failed = chunk[0] != s[0]
                s = s[1:]
            chunk = chunk[1:]
    return None if failed else s


def _class_matches(chunk: bytes, r: int) -> tuple[bool, bytes]:
    """A ``[...]`` class (after its ``[``) against rune ``r``: (matched, the chunk after it)."""
    negated = chunk[:1] == b"^"
    if negated:
        chunk = chunk[1:]
    matched = False
    ranges = 0
    while not (chunk[:1] == b"]" and ranges > 0):
        lo, chunk = _get_esc(chunk)
        hi = lo
        if chunk[0] == ord("-"):
            hi, chunk = _get_esc(chunk[1:])
        matched = matched or lo <= r <= hi
        ranges += 1
    return matched != negated, chunk[1:]


def _get_esc(chunk: bytes) -> tuple[int, bytes]:
    """``getEsc``: a possibly escaped rune of a class, and the chunk after it."""
    if not chunk or chunk[0] in b"-]":
        raise _BadPatternError
    if chunk[0] == ord("\\"):
        chunk = chunk[1:]
        if not chunk:
            raise _BadPatternError
    r, width = decode_rune(chunk)
    if r == RUNE_ERROR and width == 1:
        raise _BadPatternError
    if not chunk[width:]:
        raise _BadPatternError
    return r, chunk[width:]

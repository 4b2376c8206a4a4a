"""Whether a write leaves every field its writer does not own as it was.

The field-owner rule's fast path. Listing every changed pointer and looking up each one's owner
(``ownership.check_field_owner``) is what the rule must do to *name* a violation; to know that
there is none, it is enough to compare, old against new, the few subtrees the writer may not
write. Those are the ledger's *regions*: each pointer owned by someone the writer may not write
whose nearest owned ancestor the writer may write (or which has none), with what lies inside it
taken out: the pointers the writer may write (the longest pointer decides), the API server's own
fields (``ownership.UNOWNED``) and, outside the status subresource, ``/status``. When every
region is the same JSON before and after, no owner has anything to object to; otherwise the full
rule runs and words each change.

One-sided, like the CEL proofs: ``True`` only where the full rule finds nothing (held to it by
``tests/webhook/engine/test_untouched.py``), ``False`` for "look closer". Where the two could
read a pointer differently (``-``, an invalid escape, a list index where the object has a dict,
a string where one has a container) the answer is ``False`` or there is no plan at all.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from jsonpointer import JsonPointer, JsonPointerException

from webhook.base.ledger import entries_below, owner_of
from webhook.base.values import same_json


@dataclass(frozen=True)
class Mask:
    """What to take out of one dict before comparing it: ``skip`` (keys not compared as values:
    the ones taken out and the ones descended into) and ``below`` (the Masks of the latter)."""

    skip: frozenset[str]
    below: tuple[tuple[str, Mask], ...] = ()


_INDEX = re.compile(r"0|[1-9][0-9]*")
"""A list index as RFC 6901 and jsonpointer read it (no sign, no leading zero)."""


Step = tuple[str, int | None]
"""One pointer token, with the list index it names when it names one (``_INDEX``)."""


@dataclass(frozen=True)
class Region:
    """A subtree the writer may not write: the steps to it, less what ``mask`` takes out."""

    steps: tuple[Step, ...]
    mask: Mask | None


def regions(
    ledger: Mapping[str, str], may_write: Callable[[str], bool], ignored: tuple[str, ...]
) -> tuple[Region, ...] | None:
    """The regions of ``ledger`` for a writer (``may_write(owner)``); ``ignored``: pointers no
    owner objects to (taken out of every region above them). None when the ledger names a
    pointer the fast path would read differently from the full rule."""
    try:  # parsed as the full rule's jsonpointer parses them (escapes, "" for the root)
        parsed = {p: tuple(JsonPointer(p).parts) for p in ledger}
    except JsonPointerException:
        return None
    if any("-" in tokens for tokens in parsed.values()):
        return None
    found = []
    for pointer, owner in ledger.items():
        if may_write(owner):
            continue
        parent = owner_of(pointer.rsplit("/", 1)[0], ledger) if pointer else None
        if parent is not None and not may_write(parent[0]):
            continue  # inside the parent's region
        tokens = parsed[pointer]
        steps = tuple((t, int(t) if _INDEX.fullmatch(t) else None) for t in tokens)
        taken_out = [p for p, o in entries_below(ledger, pointer) if may_write(o)]
        taken_out += [p for p in ignored if _strictly_below(p, pointer)]
        below = [tuple(JsonPointer(p).parts)[len(tokens) :] for p in taken_out]
        mask = _mask(below) if below else None
        found.append(Region(steps, mask))
    return tuple(found)


def untouched(found: tuple[Region, ...], old: Any, new: Any) -> bool:
    """Every region the same JSON in ``old`` and ``new`` (``False`` is "look closer")."""
    try:
        for region in found:
            before, after = _at(old, region.steps), _at(new, region.steps)
            if before is _UNREADABLE or after is _UNREADABLE:
                return False
            if before is _MISSING or after is _MISSING:
                if before is not after:
                    return False
            elif region.mask is None:
                if not same_json(before, after):
                    return False
            else:
                values_before: list[Any] = []
                values_after: list[Any] = []
                if not _gather(before, after, region.mask, values_before, values_after):
                    return False
                if not same_json(values_before, values_after):
                    return False
    except TypeError:  # not JSON (orjson refuses it): the full rule decides
        return False
    return True


_MISSING = object()
_UNREADABLE = object()


def _at(value: Any, steps: tuple[Step, ...]) -> Any:
    """The value at ``steps`` as jsonpointer resolves it, ``_MISSING`` where it does not; or
    ``_UNREADABLE`` where the two readings could part (jsonpointer indexes into strings, and a
    list index on a dict would name a different field if a write turned the dict into a list)."""
    for token, index in steps:
        kind = type(value)
        if kind is dict:
            if index is not None:
                return _UNREADABLE
            value = value.get(token, _MISSING)
            if value is _MISSING:
                return _MISSING
        elif kind is list:
            if index is None or index >= len(value):
                return _MISSING
            value = value[index]
        elif value is None or kind in (bool, int, float):
            return _MISSING
        else:
            return _UNREADABLE
    return value


def _gather(
    before: Any, after: Any, mask: Mask, into_before: list[Any], into_after: list[Any]
) -> bool:
    """Append what ``mask`` leaves of ``before`` and ``after``, value by value in the same order,
    for one comparison at the end; False as soon as they differ in which keys they have.

    Without copying: the keys left are a set difference and their values a ``map``, both in C.
    A mask through a list or a scalar takes nothing out (the value is compared whole)."""
    if type(before) is not dict or type(after) is not dict or before == after:
        into_before.append(before)  # compared whole; when ``==``, its JSON is still checked
        into_after.append(after)
        return True
    keys = before.keys() - mask.skip
    if keys != after.keys() - mask.skip:
        return False
    into_before.extend(map(before.__getitem__, keys))
    into_after.extend(map(after.__getitem__, keys))
    for key, inner in mask.below:
        one, other = before.get(key, _MISSING), after.get(key, _MISSING)
        if one is _MISSING or other is _MISSING:
            if one is not other:
                return False
        elif not _gather(one, other, inner, into_before, into_after):
            return False
    return True


def _mask(paths: list[tuple[str, ...]]) -> Mask:
    """One Mask for many (non-empty) paths; a path that takes out a whole subtree wins over one
    below it."""
    dropped = {path[0] for path in paths if len(path) == 1}
    deeper: dict[str, list[tuple[str, ...]]] = {}
    for path in paths:
        if len(path) > 1 and path[0] not in dropped:
            deeper.setdefault(path[0], []).append(path[1:])
    return Mask(
        frozenset(dropped | deeper.keys()),
        tuple((key, _mask(rest)) for key, rest in sorted(deeper.items())),
    )


def _strictly_below(pointer: str, ancestor: str) -> bool:
    return pointer.startswith(ancestor + "/")

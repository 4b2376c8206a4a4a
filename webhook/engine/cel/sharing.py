"""A Quantity a variable holds, changed through cel-go's pointer: which expressions can show
it. cel-go hands Kubernetes' Quantity library a pointer; ``compareTo`` turns its receiver to the
big form, and ``add``/``sub`` of a big one write the sum into it, in an order only cel-go's
evaluation decides. ``routed`` runs the first kind on cel-python (which follows the form);
both engines refuse the second when the expression compiles (``CHANGED_IN_PLACE``)."""

from __future__ import annotations

import re

from webhook.engine.cel.rewrite import blanked

QUANTITY_CHANGED = re.compile(r"\.\s*(?:add|sub|compareTo|isLessThan|isGreaterThan)\s*\(")
READ_AGAIN = re.compile(
    r"\.\s*(?:all|exists|exists_one|existsOne|map|filter|transform\w*|sortBy)\s*\(|\bbind\s*\("
)
QUANTITY = re.compile(r"(?<![\w.])quantity\s*\(")
_CALLED = re.compile(r"(?:(?<=[^\w.])|^)(\.?)\s*(\w+)\s*$")


def fresh_receiver(masked: str, dot: int) -> bool:
    """Whether the receiver ending before ``masked[dot]`` is a Quantity no variable holds:
    ``quantity(...)``, or ``add``/``sub`` of one (their result is held by the call alone)."""
    end = dot
    while True:
        text = masked[:end].rstrip()
        if not text.endswith(")"):
            return False  # a variable, an index, a field: maybe held twice
        depth, at = 0, len(text) - 1
        while at >= 0:
            depth += {")": 1, "(": -1}.get(text[at], 0)
            if depth == 0:
                break
            at -= 1
        called = _CALLED.search(text[:at])
        if called is None:
            return False  # a parenthesized expression
        if not called.group(1):
            return called.group(2) == "quantity"
        if called.group(2) not in ("add", "sub"):
            return False
        end = called.start(1)


_QUANTITY_WRITTEN = re.compile(r"\.\s*(?:add|sub)\s*\(")

CHANGED_IN_PLACE = (
    "add() or sub() of a Quantity a variable holds: Kubernetes' cel-go writes the result into "
    "the Quantity itself when it is held as inf.Dec (a shared pointer), and cel-python cannot "
    "run that as Kubernetes does (nor cel-expr): refused, write quantity(...).add(...) instead"
)


def changes_a_quantity_in_place(expression: str) -> bool:
    """Whether ``expression`` calls ``add()`` or ``sub()`` on a Quantity a variable may hold
    (a comprehension's, ``cel.bind``'s): what Kubernetes answers then depends on cel-go's
    pointer sharing and its evaluation order, which fedgate does not follow; both engines
    refuse such an expression when it compiles (``CHANGED_IN_PLACE``)."""
    masked = blanked(expression)
    if not (QUANTITY.search(masked) and READ_AGAIN.search(masked)):
        return False
    return any(
        not fresh_receiver(masked, found.start()) for found in _QUANTITY_WRITTEN.finditer(masked)
    )

"""What cel-python refuses in an expression, read from cel-python's own checks
(``celpython._unsupported`` and ``_inexact``, and its parser), so that what it learns to run
leaves this set by itself: the constructs the default backend cannot hand to cel-python when
cel-expr's cost cannot be bounded (``routed.py``).
"""

from __future__ import annotations

import re
from functools import lru_cache

from webhook.engine.cel import bound, celpython, grammar
from webhook.engine.cel.rewrite import blanked

UNREADABLE = "syntax cel-python's parser cannot read (optional .? or [?])"
"""cel-python's parser refuses the expression: its optional syntax."""


@lru_cache(maxsize=1024)
def refused(expression: str) -> tuple[str, ...]:
    """The constructs of ``expression`` cel-python cannot run, as its compile names them
    (empty: cel-python runs it), read on the shared parser's tree (cel-python's grammar)."""
    try:
        tree = grammar.parse(celpython._without_trailing_commas(expression))
    except Exception:  # lark's errors: what cel-python's parser refuses too
        return (UNREADABLE,)
    return tuple(sorted(celpython._unsupported(tree) | celpython._inexact(tree)))


_CALL = re.compile(r"(?:\b([A-Za-z_]\w*)\s*\.\s*)?\b([A-Za-z_]\w*)\s*\(")
_BYTES = re.compile(r"\b[rR]?[bB][rR]?['\"]")
_TWO_VARIABLES = re.compile(r"\b(?:all|exists|exists_one)\s*\(\s*\w+\s*,\s*\w+\s*,")


def might_refuse(expression: str) -> bool:
    """Whether cel-python may refuse ``expression`` (False: it surely does not), read on the
    text without parsing it, against cel-python's own names: a call of a name it does not
    know, two variables in ``all``/``exists``/``exists_one``, and anything its parser or
    ``_inexact`` may balk at (optional syntax, ``{``, its escapes, a triple quote, a bytes literal
    beside a non-ASCII character). ``refused`` decides where this says it may."""
    if "{" in expression or any(m.group(1) for m in celpython._BAD_ESCAPE.finditer(expression)):
        return True
    if not expression.isascii() and _BYTES.search(expression):
        return True
    masked = blanked(expression)
    if "'''" in expression or '"""' in expression or _TWO_VARIABLES.search(masked):
        return True
    if "?" in masked and bound.OPTIONAL_MARK.search(masked):  # not a conditional's
        return True
    for match in _CALL.finditer(masked):
        namespace, name = match.groups()
        qualified = f"{namespace}.{name}"
        if name not in celpython._KNOWN:
            return True
        if namespace in celpython._NAMESPACES and qualified not in celpython._NAMESPACED:
            return True
    return False

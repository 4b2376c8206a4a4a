"""The CEL parser of cel-python (a lark LALR parser of its ``cel.lark``), shared by the
process.

Proofs (``proof.py``) and cel-expr's literal check (``celexpr.py``) read CEL through this
parser. Building it is lark's LALR analysis of the grammar: ~0.5 s, most of a warm ``fedgate
check``. The engine only builds it, in memory; a shell that has somewhere to keep it between
runs (the CLI: ``compiler/compile/celparser.py``, in ``.git/fedgate/``) gives ``use_factory`` a
function that loads it from there or builds and saves it, with ``fingerprint`` to tell a saved
parser of this grammar, lark and Python from any other and ``restore`` to make one of lark's
saved data. The webhook gives none: each worker builds the parser once.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from webhook.base import forksafe

if TYPE_CHECKING:
    import lark

Factory = Callable[[str], "lark.Lark"]
"""Given the grammar's text, the parser for it (``build``, or a shell's cache in front of it)."""

OPTIONS: dict[str, Any] = {
    "parser": "lalr",
    "start": "expr",
    "debug": True,
    "g_regex_flags": re.M,
    "propagate_positions": True,
    "maybe_placeholders": False,
    "priority": "invert",
}
"""cel-python's ``CELParser`` options, except its lexer callback and tree class (given on load)."""
UNSAVED = ("lexer_callbacks", "tree_class")
"""The options lark cannot save (a function, a class): ``restore`` gives them back."""

_lock = forksafe.lock()
_parser: lark.Lark | None = None
_factory: Factory | None = None


def ambiguous_literals(token: lark.Token) -> lark.Token:
    """cel-python's lexer callback (``CELParser.ambiguous_literals``): ``true`` and ``false``
    lexed as identifiers are boolean literals."""
    import lark  # noqa: PLC0415 - only a command that parses CEL pays for lark

    if token.value in ("true", "false"):
        return lark.Token("BOOL_LIT", token.value)
    return token


def use_factory(factory: Factory | None) -> None:
    """How the shared parser is made (None: ``build``); before the first parse."""
    global _factory  # noqa: PLW0603 - the one setting of this module, given by the shell
    _factory = factory


def parse(text: str) -> lark.Tree[lark.Token]:
    """``text`` parsed as cel-python's ``CELParser().parse`` parses it; raises lark's errors."""
    return parser().parse(text)


def parser() -> lark.Lark:
    """The shared parser, made on the first call by the factory the shell gave, else built."""
    global _parser  # noqa: PLW0603 - built once per process, as cel-python's own is
    with _lock:
        if _parser is None:
            _parser = (_factory or build)(grammar_text())
        return _parser


def grammar_text() -> str:
    """cel-python's ``cel.lark``, as installed."""
    spec = importlib.util.find_spec("celpy")  # finds, does not import, cel-python
    if spec is None or spec.origin is None:
        raise ImportError("cel-python is not installed")
    return (Path(spec.origin).parent / "cel.lark").read_text()


def fingerprint(grammar: str) -> bytes:
    """What a parser is built from (lark's version, Python's, the grammar and the options), as
    a hex sha256: a saved parser with another fingerprint is not this parser."""
    import lark  # noqa: PLC0415 - only a command that parses CEL pays for lark

    parts = [lark.__version__, sys.version, grammar, repr(sorted(OPTIONS.items()))]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest().encode()


def build(grammar: str | None = None) -> lark.Lark:
    """The parser built from the grammar, as cel-python builds it."""
    import lark  # noqa: PLC0415 - only a command that parses CEL pays for lark

    return lark.Lark(
        grammar if grammar is not None else grammar_text(),
        lexer_callbacks={"IDENT": ambiguous_literals},
        tree_class=lark.Tree,
        **OPTIONS,
    )


def restore(saved: dict[str, Any]) -> lark.Lark:
    """The parser of lark's saved data (``Lark.save`` without ``UNSAVED``), with the options
    it does not save given back; lark's own ``Lark.load``, from data already unpickled."""
    import lark  # noqa: PLC0415 - only a command that parses CEL pays for lark

    loaded: lark.Lark = lark.Lark.__new__(lark.Lark)
    return loaded._load(saved, lexer_callbacks={"IDENT": ambiguous_literals}, tree_class=lark.Tree)

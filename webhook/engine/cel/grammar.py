"""The CEL parser of cel-python (a lark LALR parser of its ``cel.lark``), shared, and kept
between runs when a shell gives it a place to keep it.

Proofs (``proof.py``) and cel-expr's literal check (``celexpr.py``) read CEL through this
parser. Building it is lark's LALR analysis of the grammar: ~0.5 s, most of a warm ``fedgate
check``. ``use_cache(directory)`` keeps the built parser in ``directory/cel-parser.pickle``
(``.git/fedgate/`` for the CLI) and loads it from there on later runs (~0.05 s):

- the file names what it was built from: a sha256 of lark's version, Python's, the grammar's
  text and the options; any difference, and the parser is built again and the file replaced;
- a sha256 of the data guards against a torn or damaged file;
- the data is unpickled with only lark's grammar classes allowed (``_Unpickler``): the file can
  make no other object and call nothing else. Anything unexpected, and it is built again.

The webhook never calls ``use_cache``: each worker builds the parser once.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import os
import pickle
import re
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import lark

CACHE_NAME = "cel-parser.pickle"
_OPTIONS: dict[str, Any] = {
    "parser": "lalr",
    "start": "expr",
    "debug": True,
    "g_regex_flags": re.M,
    "propagate_positions": True,
    "maybe_placeholders": False,
    "priority": "invert",
}
"""cel-python's ``CELParser`` options, except its lexer callback and tree class (given on load)."""
_ALLOWED = {
    ("re", "RegexFlag"),
    ("lark.utils", "fzset"),
    ("lark.parsers.grammar_analysis", "RulePtr"),
    ("lark.grammar", "Rule"),
    ("lark.grammar", "NonTerminal"),
    ("lark.grammar", "RuleOptions"),
    ("lark.grammar", "Terminal"),
    ("lark.lexer", "Token"),
}
"""What a saved parser is made of: plain data of lark's grammar classes."""

_lock = threading.Lock()
_parser: lark.Lark | None = None
_cache: Path | None = None


def ambiguous_literals(token: lark.Token) -> lark.Token:
    """cel-python's lexer callback (``CELParser.ambiguous_literals``): ``true`` and ``false``
    lexed as identifiers are boolean literals."""
    import lark  # noqa: PLC0415 - only a command that parses CEL pays for lark

    if token.value in ("true", "false"):
        return lark.Token("BOOL_LIT", token.value)
    return token


def use_cache(directory: Path | None) -> None:
    """Keep the parser in ``directory`` (None: build it in memory only); before the first parse."""
    global _cache  # noqa: PLW0603 - the one setting of this module, given by the shell
    _cache = directory


def parse(text: str) -> lark.Tree[lark.Token]:
    """``text`` parsed as cel-python's ``CELParser().parse`` parses it; raises lark's errors."""
    return parser().parse(text)


def parser() -> lark.Lark:
    """The shared parser: loaded from the cache when it holds this very parser, else built."""
    global _parser  # noqa: PLW0603 - built once per process, as cel-python's own is
    with _lock:
        if _parser is None:
            _parser = _load_or_build(_cache)
        return _parser


def _grammar() -> str:
    spec = importlib.util.find_spec("celpy")  # finds, does not import, cel-python
    if spec is None or spec.origin is None:
        raise ImportError("cel-python is not installed")
    return (Path(spec.origin).parent / "cel.lark").read_text()


def _key(grammar: str) -> bytes:
    import lark  # noqa: PLC0415 - only a command that parses CEL pays for lark

    parts = [lark.__version__, sys.version, grammar, repr(sorted(_OPTIONS.items()))]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest().encode()


def build(grammar: str | None = None) -> lark.Lark:
    """The parser built from the grammar, as cel-python builds it."""
    import lark  # noqa: PLC0415 - only a command that parses CEL pays for lark

    return lark.Lark(
        grammar if grammar is not None else _grammar(),
        lexer_callbacks={"IDENT": ambiguous_literals},
        tree_class=lark.Tree,
        **_OPTIONS,
    )


def _load_or_build(directory: Path | None) -> lark.Lark:
    if directory is None:
        return build()
    grammar = _grammar()
    key = _key(grammar)
    file = directory / CACHE_NAME
    loaded = load(file, key)
    if loaded is not None:
        return loaded
    built = build(grammar)
    save(built, file, key)
    return built


def load(file: Path, key: bytes) -> lark.Lark | None:
    """The parser saved in ``file`` for ``key``; None when the file is missing, for another
    key, damaged, or holds anything but a lark parser's data."""
    import lark  # noqa: PLC0415 - only a command that parses CEL pays for lark

    try:
        with file.open("rb") as stream:
            header = stream.readline().split()
            data = stream.read()
    except OSError:
        return None
    if header != [key, hashlib.sha256(data).hexdigest().encode()]:
        return None
    try:
        saved = _Unpickler(io.BytesIO(data)).load()
        loaded: lark.Lark = lark.Lark.__new__(lark.Lark)
        return loaded._load(  # lark's own Lark.load, with the options it does not save
            saved, lexer_callbacks={"IDENT": ambiguous_literals}, tree_class=lark.Tree
        )
    except Exception:  # anything unexpected in a file we did not just write: build instead
        return None


def save(built: lark.Lark, file: Path, key: bytes) -> None:
    """Write ``built`` to ``file`` for ``key`` (beside it, then renamed); a cache that cannot
    be written only costs time."""
    stream = io.BytesIO()
    try:
        built.save(stream, exclude_options=("lexer_callbacks", "tree_class"))
    except Exception:  # a lark that saves otherwise (or not at all): no cache, same parser
        return
    data = stream.getvalue()
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        temporary = file.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_bytes(key + b" " + hashlib.sha256(data).hexdigest().encode() + b"\n" + data)
        os.replace(temporary, file)
    except OSError:
        pass


class _Unpickler(pickle.Unpickler):
    """Unpickles lark's grammar data and nothing else (no other class, no function)."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"{module}.{name} is not part of a saved parser")
        return super().find_class(module, name)

"""The CEL parser kept between runs of the CLI: ``.git/fedgate/cel-parser.pickle``.

The engine builds cel-python's parser in memory (``webhook/engine/cel/grammar.py``): lark's
LALR analysis, ~0.5 s, most of a warm ``fedgate check``. ``keep_in(directory)`` puts this cache
in front of it, so a later run loads the built parser (~0.05 s):

- the file names what it was built from (``grammar.fingerprint``: a sha256 of lark's version,
  Python's, the grammar's text and the options); any difference, and the parser is built again
  and the file replaced;
- a sha256 of the data guards against a torn or damaged file;
- the data is unpickled with only lark's grammar classes allowed (``_Unpickler``): the file can
  make no other object and call nothing else. Anything unexpected, and it is built again.
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
import pickle
from pathlib import Path
from typing import TYPE_CHECKING, Any

from webhook.engine.cel import grammar

if TYPE_CHECKING:
    import lark

CACHE_NAME = "cel-parser.pickle"
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


def keep_in(directory: Path | None) -> None:
    """Keep the engine's CEL parser in ``directory`` (None: build it in memory only); before
    the first parse."""
    grammar.use_factory(None if directory is None else functools.partial(load_or_build, directory))


def load_or_build(directory: Path, text: str) -> lark.Lark:
    """The parser of ``text`` saved in ``directory``, else built and saved there."""
    key = grammar.fingerprint(text)
    file = directory / CACHE_NAME
    loaded = load(file, key)
    if loaded is not None:
        return loaded
    built = grammar.build(text)
    save(built, file, key)
    return built


def load(file: Path, key: bytes) -> lark.Lark | None:
    """The parser saved in ``file`` for ``key``; None when the file is missing, for another
    key, damaged, or holds anything but a lark parser's data."""
    try:
        with file.open("rb") as stream:
            header = stream.readline().split()
            data = stream.read()
    except OSError:
        return None
    if header != [key, hashlib.sha256(data).hexdigest().encode()]:
        return None
    try:
        return grammar.restore(_Unpickler(io.BytesIO(data)).load())
    except Exception:  # anything unexpected in a file we did not just write: build instead
        return None


def save(built: lark.Lark, file: Path, key: bytes) -> None:
    """Write ``built`` to ``file`` for ``key`` (beside it, then renamed); a cache that cannot
    be written only costs time."""
    stream = io.BytesIO()
    try:
        built.save(stream, exclude_options=grammar.UNSAVED)
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

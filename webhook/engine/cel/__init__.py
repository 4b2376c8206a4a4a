"""CEL for policy rules, behind a small backend interface (cel-expr-python or cel-python).

``backend.py`` is the interface, ``engines.py`` chooses an engine (``celexpr.py``,
``celpython.py``). A new library function: its implementation, on plain Python values, in
``library.py`` (or ``netlib.py``, ``semverlib.py``, ``urllib_go.py``, ``formatlib.py``,
``stringformat.py``), then
its declaration for each engine (``celexpr.py``, ``celpython.py``), and for the proofs in
``proof.py`` if a rule's all-pass case should skip the engine; docs/cel.md lists the surface.
"""

from webhook.engine.cel.backend import Backend, CelCompileError, CelEvalError
from webhook.engine.cel.engines import make_backend

__all__ = ["Backend", "CelCompileError", "CelEvalError", "make_backend"]

"""CEL for policy rules, behind a small backend interface (cel-expr-python or cel-python)."""

from webhook.engine.cel.backend import Backend, CelCompileError, CelEvalError
from webhook.engine.cel.engines import make_backend

__all__ = ["Backend", "CelCompileError", "CelEvalError", "make_backend"]

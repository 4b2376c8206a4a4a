"""The choice between the two CEL engines behind the ``Backend`` interface (``backend.py``).

- ``cel-expr`` (default): Google's cel-cpp through cel-expr-python, about 0.3 ms for 20
  VAP-style expressions. It returns evaluation errors as values of type ERROR: every result is
  checked, so a failing rule never reads as a pass. It cannot count Kubernetes' cost: an
  evaluation whose bound on the request's sizes might pass the API server's limits goes to
  cel-python, which counts (``routed.py``).
- ``cel-python``: the pure-Python ``celpy``, about 90x slower, selectable with
  ``FEDGATE_CEL_BACKEND`` / ``--cel-backend``; a conformance test holds both to the same
  decisions on every shipped rule.
"""

from __future__ import annotations

from webhook.engine.cel.backend import Backend

BACKENDS = ("cel-expr", "cel-python")
DEFAULT_BACKEND = "cel-expr"


def make_backend(name: str = DEFAULT_BACKEND) -> Backend:
    """A fresh backend (compile every program of a bundle with one, per process)."""
    if name == "cel-expr":
        from webhook.engine.cel.routed import RoutedBackend  # noqa: PLC0415 - load one engine

        return RoutedBackend()
    if name == "cel-python":
        from webhook.engine.cel.celpython import CelPythonBackend  # noqa: PLC0415

        return CelPythonBackend()
    raise ValueError(f"unknown CEL backend {name!r}; choose one of {', '.join(BACKENDS)}")
